/**
 * `recordable` (engine canonical/recordable.ts): a third party's result made into data a signed
 * history holds. Properties over seeded random values, well-formed and not:
 *   - canonical JSON always takes what it returns (the report is never refused for it);
 *   - it is idempotent, and well-formed data comes back as the very same value;
 *   - a lone surrogate becomes U+FFFD where it stood, and nothing else of a string changes;
 *   - `__proto__` stays an own member, never the prototype.
 */
import { describe, expect, it } from "vitest";
import { canonicalize, recordable } from "../../worker/portable/engine/index.js";
import { prng } from "../helpers/prng.js";

const LONE = ["\ud83d", "\ude00", "\udbff", "\udc00"];

function value(rnd: () => number, depth: number, hostile: boolean): unknown {
  const r = rnd();
  const str = () => {
    let s = ["ana", "é", "😀", "", "x y", "__proto__", "constructor"][Math.floor(rnd() * 7)]!;
    if (hostile && rnd() < 0.3) s = s.slice(0, 1) + LONE[Math.floor(rnd() * LONE.length)] + s.slice(1);
    return s;
  };
  if (depth > 6 || r < 0.35) {
    const k = rnd();
    if (k < 0.4) return str();
    if (k < 0.7) return hostile && rnd() < 0.15 ? [Infinity, -Infinity, NaN][Math.floor(rnd() * 3)] : Math.floor(rnd() * 1e6) / 100;
    if (k < 0.85) return rnd() < 0.5;
    return hostile && rnd() < 0.2 ? (rnd() < 0.5 ? undefined : new Date(0)) : null;
  }
  if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(rnd, depth + 1, hostile));
  const o: Record<string, unknown> = {};
  for (let i = 0, n = Math.floor(rnd() * 4); i < n; i++) Object.defineProperty(o, str(), { value: value(rnd, depth + 1, hostile), enumerable: true, writable: true, configurable: true });
  return o;
}

const nested = (n: number): unknown => {
  let v: unknown = "leaf";
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};

describe("recordable", () => {
  it("hands back well-formed data as the same value (500 seeded values)", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const v = value(prng(seed), 0, false);
      expect(recordable(v), `seed ${seed}`).toBe(v);
    }
  });

  it("makes anything canonical JSON takes, idempotently (2,000 seeded hostile values)", () => {
    let changed = 0;
    for (let seed = 1; seed <= 2000; seed++) {
      const v = value(prng(seed), 0, true);
      const r = recordable(v);
      if (r !== v) changed++;
      if (r === undefined) continue; // a lone Infinity or undefined: nothing to keep
      expect(() => canonicalize(r), `seed ${seed}`).not.toThrow();
      expect(recordable(r), `seed ${seed}`).toBe(r);
      expect(canonicalize(recordable(structuredCloneSafe(r))), `seed ${seed}`).toBe(canonicalize(r));
    }
    // most of them held something to repair: the property is not about well-formed values only
    expect(changed).toBeGreaterThan(600);
  });

  it("replaces each lone surrogate with U+FFFD where it stood, in strings and keys", () => {
    expect(recordable("cut \ud83d")).toBe("cut \ufffd");
    expect(recordable("\ude00 and 😀 and \ud83d\ud83d")).toBe("\ufffd and 😀 and \ufffd\ufffd");
    expect(recordable({ "k\udc00": "v" })).toEqual({ "k\ufffd": "v" });
    expect(recordable(["😀", "a\ud800b"])).toEqual(["😀", "a\ufffdb"]);
  });

  it("leaves out numbers JSON cannot carry and what is not data: dropped from a map, null in a list", () => {
    expect(recordable({ a: 1, b: Infinity, c: NaN, d: undefined, e: new Date(0), f: "x" })).toEqual({ a: 1, f: "x" });
    expect(recordable([1, -Infinity, 3])).toEqual([1, null, 3]);
    // eslint-disable-next-line no-sparse-arrays
    expect(recordable([1, , 3])).toEqual([1, null, 3]);
    expect(recordable(Infinity)).toBeUndefined();
  });

  it("keeps what canonical JSON keeps of deep nesting, and no more", () => {
    // the root is at depth 0: nested(256)'s innermost map is at depth 255 and kept, nested(257)'s at 256 and left out
    const v = nested(256);
    expect(() => canonicalize(v)).not.toThrow();
    expect(recordable(v)).toBe(v);
    const w = nested(257);
    expect(() => canonicalize(w)).toThrow(/nests deeper than 256/);
    expect(canonicalize(recordable(w))).toBe('{"a":'.repeat(255) + "{}" + "}".repeat(255));
    const cut = recordable({ account: "A1", thread: nested(400) }) as Record<string, unknown>;
    expect(cut.account).toBe("A1");
    expect(() => canonicalize(cut)).not.toThrow();
    expect(() => canonicalize({ account: "A1", thread: nested(400) })).toThrow(/nests deeper than 256/);
  });

  it("keeps `__proto__` an own member, and the copy's prototype Object's", () => {
    const v = JSON.parse('{"__proto__":{"polluted":true},"s":"\\ud800"}') as Record<string, unknown>;
    const r = recordable(v) as Record<string, unknown>;
    expect(Object.getPrototypeOf(r)).toBe(Object.prototype);
    expect(Object.hasOwn(r, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(canonicalize(r)).toBe('{"__proto__":{"polluted":true},"s":"\ufffd"}');
  });
});

/** A copy through JSON text, as a report over HTTP would carry it (JSON.stringify escapes a lone surrogate). */
function structuredCloneSafe(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v)) as unknown;
}
