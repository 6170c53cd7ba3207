/**
 * The worker keeps what it verified of each session per isolate (verified-heads.ts), so the next
 * request verifies only what is new. A miss or a mismatch must never be wrong: a copy of the
 * session whose old entries were edited — by value, by key order, by a link — is still refused
 * `history_invalid`, whatever the isolate verified before; and answers are the ones a cold isolate
 * gives.
 */
import { describe, expect, it } from "vitest";
import { storeYaml, testApp } from "./app-env.js";
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
    const session = await sessionOf(call, 12);
    const edits: [string, (s: Saved) => void][] = [
      ["a value", (s) => void (s.entries[4]!.decision = "allow")],
      ["a label", (s) => void (s.entries[5]!.labels as string[]).push("x")],
      ["a value digest", (s) => void ((s.entries[6]!.values as Record<string, string>).amount = "0".repeat(32))],
      ["a link", (s) => void (s.entries[3]!.link = "0".repeat(64))],
      ["an entry removed", (s) => void s.entries.splice(2, 1)],
      ["an extra field", (s) => void (s.entries[1]!.extra = 1)],
    ];
    for (const [what, edit] of edits) {
      const copy = JSON.parse(JSON.stringify(session)) as Saved;
      edit(copy);
      const r = (await (await call("POST", "/v1/check", { session: copy, ...refund })).json()) as { check: { reasons: string[] } };
      expect(r.check.reasons, what).toEqual(["history_invalid"]);
    }
    // the untouched copy still answers as it did
    const ok = (await (await call("POST", "/v1/check", { session, ...refund })).json()) as { check: { decision: string; reasons: string[] } };
    expect(ok.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
  });

  it("the same requests answer the same bytes from a warm and from a cold isolate", async () => {
    const warm = testApp();
    const session = await sessionOf(warm.call, 8);
    const cold = testApp();
    // a cold isolate of the same tenant secret verifies the whole session; both on one clock
    const send = (app: typeof warm.app, body: unknown) =>
      app.request("/v1/check", { method: "POST", headers: { authorization: "Bearer key-acme-0123456789abcdef", "content-type": "application/json", "x-stalwart-now": "1790000000000" }, body: JSON.stringify(body) }, warm.env);
    const a = await (await send(warm.app, { session, ...refund })).text();
    expect((await cold.call("PUT", "/v1/catalogues/store", storeYaml, undefined, "application/yaml")).status).toBeLessThan(300);
    const b = await (await send(cold.app, { session, ...refund })).text();
    expect(b).toBe(a);
    expect(JSON.parse(b).check).toEqual(JSON.parse(a).check);
    expect(JSON.parse(b).session).toEqual(JSON.parse(a).session);
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
