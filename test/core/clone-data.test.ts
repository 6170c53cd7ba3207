/**
 * cloneData (canonical/clone.ts), the approval stores' copy: for plain data a copy equal to
 * structuredClone's that shares no object with its source; for anything else structuredClone's own.
 */
import { isDeepStrictEqual, inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { cloneData } from "../../worker/portable/engine/canonical/clone.js";
import { prng } from "../helpers/prng.js";

/** Every object reachable from `a`, to check none is reachable from the copy. */
function objectsOf(v: unknown, into = new Set<object>()): Set<object> {
  if (typeof v === "object" && v !== null && !into.has(v)) {
    into.add(v);
    for (const x of Object.values(v)) objectsOf(x, into);
  }
  return into;
}

function randomData(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 4 || k < 0.4) return [0, -0, 1.5, -7, 2 ** 60, NaN, "", "a", "😀", "\ud800", true, false, null, undefined][Math.floor(r() * 14)];
  if (k < 0.7) return Array.from({ length: Math.floor(r() * 4) }, () => randomData(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 4); i > 0; i--) o[["a", "b", "0", "constructor", "x y"][Math.floor(r() * 5)]!] = randomData(r, depth + 1);
  return o;
}

describe("cloneData", () => {
  it("copies plain data as structuredClone does, sharing no object with it (property: 2,000 values)", () => {
    const r = prng(7);
    for (let i = 0; i < 2000; i++) {
      const v = randomData(r, 0);
      const c = cloneData(v);
      // node's strict comparison (prototypes, -0, holes, undefined members)
      expect(isDeepStrictEqual(c, structuredClone(v)), inspect(v)).toBe(true);
      const mine = objectsOf(v);
      for (const o of objectsOf(c)) expect(mine.has(o)).toBe(false);
    }
  });

  it("keeps -0, undefined members and an own `__proto__` key; the copy's objects are plain", () => {
    const v = JSON.parse('{"__proto__": {"x": 1}, "a": [1, {"b": null}]}') as Record<string, unknown>;
    v.z = -0;
    v.u = undefined;
    const c = cloneData(v);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(Object.keys(c)).toEqual(["__proto__", "a", "z", "u"]);
    expect(Object.is(c.z, -0)).toBe(true);
    expect(Object.hasOwn(c, "u")).toBe(true);
    const bare = Object.assign(Object.create(null) as object, { k: 1 });
    expect(Object.getPrototypeOf(cloneData(bare))).toBe(Object.prototype);
  });

  it("leaves anything else to structuredClone: dates, maps, class instances, holes, cycles, deep nesting; throws as it throws", () => {
    const cyc: Record<string, unknown> = { a: 1 };
    cyc.self = cyc;
    const c = cloneData(cyc);
    expect(c.self).toBe(c);
    expect(c).not.toBe(cyc);
    const d = cloneData({ when: new Date(5), m: new Map([[1, 2]]), bytes: new Uint8Array([1, 2]) });
    expect(d.when).toBeInstanceOf(Date);
    expect(d.m.get(1)).toBe(2);
    expect(d.bytes).toBeInstanceOf(Uint8Array);
    // eslint-disable-next-line no-sparse-arrays
    const holes = [1, , 3];
    expect(1 in cloneData(holes)).toBe(false);
    const extra = Object.assign([1, 2], { note: "kept" });
    expect(cloneData(extra)).toStrictEqual(structuredClone(extra));
    let deep: unknown = 0;
    for (let i = 0; i < 2000; i++) deep = [deep];
    expect(cloneData(deep)).toStrictEqual(structuredClone(deep));
    class Point { constructor(readonly x: number) {} }
    expect(cloneData({ p: new Point(1) }).p).toStrictEqual(structuredClone({ p: new Point(1) }).p);
    expect(() => cloneData({ f: () => 1 })).toThrow(/could not be cloned/);
    expect(() => cloneData([Symbol("s")])).toThrow();
  });
});
