/**
 * The worker keeps what it verified of each session per isolate (verified-heads.ts), so the next
 * request verifies only what is new. A miss or a mismatch must never be wrong: a copy of the
 * session whose old entries were edited — by value, by key order, by a link — is still refused
 * `history_invalid`, whatever the isolate verified before, and so is a header changed under the seal
 * the isolate made for it; entries appended elsewhere after the known ones are verified.
 */
import { describe, expect, it } from "vitest";
import { storeYaml, testApp } from "./app-env.js";
import { createApp } from "../../worker/workerd/check/app.js";
import { VerifiedHeads } from "../../worker/workerd/check/verified-heads.js";
import { Engine } from "../../worker/portable/engine/index.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";

type Saved = { entries: Record<string, unknown>[]; [k: string]: unknown };
const refund = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };

async function sessionOf(call: ReturnType<typeof testApp>["call"], n: number): Promise<Saved> {
  expect((await call("PUT", "/v1/catalogues/store", storeYaml, undefined, "application/yaml")).status).toBeLessThan(300);
  let session = ((await (await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" })).json()) as { session: Saved }).session;
  session = ((await (await call("POST", "/v1/sessions/read", { session, text: "estorne 40,00 do pedido 4411" })).json()) as { session: Saved }).session;
  while (session.entries.length < n) {
    const r = (await (await call("POST", "/v1/check", { session, ...refund })).json()) as { session: Saved; check: { decision: string } };
    session = r.session;
  }
  return session;
}

describe("the worker's verified heads", () => {
  it("a carried session edited after the isolate verified it is still refused history_invalid", async () => {
    const { call } = testApp();
    const edits: [string, (s: Saved) => void, RegExp][] = [
      ["a value", (s) => void (s.entries[4]!.decision = "allow"), /entry 4 does not verify/],
      ["a label", (s) => void (s.entries[5]!.labels as string[]).push("x"), /entry 5 does not verify/],
      ["a value digest", (s) => void ((s.entries[6]!.values as Record<string, string>).amount = "0".repeat(32)), /entry 6 does not verify/],
      ["a link", (s) => void (s.entries[3]!.link = "0".repeat(64)), /entry 3 does not verify/],
      ["an entry removed", (s) => void s.entries.splice(2, 1), /not the one this session signed/],
      ["an extra field", (s) => void (s.entries[1]!.extra = 1), /fields/],
    ];
    for (const [what, edit, why] of edits) {
      // each on the newest copy of its own session, which the isolate has just verified: the
      // refusal is the verification's (not the session store's "moved past")
      const session = await sessionOf(call, 12);
      const copy = JSON.parse(JSON.stringify(session)) as Saved;
      edit(copy);
      const r = (await (await call("POST", "/v1/check", { session: copy, ...refund })).json()) as { check: { reasons: string[]; detail: { why: string } } };
      expect(r.check.reasons, what).toEqual(["history_invalid"]);
      expect(r.check.detail.why, what).toMatch(why);
    }
    // an untouched newest copy answers as it did
    const session = await sessionOf(call, 12);
    const ok = (await (await call("POST", "/v1/check", { session, ...refund })).json()) as { check: { decision: string; reasons: string[] } };
    expect(ok.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
  });

  it("entries another isolate appended after the known ones are verified, and refused when edited", async () => {
    // Two isolates on one store and secret: `warm` verified the first entries, `other` answered next.
    const warm = testApp();
    const other = createApp({ core: nodeCore, stores: () => warm.stores });
    const send = (app: typeof warm.app, body: unknown) =>
      app.request("/v1/check", { method: "POST", headers: { authorization: "Bearer key-acme-0123456789abcdef", "content-type": "application/json" }, body: JSON.stringify(body) }, warm.env);
    for (const tamper of [false, true]) {
      const session = await sessionOf(warm.call, 8);
      const moved = ((await (await send(other, { session, ...refund })).json()) as { session: Saved }).session;
      expect(moved.entries).toHaveLength(9);
      if (tamper) moved.entries[8]!.decision = "allow";
      const r = (await (await send(warm.app, { session: moved, ...refund })).json()) as { check: { decision: string; reasons: string[]; detail: { why?: string } } };
      if (tamper) expect([r.check.reasons, r.check.detail.why]).toEqual([["history_invalid"], "entry 8 does not verify"]);
      else expect(r.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
    }
  });

  it("a header changed under the seal this isolate made for it is refused as before, in either form", async () => {
    const { call } = testApp();
    expect((await call("PUT", "/v1/catalogues/store", storeYaml, undefined, "application/yaml")).status).toBeLessThan(300);
    // each edit on a new session the isolate has just answered: it holds that header and its seal
    const held = async (): Promise<Saved> => {
      const created = ((await (await call("POST", "/v1/sessions", { catalogue: "store", name: "billing", agent: "bot", context: { team: "a", n: 1 } })).json()) as { session: Saved }).session;
      return ((await (await call("POST", "/v1/check", { session: created, ...refund })).json()) as { session: Saved }).session;
    };
    const edits: [string, (s: Saved) => void][] = [
      ["the name", (s) => void (s.name = "billing2")],
      ["the language", (s) => void (s.language = s.language === "en" ? "pt-BR" : "en")],
      ["the agent", (s) => void (s.agent = "someone")],
      ["the agent removed", (s) => void (s.agent = null)],
      ["a context value", (s) => void (s.context = { team: "b", n: 1 })],
      ["a context value's type", (s) => void (s.context = { team: "a", n: "1" })],
      ["the taint option", (s) => void (s.taint_model_after_untrusted = true)],
    ];
    for (const [what, edit] of edits) {
      for (const form of ["full", "delta"]) {
        const session = await held();
        const copy = JSON.parse(JSON.stringify(session)) as Saved;
        edit(copy);
        const body = form === "delta" ? { ...copy, entries: [], since: session.entries.length } : copy;
        const res = await call("POST", "/v1/check", { session: body, ...refund });
        const r = (await res.json()) as { error: { code: string; message: string } };
        expect({ status: res.status, code: r.error.code }, `${what}, ${form}`).toEqual({ status: 400, code: "session_invalid" });
        expect(r.error.message, `${what}, ${form}`).toMatch(/header was changed/);
      }
    }
    // the same header with its context's keys in another order is the same header
    const session = await held();
    const reordered = { ...session, context: { n: 1, team: "a" }, entries: [], since: session.entries.length };
    const ok = (await (await call("POST", "/v1/check", { session: reordered, ...refund })).json()) as { check: { decision: string; reasons: string[] } };
    expect(ok.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
  });

  it("a delta whose head seal is not the one this isolate answered is refused, whatever it holds", async () => {
    // The isolate keeps the head seal of its answer and compares a carried one with it instead of
    // making it again (verified-heads.ts): any other seal must still fail as sealHead's would.
    const { call } = testApp();
    const heads: [string, (earlier: Saved, latest: Saved) => string][] = [
      ["the head of an earlier answer", (earlier) => earlier.head as string],
      ["a head one character off", (_, latest) => `${(latest.head as string).slice(0, -1)}${(latest.head as string).endsWith("A") ? "B" : "A"}`],
      ["no head", () => ""],
    ];
    for (const [what, headOf] of heads) {
      // each on a new session whose newest entries the isolate holds, with the head it answered
      const earlier = await sessionOf(call, 6);
      const latest = ((await (await call("POST", "/v1/check", { session: earlier, ...refund })).json()) as { session: Saved }).session;
      const body = { ...latest, head: headOf(earlier, latest), entries: [], since: latest.entries.length };
      const r = (await (await call("POST", "/v1/check", { session: body, ...refund })).json()) as { check?: { reasons: string[]; detail: { why: string } } };
      expect(r.check?.reasons, `${what}: ${JSON.stringify(r).slice(0, 300)}`).toEqual(["history_invalid"]);
      expect(r.check?.detail.why, what).toMatch(/not the one this session signed/);
    }
    // the head it answered, carried back as it came, answers as before
    const fresh = await sessionOf(call, 6);
    const next = ((await (await call("POST", "/v1/check", { session: fresh, ...refund })).json()) as { session: Saved }).session;
    const ok = (await (await call("POST", "/v1/check", { session: { ...next, entries: [], since: next.entries.length }, ...refund })).json()) as { check: { decision: string; reasons: string[] } };
    expect(ok.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
  });

  it("holds at most its budget of entries, the least recently used sessions going first", () => {
    const core = nodeCore();
    const engine = new Engine({ core, key: new Uint8Array(32).fill(3), schemaCompiler: ajvCompiler });
    const heads = new VerifiedHeads(10);
    const prefix = (id: string, count: number) => ({ sessionId: id, entries: Array.from({ length: count }, () => ({}) as never), count, head: new Uint8Array(32) });
    heads.remember(engine, prefix("a", 4));
    heads.remember(engine, prefix("b", 4));
    expect(heads.get(engine, "a")?.count).toBe(4); // a is now the most recent
    heads.remember(engine, prefix("c", 4)); // 12 > 10: b goes
    expect(heads.get(engine, "b")).toBeUndefined();
    expect(heads.get(engine, "a")?.count).toBe(4);
    expect(heads.get(engine, "c")?.count).toBe(4);
    heads.remember(engine, prefix("d", 11)); // over the budget alone: not kept
    expect(heads.get(engine, "d")).toBeUndefined();
    const other = new Engine({ core, key: new Uint8Array(32).fill(4), schemaCompiler: ajvCompiler });
    expect(heads.get(other, "a")).toBeUndefined(); // another key never sees it
  });
});
