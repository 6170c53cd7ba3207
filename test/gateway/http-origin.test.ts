/**
 * The gateway over streamable HTTP answers only its own origin. A web page on another local port,
 * or under a name rebound to 127.0.0.1 (DNS rebinding), must not drive it: a request whose Origin
 * is present and not the gateway's own (scheme, host as listened, port), or whose Host is not a
 * loopback name at the gateway's port, is refused with 403 and a JSON-RPC error before anything is
 * read. Real HTTP requests (node:http, which sends Host and Origin as given); the SDK's Client,
 * which sends no Origin, still works.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, overHttp, text } from "./helpers.js";

let dir: string;
let gw: RunningGateway;
let port: number;

beforeAll(async () => {
  dir = allowedDir();
  gw = await startGateway({
    catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-origin-${Date.now()}.yaml`)),
    upstream: { command: process.execPath, args: [FILESYSTEM, dir] },
    listen: { host: "127.0.0.1", port: 0 },
    home: home(),
    log: () => undefined,
  });
  port = Number(new URL(gw.url!).port);
}, 60_000);
afterAll(async () => {
  await gw?.close();
});

const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "page", version: "1" } } };

/** An initialize POSTed to the gateway at 127.0.0.1 with these headers. */
function post(headers: Record<string, string>): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers } }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(INITIALIZE));
  });
}

describe("gateway over streamable HTTP: Origin and Host", { timeout: 30_000 }, () => {
  it("a page on another local port, a rebound name, or an opaque origin is refused with 403 and a JSON-RPC error", async () => {
    const origins = [
      `http://127.0.0.1:${port + 1}`,
      `http://localhost:${port + 1}`,
      "http://localhost:3000",
      `https://127.0.0.1:${port}`,
      `http://rebind.example:${port}`,
      "null",
    ];
    for (const origin of origins) {
      const r = await post({ host: `127.0.0.1:${port}`, origin });
      expect([origin, r.status]).toEqual([origin, 403]);
      expect(r.type).toContain("application/json");
      const body = JSON.parse(r.body) as { jsonrpc: string; id: unknown; error: { code: number; message: string } };
      expect(body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
      expect(body.error.message).toContain(`http://127.0.0.1:${port}`);
    }
  });

  it("a Host that is not a loopback name at the gateway's port is refused, Origin or not (DNS rebinding)", async () => {
    for (const host of [`rebind.example:${port}`, `127.0.0.1:${port + 1}`, "localhost", `evil.127.0.0.1.example:${port}`]) {
      const r = await post({ host });
      expect([host, r.status]).toEqual([host, 403]);
      expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    }
  });

  it("the gateway's own origin, or none (a non-browser client), is served", async () => {
    for (const headers of [{ host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` }, { host: `127.0.0.1:${port}` }, { host: `localhost:${port}` }]) {
      const r = await post(headers);
      expect([headers, r.status]).toEqual([headers, 200]);
      expect(r.body).toContain('"serverInfo"');
    }
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const r = await client.callTool({ name: "list_allowed_directories", arguments: {} });
    expect(text(r)).toContain(dir);
    await client.close();
  });
});
