/**
 * `--max-sessions` holds when `initialize` requests arrive at once. The bound was checked when a
 * request came in and counted only once its session was made, so every initialize that came in
 * while others were still being set up (the server factory may take its time: it is async in the
 * SDK's contract) passed the check, and more sessions than the bound were held. Each initialize
 * now takes its room before it is set up. `listen` (cli/gateway/http.ts) with the SDK's own
 * server, over real HTTP.
 */
import { afterEach, describe, expect, it } from "vitest";
import { McpServer } from "@modelcontextprotocol/server";
import { listen, type Listening } from "../../cli/gateway/http.js";

const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INIT = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };

let open: Listening[] = [];
afterEach(async () => {
  for (const l of open) await l.close();
  open = [];
});

async function bounded(max: number, factoryDelayMs: number, now: () => Date = () => new Date(1_000_000)) {
  let servers = 0;
  const l = await listen(
    async () => {
      await new Promise((r) => setTimeout(r, factoryDelayMs));
      servers++;
      return new McpServer({ name: "bound", version: "1.0.0" });
    },
    { host: "127.0.0.1", port: 0 },
    { maxSessions: max, sessionIdleMs: 10 * 60_000, now },
  );
  open.push(l);
  return { l, made: () => servers };
}

/** The sessions among `ids` the gateway still answers on. */
async function live(url: string, ids: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const id of ids) {
    const r = await fetch(url, { method: "POST", headers: { ...BASE, "mcp-session-id": id, "mcp-protocol-version": "2025-11-25" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }) });
    await r.text();
    if (r.status === 200) out.push(id);
  }
  return out;
}

describe("gateway over HTTP: the session bound under concurrent initializes", { timeout: 60_000 }, () => {
  it("eight initializes at once with room for two: no more than two sessions are held, and every answer is a session or a 503", async () => {
    const { l, made } = await bounded(2, 30);
    const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(l.url, { method: "POST", headers: BASE, body: JSON.stringify(INIT) })));
    const bodies = await Promise.all(answers.map((a) => a.text()));
    const ids = answers.map((a) => a.headers.get("mcp-session-id")).filter((x): x is string => x !== null);
    for (const [i, a] of answers.entries()) {
      if (a.status === 503) expect(JSON.parse(bodies[i]!)).toMatchObject({ jsonrpc: "2.0", id: 0, error: { code: -32000 } });
      else expect(a.status).toBe(200);
    }
    const held = await live(l.url, ids);
    expect(held.length).toBeGreaterThanOrEqual(1);
    expect(held.length).toBeLessThanOrEqual(2);
    // a refused initialize made no server
    expect(made()).toBe(answers.filter((a) => a.status === 200).length);
  });

  it("once the first ones are set up, the next initialize ends the least recently used idle one as before", async () => {
    const { l } = await bounded(2, 5);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const a = await fetch(l.url, { method: "POST", headers: BASE, body: JSON.stringify(INIT) });
      await a.text();
      expect(a.status).toBe(200);
      ids.push(a.headers.get("mcp-session-id")!);
    }
    expect(await live(l.url, ids)).toEqual(ids.slice(2));
  });

  it("a session made while the clock could not be read is not ended as idle since 1970 once it can: its idle time starts at the first good reading", async () => {
    let at: number | null = null;
    const { l } = await bounded(5, 0, () => {
      if (at === null) throw new Error("clock unavailable");
      return new Date(at);
    });
    const first = await fetch(l.url, { method: "POST", headers: BASE, body: JSON.stringify(INIT) });
    await first.text();
    const a = first.headers.get("mcp-session-id")!;
    at = Date.UTC(2031, 0, 1);
    // the next initialize sweeps: `a` has been idle for no time the gateway could measure
    const second = await fetch(l.url, { method: "POST", headers: BASE, body: JSON.stringify(INIT) });
    await second.text();
    expect(await live(l.url, [a])).toEqual([a]);
    // and idle from then on as any other
    at += 11 * 60_000;
    const third = await fetch(l.url, { method: "POST", headers: BASE, body: JSON.stringify(INIT) });
    await third.text();
    expect(await live(l.url, [a, second.headers.get("mcp-session-id")!])).toEqual([]);
  });
});
