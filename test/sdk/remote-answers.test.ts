/**
 * What a check worker answers is not trusted to be well formed (interfaces.md, "Errors"): an answer
 * whose session the client cannot take — no session object, `since` past what it holds, another
 * session's history — is no answer. A check refuses `check_unavailable`; any other operation
 * throws the typed `CheckUnavailable`; never a bare TypeError, never an allow.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StalwartError } from "../../cli/sdk/index.js";

let server: Server;
let url = "";
let answer: (body: any) => unknown = () => ({});

beforeAll(async () => {
  // A worker that answers every request with what the test says: 200 and the delta header, or the error it throws.
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      let status = 200;
      let data: unknown;
      try {
        data = answer(JSON.parse(text.startsWith("{") ? text : "{}"));
      } catch (err) {
        // an error answer: `throw Object.assign(new Error(), { status, error })`
        ({ status } = err as { status: number });
        data = { error: (err as { error: unknown }).error };
      }
      res.writeHead(status, { "content-type": "application/json", "stalwart-session-forms": "full, delta" });
      res.end(JSON.stringify(data));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
});

const saved = { v: 1 as const, id: "s-1", name: "billing", language: "en" as const, agent: null, context: {}, catalogue: "c".repeat(64), taint_model_after_untrusted: false, rulebook: null, entries: [], seal: "x", head: "y" };
const allow = { decision: "allow", reasons: [], step: 0 };

describe("answers the remote client cannot take", () => {
  const cases: [string, (body: any) => unknown][] = [
    ["a session that is null", () => ({ check: allow, session: null })],
    ["a session that is a string", () => ({ check: allow, session: "s" })],
    ["`since` past what the client holds", (b) => ({ check: allow, session: { ...b.session, entries: [], since: 5 } })],
    ["`since` that is not a count", (b) => ({ check: allow, session: { ...b.session, entries: [], since: "0" } })],
    ["another session's history", (b) => ({ check: allow, session: { ...b.session, id: "s-other" } })],
    // before: the allow was handed on, recorded in no history the client holds
    ["a check without a session", () => ({ check: allow })],
  ];
  for (const [what, give] of cases) {
    it(`${what}: a check refuses check_unavailable, a turn throws CheckUnavailable`, async () => {
      answer = give;
      const client = new Client({ url, timeoutMs: 5000 });
      const s = client.resume(structuredClone(saved));
      const check = await s.checkToolCall("get_order", { order_id: "4411" });
      expect(check).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"], step: -1 });
      // the client's copy is not the answer's
      expect(s.toJSON().id).toBe("s-1");
      const s2 = client.resume(structuredClone(saved));
      answer = (b) => ({ step: 0, ...(give(b) as object) });
      const read = s2.read("hello");
      await expect(read).rejects.toBeInstanceOf(StalwartError);
      await expect(read).rejects.toMatchObject({ code: "CheckUnavailable" });
    });
  }

  it("a saved session that is not an object is an InputError at resume", async () => {
    const client = new Client({ url, timeoutMs: 5000 });
    for (const bad of [null, 42, [], "null"]) {
      let thrown: unknown;
      try {
        await client.resume(bad as never).checkToolCall("get_order", { order_id: "4411" });
      } catch (err) {
        thrown = err;
      }
      expect(thrown, JSON.stringify(bad)).toMatchObject({ code: "InputError" });
    }
  });
});

describe("a remote session that could not be created", () => {
  it("bad input (a catalogue file that is not there, a catalogue that does not lint, a wrong key) rejects the check with its typed error, not check_unavailable", async () => {
    // nothing listens at :9: a missing catalogue file is found before any request
    const missing = new Client({ url: "http://127.0.0.1:9", timeoutMs: 5000 }).session("b", { catalogue: "no/such/agent.yaml" });
    await expect(missing.checkToolCall("get_order", { order_id: "1" })).rejects.toMatchObject({ code: "CatalogueError" });
    const worker = (status: number, error: Record<string, unknown>) => () => {
      throw Object.assign(new Error("answer"), { status, error });
    };
    for (const [status, error, code] of [
      [400, { code: "catalogue_invalid", message: "the catalogue does not load", problems: [{ file: "a.yaml", line: 1, column: 1, pointer: "/tools", message: "no tools" }] }, "CatalogueError"],
      [401, { code: "unauthorized", message: "the key is not valid for this worker" }, "unauthorized"],
    ] as const) {
      answer = worker(status, error);
      const s = new Client({ url, key: "sk_wrong_0123456789abcdef", timeoutMs: 5000 }).session("b", { catalogue: "tools:\n  - name: a\n" });
      await expect(s.checkToolCall("get_order", { order_id: "1" }), code).rejects.toMatchObject({ code });
    }
    // a worker that made no session (an answer without one) or was unreachable is still a refusal
    for (const made of [{}, { session: null }, { session: [] }]) {
      answer = () => made;
      const s = new Client({ url, timeoutMs: 5000 }).session("b", { catalogue: "store" });
      expect(await s.checkToolCall("get_order", { order_id: "1" }), JSON.stringify(made)).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"] });
      await expect(s.read("hello")).rejects.toMatchObject({ code: "CheckUnavailable" });
    }
    const down = new Client({ url: "http://127.0.0.1:9", timeoutMs: 5000 }).session("b", { catalogue: "store" });
    // with what fetch says went wrong (its cause), not a bare "fetch failed": port 9 is one fetch refuses
    expect(await down.checkToolCall("get_order", { order_id: "1" })).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"], detail: { message: "the check worker could not be reached (fetch failed: bad port)" } });
  });
});

describe("answers that are not the worker's", () => {
  // The worker answers every error in its own form, with a code of its own (docs/http.md). A 429
  // or 408 from a proxy, a 404 from another service at the URL: not the worker's answer, so no answer.
  const foreign: [string, number, unknown][] = [
    ["a proxy's 429 with a JSON body of its own", 429, { message: "rate limited" }],
    ["a proxy's 408", 408, { error: "Request Timeout" }],
    ["another service's 404", 404, { error: { code: "not_found_here", message: "no such route" } }],
    ["a 400 whose error is a string", 400, { error: "bad" }],
  ];
  for (const [what, status, body] of foreign) {
    it(`${what}: a check refuses check_unavailable, a turn throws CheckUnavailable`, async () => {
      answer = () => {
        throw Object.assign(new Error("answer"), { status, error: (body as { error?: unknown }).error ?? body });
      };
      const client = new Client({ url, timeoutMs: 5000 });
      const check = await client.resume(structuredClone(saved)).checkToolCall("get_order", { order_id: "4411" });
      expect(check).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"], step: -1 });
      await expect(client.resume(structuredClone(saved)).read("hello")).rejects.toMatchObject({ code: "CheckUnavailable" });
    });
  }

  it("a 200 whose read, report or receipt answer has no step throws CheckUnavailable, never answers undefined", async () => {
    const client = new Client({ url, timeoutMs: 5000 });
    // with the session as the worker sends it, so that only the step is wrong (and without it)
    for (const give of [(b: any) => ({ session: b.session }), (b: any) => ({ session: b.session, step: "3" }), (b: any) => ({ session: b.session, step: -1 }), (b: any) => ({ session: b.session, step: 1.5 }), () => ({ step: 0 }), () => null]) {
      answer = give;
      await expect(client.resume(structuredClone(saved)).read("hello"), String(give)).rejects.toMatchObject({ code: "CheckUnavailable" });
      await expect(client.resume(structuredClone(saved)).report(0, "ran"), String(give)).rejects.toMatchObject({ code: "CheckUnavailable" });
    }
  });
});

describe("a redirect from the worker's address", () => {
  it("is not followed: nothing of the session goes to the other address, and the check refuses check_unavailable", async () => {
    const elsewhere: string[] = [];
    // another address that would answer anything, allow included
    const other = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        elsewhere.push(`${req.method} ${req.url}`);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ check: allow, step: 0 }));
      });
    });
    await new Promise<void>((done) => other.listen(0, "127.0.0.1", done));
    const to = `http://localhost:${(other.address() as AddressInfo).port}`;
    const redirecting = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(307, { location: to + req.url });
        res.end();
      });
    });
    await new Promise<void>((done) => redirecting.listen(0, "127.0.0.1", done));
    try {
      const client = new Client({ url: `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`, key: "sk_test_0123456789abcdef", timeoutMs: 5000 });
      const check = await client.resume(structuredClone(saved)).checkToolCall("get_order", { order_id: "4411" });
      expect(check).toMatchObject({ decision: "refuse", reasons: ["check_unavailable"], step: -1 });
      await expect(client.resume(structuredClone(saved)).read("hello")).rejects.toMatchObject({ code: "CheckUnavailable" });
      // before: the POST, the carried session with its arguments, was sent again to the other address
      expect(elsewhere).toEqual([]);
    } finally {
      await new Promise((done) => redirecting.close(done));
      await new Promise((done) => other.close(done));
    }
  });
});
