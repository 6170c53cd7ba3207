/**
 * 2025-era HTTP sessions end with their server: a DELETE closes the session's server (a call of
 * it still running is cancelled), and a request that starts no session leaves none behind. Before,
 * the gateway set the transport's close handler over the one the SDK's server had chained, so the
 * server of an ended session stayed open for good, and a call waiting for a person ran after the
 * client had gone. The SDK's own `Client` over streamable HTTP, the filesystem server upstream.
 */
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { decide } from "../../worker/portable/engine/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, overHttp, text, type Downstream } from "./helpers.js";

const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INIT = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

let open: { gw: RunningGateway; clients: Downstream[] }[] = [];
afterEach(async () => {
  for (const o of open) {
    for (const d of o.clients) await d.client.close().catch(() => undefined);
    await o.gw.close();
  }
  open = [];
});

async function gateway() {
  const dir = allowedDir();
  const h = home();
  let at = Date.now();
  const logs: string[] = [];
  const gw = await startGateway({
    catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-sessions-${Date.now()}-${Math.random()}.yaml`)),
    upstream: { command: process.execPath, args: [FILESYSTEM, dir] },
    listen: { host: "127.0.0.1", port: 0 },
    home: h,
    approvalWaitMs: 60_000,
    now: () => new Date(at),
    log: (line) => void logs.push(line),
  });
  const clients: Downstream[] = [];
  open.push({ gw, clients });
  const connect = async () => {
    const d = await overHttp(downstreamClient({}), gw.url!);
    clients.push(d);
    return d;
  };
  return { gw, dir, h, logs, connect, advance: (ms: number) => void (at += ms), store: new FileApprovalStore(h) };
}

describe("gateway over HTTP, 2025-era sessions end with their server", { timeout: 120_000 }, () => {
  it("DELETE ends the session's server, and a call of its still waiting for a person does not run afterwards", async () => {
    const g = await gateway();
    const init = await fetch(g.gw.url!, { method: "POST", headers: BASE, body: JSON.stringify(INIT) });
    const session = init.headers.get("mcp-session-id")!;
    await init.text();
    const headers = { ...BASE, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const post = (m: unknown) => fetch(g.gw.url!, { method: "POST", headers, body: JSON.stringify(m) });
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    expect(g.gw.connections()).toBe(1);
    const path = join(g.dir, "left.txt");
    const call = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write_file", arguments: { path, content: "left" } } });
    const stream = call.text().catch(() => "");
    const pending = () => g.store.list().filter((x) => x.record.args.path === path);
    await expect.poll(() => pending().length, { timeout: 30_000 }).toBe(1);
    expect((await fetch(g.gw.url!, { method: "DELETE", headers })).status).toBe(200);
    await stream;
    expect(g.gw.connections()).toBe(0);
    // the same call, asked again on a new session once approved, runs once: the ended call did not take the approval
    await decide(g.store, homeMac(g.h), pending()[0]!.record.id, { decision: "approve", by: "test", at: Date.now() });
    const d = await g.connect();
    expect(text(await d.client.callTool({ name: "write_file", arguments: { path, content: "left" } }))).toContain("Successfully wrote");
  });

  it("a request without a session that starts none leaves no server behind", async () => {
    const g = await gateway();
    const call = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    for (let i = 0; i < 3; i++) {
      expect((await fetch(g.gw.url!, { method: "POST", headers: BASE, body: JSON.stringify(call) })).status).toBe(400);
      expect((await fetch(g.gw.url!, { method: "GET", headers: { accept: "text/event-stream" } })).status).toBe(400);
      expect((await fetch(g.gw.url!, { method: "POST", headers: { ...BASE, accept: "application/json" }, body: JSON.stringify(INIT) })).status).toBe(406);
    }
    expect(g.gw.connections()).toBe(0);
  });
});
