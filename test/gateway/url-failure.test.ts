/**
 * `--url URL`: a tool server that cannot be reached, or that answers something other than MCP,
 * stops the gateway with the cause in words (the SDK says "fetch failed" for a refused connection
 * and leaves the HTTP status out) and a hint about the URL, never about a command.
 */
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runLeaf, type Io } from "../../cli/command.js";
import { command } from "../../cli/commands/gateway.js";
import { home } from "./helpers.js";

let http: Server;
let base = "";
beforeAll(async () => {
  // not MCP: a 404 with a body, a 401 asking for a bearer token, an HTML page
  http = createServer((req, res) => {
    if (req.url === "/private") res.writeHead(401, { "www-authenticate": "Bearer" }).end("token required");
    else if (req.url === "/page") res.writeHead(200, { "content-type": "text/html" }).end("<html><body>hello</body></html>");
    else res.writeHead(404).end("nothing\n  here");
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(() => void http.close());

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

async function gatewayError(url: string): Promise<string> {
  let err = "";
  const io: Io = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) } };
  const dir = home();
  const catalogue = join(dir, "agent.yaml");
  writeFileSync(catalogue, "settings: {language: en}\ntools:\n  - name: echo\n    args: {type: object, properties: {text: {type: string}}}\n");
  expect(await runLeaf(command, ["--home", dir, "--catalogue", catalogue, "--url", url, "--start-timeout", "10"], io)).toBe(1);
  return err;
}

describe("stalwart gateway --url: a tool server it cannot use", () => {
  it("nothing listening: the refused connection is named, and the hint is about the address", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/mcp`;
    const err = await gatewayError(url);
    expect(err).toContain(`UpstreamUnavailable: the tool server at ${url} did not answer \`initialize\`: fetch failed: connect ECONNREFUSED 127.0.0.1:`);
    expect(err).toContain("hint: is a tool server running at that address, serving MCP over streamable HTTP?");
    expect(err).not.toContain("command right");
  });

  it("an HTTP error: its status and what the server said; a 401 hints at --header, a 404 at the path", async () => {
    const private_ = await gatewayError(`${base}/private`);
    expect(private_).toContain("did not answer `initialize`: it answered HTTP 401 Unauthorized (token required)");
    expect(private_).toContain("hint: does it need credentials? Send them with `--header 'Authorization: …'`");
    const missing = await gatewayError(`${base}/mcp`);
    expect(missing).toContain("it answered HTTP 404 Not Found (nothing here)");
    expect(missing).toContain("hint: is that the path where it serves MCP (often `/mcp`)?");
  });

  it("a web page, not MCP: its content type is named", async () => {
    const err = await gatewayError(`${base}/page`);
    expect(err).toContain("it answered with `text/html`, which is not MCP (JSON or an event stream)");
  });

  it("a port fetch refuses to connect to: said so, not a bare `bad port`", async () => {
    const err = await gatewayError("http://127.0.0.1:6000/mcp");
    expect(err).toContain("fetch does not connect to port 6000: it is one of the ports that browsers and Node's fetch refuse");
    expect(err).toContain("hint: serve the tool server on another port");
  });
});
