/**
 * Request ids on a 2025-era HTTP session (the SDK's sessionful transport), raw HTTP as a client
 * sends it: a POST whose request reuses the id of one still running on the session is answered
 * Invalid Request at once and never run. Before, the SDK ran it too and moved the id to the new
 * POST's stream, so the first call's answer went to the second POST and the first never got one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { approvalStatus, decide } from "../../worker/portable/engine/index.js";
import { allowedDir, filesystemCatalogue, FILESYSTEM, home } from "./helpers.js";

let dir: string;
let h: string;
let gw: RunningGateway;

beforeAll(async () => {
  dir = allowedDir();
  h = home();
  gw = await startGateway({
    catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-ids-${Date.now()}.yaml`)),
    upstream: { command: process.execPath, args: [FILESYSTEM, dir] },
    listen: { host: "127.0.0.1", port: 0 },
    home: h,
    approvalWaitMs: 60_000,
    log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await gw?.close();
});

const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("gateway over HTTP, 2025-era session: request ids", { timeout: 60_000 }, () => {
  it("a duplicate id while a checked call waits for a person is refused at once; the first runs once and its answer comes on its own POST", async () => {
    const init = await fetch(gw.url!, { method: "POST", headers: BASE, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) });
    const session = init.headers.get("mcp-session-id")!;
    expect(await init.text()).toContain('"id":0');
    const headers = { ...BASE, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const post = (m: unknown, signal?: AbortSignal) => fetch(gw.url!, { method: "POST", headers, body: JSON.stringify(m), ...(signal ? { signal } : {}) });
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);

    const file = join(dir, "dup.txt");
    const call = (content: string) => ({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "write_file", arguments: { path: file, content } } });
    const first = await post(call("first"));
    const firstText = first.text();
    const store = new FileApprovalStore(h);
    const pending = () => store.list().filter((a) => a.record.args.path === file);
    await expect.poll(() => pending().length, { timeout: 30_000 }).toBe(1);

    const stop = new AbortController();
    try {
      const dup = await post(call("second"), stop.signal);
      expect(dup.status).toBe(400);
      expect(await dup.json()).toMatchObject({ jsonrpc: "2.0", id: 5, error: { code: -32600 } });
      expect(pending()).toHaveLength(1);
      expect(pending()[0]!.record.args.content).toBe("first");
    } finally {
      stop.abort();
    }
    const id = pending()[0]!.record.id;
    await decide(store, homeMac(h), id, { decision: "approve", by: "test", at: Date.now() });
    const answer = await firstText;
    expect(answer).toContain('"id":5');
    expect(answer).toContain("Successfully wrote");
    expect(readFileSync(file, "utf8")).toBe("first");
    expect(approvalStatus(store.get(id)!, Date.now())).toBe("used");
    // answered, the id may be used again on the session
    expect(await (await post({ jsonrpc: "2.0", id: 5, method: "ping" })).text()).toContain('"id":5');
    // a body that is not JSON still gets the SDK's own answer
    const bad = await fetch(gw.url!, { method: "POST", headers, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
    // a `_meta` key the SDK's parse would drop: Invalid params, and nothing written (outside audit 22, F4)
    const lost = await fetch(gw.url!, { method: "POST", headers, body: `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"write_file","arguments":{"path":${JSON.stringify(join(dir, "lost.txt"))},"content":"x"},"_meta":{"__proto__":{"k":"v"}}}}` });
    expect(lost.status).toBe(400);
    expect(await lost.json()).toEqual({ jsonrpc: "2.0", id: 6, error: { code: -32602, message: "invalid params for tools/call: `params._meta` holds a key named `__proto__`, which the gateway cannot pass on as it came" } });
    expect(pending()).toHaveLength(1);
    expect(store.list().some((a) => a.record.args.path === join(dir, "lost.txt"))).toBe(false);
  });
  it("a cancellation the SDK never took leaves the call running (the same id is still refused); one it took frees the id and ends the call's stream", async () => {
    const init = await fetch(gw.url!, { method: "POST", headers: BASE, body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }) });
    const session = init.headers.get("mcp-session-id")!;
    await init.text();
    const headers = { ...BASE, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const post = (m: unknown, h: Record<string, string> = headers) => fetch(gw.url!, { method: "POST", headers: h, body: JSON.stringify(m) });
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);

    const file = join(dir, "cancelled.txt");
    const call = (content: string) => ({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "write_file", arguments: { path: file, content } } });
    const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9, reason: "changed my mind" } };
    const first = await post(call("first"));
    let ended = false;
    const firstText = first.text().finally(() => void (ended = true));
    const store = new FileApprovalStore(h);
    const pending = () => store.list().filter((a) => a.record.args.path === file);
    await expect.poll(() => pending().length, { timeout: 30_000 }).toBe(1);

    // refused by the SDK (a protocol version it does not speak): not delivered, so the call still runs
    const refused = await post(cancel, { ...headers, "mcp-protocol-version": "1999-01-01" });
    expect(refused.status).toBe(400);
    const dup = await post(call("second"));
    expect(dup.status).toBe(400);
    expect(await dup.json()).toMatchObject({ id: 9, error: { code: -32600 } });
    // a batch refused for a duplicate delivers its cancellation neither
    const batch = await post([cancel, { jsonrpc: "2.0", id: 10, method: "ping" }, { jsonrpc: "2.0", id: 10, method: "ping" }]);
    expect(batch.status).toBe(400);
    expect((await post(call("third"))).status).toBe(400);
    expect(pending()).toHaveLength(1);
    expect(ended).toBe(false);

    // delivered: the call is cancelled, its stream ends (no answer will come on it), and the id is free
    expect((await post(cancel)).status).toBe(202);
    expect(await firstText).not.toContain('"id":9');
    expect(await (await post({ jsonrpc: "2.0", id: 9, method: "ping" })).text()).toContain('"id":9');
    expect(await (await post({ jsonrpc: "2.0", id: 10, method: "ping" })).text()).toContain('"id":10');
    await fetch(gw.url!, { method: "DELETE", headers });
  });
});
