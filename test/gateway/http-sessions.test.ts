/**
 * 2025-era HTTP sessions are let go: one idle for longer than the bound is ended (the gateway's
 * clock, injected here), at most `maxSessions` are held (a new `initialize` ends the least
 * recently used idle one, or is refused when every one has a request running), and a session
 * with a call running or waiting for a person is never ended. Before, only a DELETE ended a
 * session, so every client that initialized again without one left a session, its transport and
 * its server behind for as long as the gateway ran. The SDK's own `Client` over streamable HTTP,
 * the filesystem server upstream.
 */
import { afterEach, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { approvalStatus, decide } from "../../worker/portable/engine/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, overHttp, text, type Downstream } from "./helpers.js";

const MINUTE = 60_000;
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

async function gateway(o: { idleMs?: number; max?: number } = {}) {
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
    ...(o.idleMs ? { sessionIdleMs: o.idleMs } : {}),
    ...(o.max ? { maxSessions: o.max } : {}),
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

/** A 2025-era session opened by hand (initialize, then initialized): its headers, and a POST on it. */
async function rawSession(g: Awaited<ReturnType<typeof gateway>>) {
  const init = await fetch(g.gw.url!, { method: "POST", headers: BASE, body: JSON.stringify(INIT) });
  const session = init.headers.get("mcp-session-id")!;
  await init.text();
  const headers = { ...BASE, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
  const post = (m: unknown, signal?: AbortSignal) => fetch(g.gw.url!, { method: "POST", headers, body: JSON.stringify(m), ...(signal ? { signal } : {}) });
  expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
  return { headers, post };
}

/** A write that waits for the person in the approvals store (the client has no elicitation). */
function waiting(g: Awaited<ReturnType<typeof gateway>>, d: Downstream, name: string) {
  const path = join(g.dir, name);
  const result = d.client.callTool({ name: "write_file", arguments: { path, content: name } }, { timeout: 120_000 });
  const pending = () => g.store.list().filter((a) => a.record.args.path === path);
  return { result, pending, approve: async () => decide(g.store, homeMac(g.h), pending()[0]!.record.id, { decision: "approve", by: "test", at: Date.now() }) };
}

const notFound = (p: Promise<unknown>) => expect(p).rejects.toThrow(/Session not found|404/);

describe("gateway over HTTP, 2025-era sessions are let go", { timeout: 120_000 }, () => {
  it("a session idle for longer than the bound is ended: its requests get 404 Session not found, as an unknown one", async () => {
    const g = await gateway({ idleMs: 10 * MINUTE });
    const a = await g.connect();
    expect((await a.client.listTools()).tools.length).toBeGreaterThan(0);
    expect(g.gw.connections()).toBe(1);
    g.advance(9 * MINUTE);
    const b = await g.connect();
    // nine minutes idle: kept (and used now, so idle from here)
    expect((await a.client.listTools()).tools.length).toBeGreaterThan(0);
    g.advance(11 * MINUTE);
    // the next initialize finds `a` and `b` idle for eleven minutes: both ended
    const c = await g.connect();
    await notFound(a.client.listTools());
    await notFound(b.client.listTools());
    expect((await c.client.listTools()).tools.length).toBeGreaterThan(0);
    expect(g.gw.connections()).toBe(1);
    expect(g.logs.filter((l) => /session .* ended: idle for 11 minutes/.test(l))).toHaveLength(2);
  });

  it("with no request coming, an idle session is ended by the gateway's own timer", async () => {
    const g = await gateway({ idleMs: 2000 });
    await g.connect();
    expect(g.gw.connections()).toBe(1);
    g.advance(5000);
    await expect.poll(() => g.gw.connections(), { timeout: 20_000 }).toBe(0);
  });

  it("a session whose call waits for a person is never ended, however long it waits; idle again once answered", async () => {
    const g = await gateway({ idleMs: 10 * MINUTE });
    const a = await g.connect();
    const w = waiting(g, a, "slow.txt");
    await expect.poll(() => w.pending().length, { timeout: 30_000 }).toBe(1);
    g.advance(60 * MINUTE);
    await g.connect();
    expect(g.gw.connections()).toBe(2);
    await w.approve();
    expect(text(await w.result)).toContain("Successfully wrote");
    // answered just now: the hour it waited does not count as idle
    await g.connect();
    expect((await a.client.listTools()).tools.length).toBeGreaterThan(0);
    g.advance(11 * MINUTE);
    await g.connect();
    await notFound(a.client.listTools());
  });

  it("at the bound, a new initialize ends the least recently used idle session; when every one has a call running it is refused with a JSON-RPC error", async () => {
    const g = await gateway({ max: 2 });
    const a = await g.connect();
    g.advance(1000);
    const b = await g.connect();
    g.advance(1000);
    expect((await a.client.listTools()).tools.length).toBeGreaterThan(0);
    g.advance(1000);
    // `b` was used longest ago
    const c = await g.connect();
    await notFound(b.client.listTools());
    expect(g.gw.connections()).toBe(2);
    expect(g.logs.some((l) => /session .* ended: the gateway holds 2 sessions/.test(l))).toBe(true);

    const wa = waiting(g, a, "a.txt");
    const wc = waiting(g, c, "c.txt");
    await expect.poll(() => wa.pending().length + wc.pending().length, { timeout: 30_000 }).toBe(2);
    const refused = await fetch(g.gw.url!, { method: "POST", headers: BASE, body: JSON.stringify(INIT) });
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 0, error: { code: -32000 } });
    expect(body.error.message).toContain("2 sessions");
    expect(refused.headers.get("mcp-session-id")).toBeNull();
    await wa.approve();
    await wc.approve();
    expect(text(await wa.result)).toContain("Successfully wrote");
    expect(text(await wc.result)).toContain("Successfully wrote");
    // idle again: room is made
    await g.connect();
    expect(g.gw.connections()).toBe(2);
  });

  it("DELETE ends the session's server, and a call of its still waiting for a person does not run afterwards", async () => {
    const g = await gateway();
    const { headers, post } = await rawSession(g);
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

  // outside audit 10, F1: the wait went on, and the call ran when the person approved it later
  it("a client that closes the POST of a call waiting for a person: approved afterwards, it does not run; the same call made again runs on that approval", async () => {
    const g = await gateway();
    const { post } = await rawSession(g);
    const path = join(g.dir, "gone.txt");
    const quit = new AbortController();
    const call = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write_file", arguments: { path, content: "gone" } } }, quit.signal);
    const stream = call.text().catch(() => "closed");
    const pending = () => g.store.list().filter((x) => x.record.args.path === path);
    await expect.poll(() => pending().length, { timeout: 30_000 }).toBe(1);
    quit.abort(); // the host quit: its connection closes, and no cancellation is sent
    expect(await stream).toBe("closed");
    await expect.poll(() => g.logs.some((l) => l.includes("the client closed its request while it waited for a person")), { timeout: 10_000 }).toBe(true);
    await decide(g.store, homeMac(g.h), pending()[0]!.record.id, { decision: "approve", by: "test", at: Date.now() });
    await new Promise((r) => setTimeout(r, 1500)); // the wait watched the store every few hundred ms
    expect(existsSync(path)).toBe(false);
    const d = await g.connect();
    expect(text(await d.client.callTool({ name: "write_file", arguments: { path, content: "gone" } }))).toContain("Successfully wrote");
  });

  it("a call approved just as its session is ended (DELETE) does not spend the approval: the same call on a new session runs on it", async () => {
    const g = await gateway();
    const { headers, post } = await rawSession(g);
    const path = join(g.dir, "raced.txt");
    const call = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write_file", arguments: { path, content: "raced" } } });
    const stream = call.text().catch(() => "");
    const pending = () => g.store.list().filter((x) => x.record.args.path === path);
    await expect.poll(() => pending().length, { timeout: 30_000 }).toBe(1);
    // ended, and approved before the waiting call looks at the store again
    expect((await fetch(g.gw.url!, { method: "DELETE", headers })).status).toBe(200);
    await decide(g.store, homeMac(g.h), pending()[0]!.record.id, { decision: "approve", by: "test", at: Date.now() });
    await stream;
    await new Promise((r) => setTimeout(r, 500));
    await g.gw.settled();
    expect(existsSync(path)).toBe(false);
    expect(approvalStatus(pending()[0]!, Date.now())).toBe("approved");
    const d = await g.connect();
    expect(text(await d.client.callTool({ name: "write_file", arguments: { path, content: "raced" } }))).toContain("Successfully wrote");
    expect(approvalStatus(pending()[0]!, Date.now())).toBe("used");
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
