/**
 * history/copy.ts reads carried entries field by field instead of a JSON round trip plus
 * `entryShapeError`. Whatever it accepts must be exactly what the round trip would have given
 * (same bytes, same canonical form, a shape the old check accepts — but for the hex of a link,
 * which the core checks as it decodes it, and of the digests, which the entry writer checks as it
 * writes them: either fails the run, which is then verified the long way), and whatever the round trip would refuse it must not accept;
 * mutated, hostile and odd entries included. A history with a bad link is refused with the old
 * reason (test/core/history.test.ts and the conformance corpus hold the reasons).
 */
import { describe, expect, it } from "vitest";
import { CHECK_ORDER, cloneEntry, readEntries, readEntry } from "../../worker/portable/engine/history/copy.js";
import { entryCanonical, entryShapeError, type Entry } from "../../worker/portable/engine/history/entry.js";
import { writeEntry } from "../../worker/portable/engine/history/entry-bytes.js";
import { prng } from "../helpers/prng.js";
import { join } from "node:path";
import { Engine, Session } from "../../worker/portable/engine/index.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { catalogueFrom } from "../../cli/sdk/catalogue-input.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";

const hex = (r: () => number, n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join("");
const roundTrip = (v: unknown): unknown => JSON.parse(JSON.stringify([v]))[0];

function entryOf(r: () => number, i: number): Entry {
  const base = { v: 1 as const, step: i, at: 1.7e12 + Math.floor(r() * 1e6), link: hex(r, 64) };
  switch (i % 3) {
    case 0:
      return { ...base, kind: "turn", text: r() < 0.5 ? "olá ✓" : "estorne 40" };
    case 1:
      return {
        ...base, kind: "check", tool: "refund_card", agent: r() < 0.5 ? null : "desk", args: hex(r, 64), origins: hex(r, 64), labels: ["a", "b"],
        decision: "confirm", reasons: ["argument_origin"], confirmed: r() < 0.5 ? null : 3, undo_of: null, values: { amount: hex(r, 32), __proto__x: hex(r, 32) },
      };
    default:
      return { ...base, kind: "report", of: 1, outcome: "ran", result: r() < 0.3 ? null : { order_id: "4411", n: [1, 2.5, { z: null }] } };
  }
}

const ODD: unknown[] = [
  undefined, null, 0, -0, 1, 1.5, NaN, Infinity, "", "allow", "0".repeat(64), "G".repeat(64), "0".repeat(32), [], ["x"], [1], {}, { a: 1 }, true,
  new Date(0), Object.create({ x: 1 }), () => 1, Symbol("s"), 10n, { toJSON: () => 1 }, [undefined], [, "a"], // eslint-disable-line no-sparse-arrays
];

function mutate(e: Record<string, unknown>, r: () => number): void {
  const keys = Object.keys(e);
  const k = keys[Math.floor(r() * keys.length)]!;
  const what = Math.floor(r() * 6);
  const odd = ODD[Math.floor(r() * ODD.length)];
  if (what === 0) delete e[k];
  else if (what === 1) Object.defineProperty(e, k, { value: odd, enumerable: true, writable: true, configurable: true });
  else if (what === 2) e[`x${k}`] = odd;
  else if (what === 3) Object.defineProperty(e, k, { get: () => odd, enumerable: true, configurable: true });
  else if (what === 4 && typeof e[k] === "object" && e[k] !== null) {
    const inner = e[k] as Record<string, unknown>;
    if (Array.isArray(inner)) inner.push(odd);
    else inner[`y${Math.floor(r() * 3)}`] = odd;
  } else Object.defineProperty(e, k, { value: e[k], enumerable: false, configurable: true });
}

/** `e` with its keys in the order the engine writes a check entry in (copy.ts reads that order apart) */
function inEngineOrder(e: Entry): Entry {
  if (e.kind !== "check") return e;
  const out: Record<string, unknown> = {};
  for (const k of CHECK_ORDER) out[k] = e[k];
  return out as unknown as Entry;
}

describe("reading carried entries without a JSON round trip", () => {
  it.each([
    ["in another order", (e: Entry) => e, 4242],
    ["in the engine's order (read field by field without a loop over the keys)", inEngineOrder, 4343],
  ])("accepts only what the round trip and the shape check accept, and copies it to the same bytes: check entries %s", (_, order, seed) => {
    const r = prng(seed);
    let accepted = 0;
    for (let i = 0; i < 6000; i++) {
      const e = order(entryOf(r, i)) as unknown as Record<string, unknown>;
      const mutations = i % 4 === 0 ? 0 : 1 + Math.floor(r() * 2);
      for (let m = 0; m < mutations; m++) mutate(e, r);
      let old: unknown;
      try {
        old = roundTrip(e);
      } catch {
        old = Symbol("not JSON");
      }
      const read = readEntry(e);
      if (read === null) continue;
      accepted++;
      // left to the core (a link's hex, checked as it is decoded) and to the writer (the digests')
      const isHex = (s: unknown, n: number) => new RegExp(`^[0-9a-f]{${n}}$`).test(String(s));
      const c = read.kind === "check" ? read : undefined;
      const digests = !c || (isHex(c.args, 64) && isHex(c.origins, 64));
      const values = !c || Object.values(c.values).every((h) => isHex(h, 32));
      const want = !isHex(read.link, 64) ? "an entry's link is unreadable" : !digests ? "a check's digests are unreadable" : !values ? "a check's value digests are unreadable" : null;
      expect(entryShapeError(old), JSON.stringify(old)).toBe(want);
      if (!digests || !values) expect(() => writeEntry(read, new Uint8Array(4096), 0, 4096)).toThrow();
      expect(JSON.stringify(read)).toBe(JSON.stringify(old));
      expect(entryCanonical(read)).toBe(entryCanonical(old as Entry));
    }
    expect(accepted).toBeGreaterThan(1500);
  });

  it("CHECK_ORDER is the order the engine writes a check entry in, and a saved session keeps", async () => {
    const core = nodeCore();
    const catalogue = catalogueFrom(join(import.meta.dirname, "../../examples/store/agent.yaml"), { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
    const s = new Session(new Engine({ core, key: new Uint8Array(32).fill(7), schemaCompiler: ajvCompiler }), "billing", catalogue);
    await s.checkToolCall("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "typed", amount: "model" } });
    expect(Object.keys(s.history.entries[0]!)).toEqual(CHECK_ORDER);
    const carried = JSON.parse(JSON.stringify(s.toJSON())).entries[0];
    expect(Object.keys(carried)).toEqual(CHECK_ORDER);
    const read = readEntry(carried)!;
    expect(Object.keys(read)).toEqual(CHECK_ORDER);
    expect(read).toEqual(carried);
    expect(read).not.toBe(carried);
  });

  it.each([
    ["in the engine's order", true],
    ["in another order", false],
  ])("reads each field of a check entry %s once, getters included", (_, engine) => {
    const r = prng(11);
    const plainEntry = entryOf(r, 1);
    const e = engine ? inEngineOrder(plainEntry) : plainEntry;
    const reads = new Map<string, number>();
    const hostile: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e)) {
      Object.defineProperty(hostile, k, {
        enumerable: true,
        get: () => {
          reads.set(k, (reads.get(k) ?? 0) + 1);
          return v;
        },
      });
    }
    const read = readEntry(hostile);
    expect(read).toEqual(roundTrip(e));
    expect([...reads.values()].every((n) => n === 1)).toBe(true);
    expect(reads.size).toBe(Object.keys(e).length);
  });

  it("its copy is its own: editing the caller's object afterwards changes nothing read", () => {
    const r = prng(7);
    const e = entryOf(r, 1) as unknown as { labels: string[]; values: Record<string, string> };
    const read = readEntry(e) as unknown as typeof e;
    e.labels.push("later");
    e.values.amount = "0".repeat(32);
    expect(read.labels).toEqual(["a", "b"]);
    expect(read.values.amount).not.toBe("0".repeat(32));
  });

  it("a list with a hole, a non-array or an odd entry is left to the long way", () => {
    const r = prng(9);
    const a = entryOf(r, 0);
    expect(readEntries([a, , a])).toBeNull(); // eslint-disable-line no-sparse-arrays
    expect(readEntries({ 0: a, length: 1 })).toBeNull();
    expect(readEntries([a, { ...a, extra: 1 }])).toBeNull();
    expect(readEntries(new Proxy([a], { get: () => { throw new Error("no"); } }))).toBeNull();
    expect(readEntries([a])).toEqual([roundTrip(a)]);
  });

  it("a key named __proto__ in `values` stays an own entry, as JSON.parse keeps it", () => {
    const r = prng(3);
    const e = JSON.parse(JSON.stringify(entryOf(r, 1)).replace('"__proto__x"', '"__proto__"'));
    const read = readEntry(e)!;
    expect(JSON.stringify(read)).toBe(JSON.stringify(e));
    expect(JSON.stringify(cloneEntry(read))).toBe(JSON.stringify(e));
  });

  it("cloning an entry the engine holds keeps its bytes and shares nothing", () => {
    const r = prng(5);
    for (let i = 0; i < 30; i++) {
      const e = entryOf(r, i);
      const c = cloneEntry(e);
      expect(JSON.stringify(c)).toBe(JSON.stringify(e));
      if (c.kind === "check" && e.kind === "check") {
        expect(c.labels).not.toBe(e.labels);
        expect(c.values).not.toBe(e.values);
      }
      if (c.kind === "report" && e.kind === "report" && e.result !== null) expect(c.result).not.toBe(e.result);
    }
  });
});

describe("a carried history the fast reading refuses is refused for the old reason", () => {
  const core = nodeCore();
  const catalogue = catalogueFrom(join(import.meta.dirname, "../../examples/store/agent.yaml"), { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
  const engine = new Engine({ core, key: new Uint8Array(32).fill(7), schemaCompiler: ajvCompiler });

  async function saved() {
    const s = new Session(engine, "billing", catalogue);
    await s.read("estorne 40,00 do pedido 4411");
    for (let i = 0; i < 5; i++) await s.checkToolCall("get_order", { order_id: "4411" });
    return JSON.parse(JSON.stringify(s.toJSON())) as { entries: Record<string, unknown>[] };
  }
  const why = async (data: unknown) => {
    const c = await Session.resume(engine, catalogue, data).checkToolCall("get_order", { order_id: "4411" });
    return [c.reasons, c.detail.why];
  };

  it("a link that is not hex, a wrong digest, a wrong step, an edited field", async () => {
    let d = await saved();
    d.entries[3]!.link = "G".repeat(64);
    expect(await why(d)).toEqual([["history_invalid"], "an entry's link is unreadable"]);
    d = await saved();
    d.entries[2]!.args = "A".repeat(64);
    expect(await why(d)).toEqual([["history_invalid"], "a check's digests are unreadable"]);
    d = await saved();
    d.entries[2]!.origins = "g".repeat(64);
    expect(await why(d)).toEqual([["history_invalid"], "a check's digests are unreadable"]);
    d = await saved();
    (d.entries[2]!.values as Record<string, string>).order_id = "-".repeat(32);
    expect(await why(d)).toEqual([["history_invalid"], "a check's value digests are unreadable"]);
    d = await saved();
    d.entries[2]!.step = 7;
    expect(await why(d)).toEqual([["history_invalid"], "entry 2 says it is step 7"]);
    d = await saved();
    d.entries[2]!.tool = "refund_card";
    expect(await why(d)).toEqual([["history_invalid"], "entry 2 does not verify"]);
    expect(await why(await saved())).toEqual([[], undefined]);
  });
});
