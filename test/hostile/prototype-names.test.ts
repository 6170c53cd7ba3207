/**
 * Issue 9, "Crashes and 500s": names like `Object.prototype` members in every position a caller
 * can name something — arguments (declared and not), origins, labels, facts, result fields,
 * `result:` and `{from}` paths, `bind`, a tool, an agent, a pool — through the in-process SDK
 * (`Client`). Generated sessions (test/helpers/proto-world.ts) run in a prototype-name world and
 * a plain-name world: never a throw other than a typed `StalwartError`, and the same answers
 * (so never an allow the plain name would not get). The same property over HTTP:
 * prototype-names-http.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { StalwartError } from "../../worker/portable/engine/index.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { catalogueFor, generateSession, instantiate, PROTO_NAMES, rulebookFor, runSession, type Answer, type Port } from "../helpers/proto-world.js";

const now = () => new Date("2026-11-29T12:00:00Z");
const typed = (err: unknown) => (err instanceof StalwartError ? err.code : undefined);

function world(k: string) {
  const client = new Client({ home: licensedHome("proto"), now });
  const catalogue = catalogueFor(k);
  const rulebook = rulebookFor(k);
  return { k, session: (name: string): Port => client.session(name, { catalogue, rulebook }) as unknown as Port };
}

/** Answers with the world's name put back as `K`, so two worlds compare. */
const neutral = (answers: Answer[], k: string) => JSON.parse(JSON.stringify(answers).split(JSON.stringify(k).slice(1, -1)).join("K"));

describe("Object.prototype names in every position (in-process)", () => {
  it("lists every Object.prototype member", () => {
    expect(PROTO_NAMES).toEqual(expect.arrayContaining(["__proto__", "constructor", "hasOwnProperty", "toString", "valueOf", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString"]));
  });

  it("answers 600 generated sessions exactly as the same sessions with a plain name", async () => {
    const worlds = PROTO_NAMES.map((k, i) => ({ proto: world(k), plain: world(`plain_${i}`) }));
    let checks = 0;
    let allows = 0;
    for (let seed = 1; seed <= 600; seed++) {
      const w = worlds[seed % worlds.length]!;
      const ops = generateSession(seed);
      const a = await runSession(w.proto.session(`s${seed}`), instantiate(ops, w.proto.k), typed);
      const b = await runSession(w.plain.session(`s${seed}`), instantiate(ops, w.plain.k), typed);
      expect(neutral(a, w.proto.k), `seed ${seed}, name \`${w.proto.k}\``).toEqual(neutral(b, w.plain.k));
      checks += a.length;
      allows += a.filter((x) => "decision" in x && x.decision === "allow").length;
    }
    // the generator reaches both answers: a property that only ever saw refusals would prove little
    expect(checks).toBeGreaterThan(2000);
    expect(allows).toBeGreaterThan(100);
  }, 240_000);

  it("objects that throw when read (proxies, getters) as arguments or options: a refusal or a typed error", async () => {
    const s = world("k").session("throwing");
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error("trap"); }, getOwnPropertyDescriptor: () => { throw new Error("trap"); }, get: () => { throw new Error("trap"); } });
    const getter = Object.defineProperty({}, "order_id", { enumerable: true, get: () => { throw new Error("getter"); } });
    for (const args of [hostile, getter]) {
      const r = await s.checkToolCall("details", args);
      expect(r).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { rule: "json" } });
    }
    for (const options of [hostile, { origins: hostile }, { labels: getter }, { facts: hostile }, Object.defineProperty({}, "origins", { enumerable: true, get: () => { throw new Error("g"); } })]) {
      await expect(s.checkToolCall("details", { order_id: "1" }, options as never)).rejects.toBeInstanceOf(StalwartError);
    }
  });

  it("the issue's example: an argument named `constructor` is refused, not a TypeError", async () => {
    const s = world("k").session("example");
    for (const name of PROTO_NAMES) {
      const args = Object.defineProperty({ order_id: "1" }, name, { value: "x", enumerable: true });
      const r = await s.checkToolCall("details", args, { origins: { order_id: "typed" } });
      expect(r, name).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: `/${name}`, rule: "additionalProperties" } });
    }
  });
});
