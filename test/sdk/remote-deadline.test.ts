/**
 * The remote client's deadline (interfaces.md, "Errors"; checks.md, outside the order): a check
 * past `timeoutMs` is a refusal with `check_unavailable`, never an exception and never an allow;
 * any other operation past it throws `CheckTimeout`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CheckTimeout, Client } from "../../cli/sdk/index.js";

let server: Server;
let url = "";
const held: import("node:http").ServerResponse[] = [];

beforeAll(async () => {
  // A worker that takes every request and never answers.
  server = createServer((_req, res) => void held.push(res));
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const r of held) r.destroy();
  await new Promise((done) => server.close(done));
});

describe("remote deadline", () => {
  it("a check past the deadline refuses check_unavailable; a turn past it throws CheckTimeout", async () => {
    const client = new Client({ url, timeoutMs: 150 });
    const s = client.session("late", { catalogue: "examples/store/agent.yaml" });
    const check = await s.checkToolCall("get_order", { order_id: "4411" });
    expect(check).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"] });
    const s2 = client.session("late", { catalogue: "a-registered-name" });
    const read = s2.read("hello");
    await expect(read).rejects.toBeInstanceOf(CheckTimeout);
    await expect(read).rejects.toMatchObject({ code: "CheckTimeout" });
  });
});

describe("remote deadline across the resend in full", () => {
  let slow: Server;
  let slowUrl = "";
  let checks = 0;
  beforeAll(async () => {
    // A worker that answers the first check at once (and says it takes the delta form); every later
    // check in the delta form gets 409 session_history_needed, and its resend in full an allow,
    // each after 600 ms: the two together are past the client's 1 s deadline.
    slow = createServer((req, res) => {
      let text = "";
      req.on("data", (c) => (text += c));
      req.on("end", () => {
        const body = JSON.parse(text || "{}");
        const session = body.session ?? {};
        const answer = (status: number, data: unknown) => {
          res.writeHead(status, { "content-type": "application/json", "stalwart-session-forms": "full, delta" });
          res.end(JSON.stringify(data));
        };
        if (checks++ === 0) return answer(200, { check: { decision: "allow", reasons: [], step: 0 }, session: { ...session, entries: [{ step: 0 }] } });
        setTimeout(() => {
          if (session.since !== undefined) answer(409, { error: { code: "session_history_needed", message: "send it in full" } });
          else answer(200, { check: { decision: "allow", reasons: [], step: 1 }, session: { ...session, entries: [...session.entries, { step: 1 }] } });
        }, 600);
      });
    });
    await new Promise<void>((done) => slow.listen(0, "127.0.0.1", done));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((done) => slow.close(done));
  });

  it("the deadline is the whole check's: a resend in full does not get a deadline of its own", async () => {
    const client = new Client({ url: slowUrl, timeoutMs: 1000 });
    const saved = { v: 1 as const, id: "s-1", name: "late", language: "en" as const, agent: null, context: {}, catalogue: "c".repeat(64), taint_model_after_untrusted: false, rulebook: null, entries: [], seal: "x", head: "y" };
    const s = client.resume(saved);
    expect((await s.checkToolCall("get_order", { order_id: "4411" })).decision).toBe("allow");
    const late = await s.checkToolCall("get_order", { order_id: "4411" });
    expect(late).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"], step: -1 });
  });
});

describe("the deadline option", () => {
  it("a timeoutMs past what a timer holds (2^31 - 1 ms) is an InputError, not a deadline of 1 ms", async () => {
    for (const timeoutMs of [2 ** 31, 3e9]) {
      expect(() => new Client({ url, timeoutMs }), String(timeoutMs)).toThrow(expect.objectContaining({ code: "InputError", pointer: "/timeoutMs" }));
    }
    // the largest one holds: a worker that never answers is still being waited for
    const s = new Client({ url, timeoutMs: 2 ** 31 - 1 }).resume({ v: 1 } as never, { catalogue: "store" });
    const race = await Promise.race([s.checkToolCall("get_order", { order_id: "1" }), new Promise((ok) => setTimeout(() => ok("waiting"), 300))]);
    expect(race).toBe("waiting");
  });
});

describe("remote deadline across making the session", () => {
  let loris: Server;
  let lorisUrl = "";
  const seen: string[] = [];
  beforeAll(async () => {
    // A worker that answers every request after 400 ms: the catalogue's PUT, the rulebook's PUT and
    // the session's POST each within the client's 700 ms, together well past it.
    loris = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        seen.push(`${req.method} ${req.url}`);
        setTimeout(() => {
          res.writeHead(200, { "content-type": "application/json" });
          if (req.url === "/v1/sessions") res.end(JSON.stringify({ session: { v: 1, id: "s-1", name: "b", language: "en", agent: null, context: {}, catalogue: "c".repeat(64), taint_model_after_untrusted: false, rulebook: null, entries: [], seal: "x", head: "y" } }));
          else if (req.url === "/v1/check") res.end(JSON.stringify({ check: { decision: "allow", reasons: [], step: 0 } }));
          else res.end("{}");
        }, 400);
      });
    });
    await new Promise<void>((done) => loris.listen(0, "127.0.0.1", done));
    lorisUrl = `http://127.0.0.1:${(loris.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((done) => loris.close(done));
  });

  it("the session's PUTs and POST share one deadline: a worker slow at each is check_unavailable, not an allow seconds later", async () => {
    const client = new Client({ url: lorisUrl, timeoutMs: 700 });
    const s = client.session("b", { catalogue: "examples/store/agent.yaml", rulebook: "rules:\n  - id: r\n    when: {tool: refund_card}\n    then: ask\n" });
    const check = await s.checkToolCall("get_order", { order_id: "4411" });
    expect(check).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"] });
    expect(seen.some((r) => r.startsWith("POST /v1/check")), "no check was sent").toBe(false);
  });
});
