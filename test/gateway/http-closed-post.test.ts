/**
 * A 2025-era client that closes a call's POST before the gateway asks the person (a host that
 * quit, a proxy's timeout): the question has nowhere to go, since the SDK sends it only on that
 * POST's stream, and it would have waited for an answer as long as a person may take (a day by
 * default), keeping the call's id in use and the session busy: never idle, never ended, holding a
 * `--max-sessions` place. Now the question fails at once and the call ends without running. The
 * check is held by the test until the POST is closed; the filesystem server upstream.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client as Sdk } from "../../cli/sdk/index.js";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, filesystemCatalogue, FILESYSTEM, home, sessionOver } from "./helpers.js";

const MINUTE = 60_000;
const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INIT = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "raw", version: "1" } } };

let gw: RunningGateway;
let sdk: Sdk;
let dir: string;
let at = Date.now();
let checking = 0;
let hold: Promise<void> = Promise.resolve();

beforeAll(async () => {
  dir = allowedDir();
  const h = home();
  const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-closed-${Date.now()}.yaml`));
  sdk = new Sdk({ home: h, now: () => new Date(at) });
  const inner = sdk.session("gateway", { catalogue });
  // the real session, its check held until the test has closed the POST
  const session = sessionOver(inner, {
    checkToolCall: async (tool, args, options) => {
      checking++;
      await hold;
      return inner.checkToolCall(tool, args, options);
    },
  });
  gw = await startGateway({
    catalogue, session,
    upstream: { command: process.execPath, args: [FILESYSTEM, dir] },
    listen: { host: "127.0.0.1", port: 0 }, home: h, sessionIdleMs: 10 * MINUTE, now: () => new Date(at), log: () => undefined,
  });
}, 60_000);
afterAll(async () => {
  await gw?.close();
  sdk?.close();
});

describe("gateway over HTTP, a call whose POST the client closed", { timeout: 60_000 }, () => {
  it("asks no one and ends: its id is free again, the session idle and let go, and nothing ran", async () => {
    const init = await fetch(gw.url!, { method: "POST", headers: BASE, body: JSON.stringify(INIT) });
    const session = init.headers.get("mcp-session-id")!;
    await init.text();
    const headers = { ...BASE, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
    const post = (m: unknown, signal?: AbortSignal) => fetch(gw.url!, { method: "POST", headers, body: JSON.stringify(m), ...(signal ? { signal } : {}) });
    expect((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);

    let release!: () => void;
    hold = new Promise((r) => (release = r));
    const path = join(dir, "closed.txt");
    const stop = new AbortController();
    const call = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write_file", arguments: { path, content: "x" } } }, stop.signal);
    expect(call.status).toBe(200);
    await expect.poll(() => checking).toBe(1);
    stop.abort();
    // the gateway sees the connection close before the check lets the call on
    await new Promise((r) => setTimeout(r, 300));
    release();

    // the write needs the person: with nowhere to ask, the call ends, and its id may be used again
    await expect.poll(async () => (await post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, { timeout: 10_000 }).toBe(200);
    expect(existsSync(path)).toBe(false);
    // idle now, so it is let go once idle for long enough
    at += 11 * MINUTE;
    const next = await fetch(gw.url!, { method: "POST", headers: BASE, body: JSON.stringify(INIT) });
    expect(next.status).toBe(200);
    await next.text();
    expect((await post({ jsonrpc: "2.0", id: 2, method: "ping" })).status).toBe(404);
    expect(gw.connections()).toBe(1);
  });
});
