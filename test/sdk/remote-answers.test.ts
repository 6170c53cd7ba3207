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
  // A worker that answers every request with what the test says, 200 and the delta header.
  server = createServer((req, res) => {
    let text = "";
    req.on("data", (c) => (text += c));
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "stalwart-session-forms": "full, delta" });
      res.end(JSON.stringify(answer(JSON.parse(text || "{}"))));
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
