/**
 * Issue 9, over HTTP: the generated sessions of prototype-names.test.ts (test/helpers/proto-world.ts)
 * through `new Client({ url, key })` against the real check worker under `wrangler dev` (workerd,
 * the cfworker schema adapter, Durable Object counters). Every request answers — never a 500 (the
 * SDK turns a 5xx into `check_unavailable`, so none may appear) —, the prototype-name world answers
 * what the plain world answers, and both answer what the in-process SDK answers for the same
 * session. Then a backtracking `pattern` is answered, and the worker still serves the next request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { StalwartError } from "../../worker/portable/engine/index.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { startCheckWorker, type RunningWorker } from "../helpers/check-worker.js";
import { catalogueFor, generateSession, instantiate, PROTO_NAMES, rulebookFor, runSession, type Answer, type Port } from "../helpers/proto-world.js";

const now = () => new Date("2026-11-29T12:00:00Z");
const typed = (err: unknown) => (err instanceof StalwartError ? err.code : undefined);
const neutral = (answers: Answer[], k: string) => JSON.parse(JSON.stringify(answers).split(JSON.stringify(k).slice(1, -1)).join("K"));

let worker: RunningWorker;
const tenants = [...PROTO_NAMES.map((_, i) => `proto${i}`), ...PROTO_NAMES.map((_, i) => `plain${i}`), "patterns"];
beforeAll(async () => {
  worker = await startCheckWorker(tenants);
}, 120_000);
afterAll(async () => {
  await worker?.stop();
});

const keyOf = (tenant: string) => worker.keys[tenants.indexOf(tenant)]!;
function remote(tenant: string, k: string) {
  const client = new Client({ url: worker.url, key: keyOf(tenant), now, timeoutMs: 10_000 });
  const catalogue = catalogueFor(k);
  const rulebook = rulebookFor(k);
  return (name: string): Port => client.session(name, { catalogue, rulebook }) as unknown as Port;
}
function local(k: string) {
  const client = new Client({ home: licensedHome("proto-http"), now });
  const catalogue = catalogueFor(k);
  const rulebook = rulebookFor(k);
  return (name: string): Port => client.session(name, { catalogue, rulebook }) as unknown as Port;
}

describe("Object.prototype names in every position (check worker over HTTP, wrangler dev)", () => {
  it("answers 36 generated sessions like the plain-name world and like the in-process SDK", async () => {
    const worlds = PROTO_NAMES.map((k, i) => ({ k, plainK: `plain_${i}`, proto: remote(`proto${i}`, k), plain: remote(`plain${i}`, `plain_${i}`), inProcess: local(k) }));
    let checks = 0;
    for (let seed = 1; seed <= 36; seed++) {
      const w = worlds[seed % worlds.length]!;
      const ops = generateSession(seed);
      const a = await runSession(w.proto(`s${seed}`), instantiate(ops, w.k), typed);
      const b = await runSession(w.plain(`s${seed}`), instantiate(ops, w.plainK), typed);
      const c = await runSession(w.inProcess(`s${seed}`), instantiate(ops, w.k), typed);
      const where = `seed ${seed}, name \`${w.k}\``;
      expect(a.some((x) => "reasons" in x && x.reasons.includes("check_unavailable")), `${where}: ${JSON.stringify(a)}`).toBe(false);
      expect(neutral(a, w.k), where).toEqual(neutral(b, w.plainK));
      expect(a, `${where}: over HTTP and in-process`).toEqual(c);
      checks += a.length;
    }
    expect(checks).toBeGreaterThan(100);
  }, 240_000);

  it("answers a backtracking pattern and keeps serving (workerd's adapter on the linear-time engine)", async () => {
    const catalogue = { tools: [{ name: "lookup", args: { type: "object", properties: { host: { type: "string", pattern: "^([a-z0-9]+[-.]?)*[a-z0-9]+$" } }, additionalProperties: false } }] };
    const s = new Client({ url: worker.url, key: keyOf("patterns"), now, timeoutMs: 10_000 }).session("p", { catalogue });
    const evil = await s.checkToolCall("lookup", { host: "a".repeat(28) + "!" });
    expect(evil).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: "/host", rule: "pattern" } });
    const longer = await s.checkToolCall("lookup", { host: "a".repeat(20_000) + "!" });
    expect(longer).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { rule: "pattern" } });
    const fine = await s.checkToolCall("lookup", { host: "shop-1-a" });
    expect(fine).toMatchObject({ decision: "allow" });
    // what the engine cannot run in linear time does not load, with its place
    const res = await fetch(`${worker.url}/v1/catalogues/lookahead`, {
      method: "PUT",
      headers: { authorization: `Bearer ${keyOf("patterns")}`, "content-type": "application/yaml" },
      body: "tools:\n  - name: lookup\n    args: {type: object, properties: {host: {type: string, pattern: '^(?=a)'}}}\n",
    });
    const body = (await res.json()) as { error: { code: string; problems: { line: number; message: string }[] } };
    expect(res.status).toBe(400);
    expect(body.error.code).toBe("catalogue_invalid");
    expect(body.error.problems[0]).toMatchObject({ line: 3, message: expect.stringContaining("cannot be matched in linear time") });
  }, 60_000);
});
