/** RFC 8785 canonical JSON against the reference implementation (canonicalize, by the RFC's author). */
import { describe, expect, it } from "vitest";
import reference from "canonicalize";
import { canonicalize, canonicalizeAt, checkJsonAt } from "../../worker/portable/engine/canonical/jcs.js";
import { InputError } from "../../worker/portable/engine/errors.js";
import { prng as rng } from "../helpers/prng.js";


const NUMBERS = [0, -0, 1, -1, 1e21, 1e-7, 1e20, 123456789012345680000, 0.1, 0.2 + 0.1, 5e-324, 1.7976931348623157e308, -1e-7, 4.5, 40.0, 1234.56, 2 ** 53, -(2 ** 53) - 2];
const STRINGS = ["", "a", "é", "São Paulo", "\u0000\u001f", "\"\\/", "\u2028\u2029", "😀", "\uD83D\uDE00x", "日本語", "\u007f", "tab\there", "line\nbreak", "€", "\uFFFF"];

function gen(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * (depth > 4 ? 4 : 7));
  switch (k) {
    case 0: return NUMBERS[Math.floor(r() * NUMBERS.length)];
    case 1: return STRINGS[Math.floor(r() * STRINGS.length)]! + String.fromCharCode(Math.floor(r() * 0xd7ff));
    case 2: return r() < 0.5;
    case 3: return (r() - 0.5) * 10 ** Math.floor(r() * 40 - 20);
    case 4: return null;
    case 5: return Array.from({ length: Math.floor(r() * 5) }, () => gen(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 6); i > 0; i--) o[STRINGS[Math.floor(r() * STRINGS.length)]! + String.fromCharCode(0x20 + Math.floor(r() * 0x3000))] = gen(r, depth + 1);
      return o;
    }
  }
}

describe("JCS canonical JSON", () => {
  it("matches RFC 8785's examples", () => {
    expect(canonicalize({ b: 2, a: 1 })).toBe('{"a":1,"b":2}');
    expect(canonicalize([1e21, 1e-7, -0, 4.5, 0.1])).toBe("[1e+21,1e-7,0,4.5,0.1]");
    // RFC 8785 §3.2.3: sort by UTF-16 code units ("\u20ac" sorts after "\ud83d\ude00"? no: by units)
    expect(canonicalize({ "\u20ac": 1, "\r": 2, "\ud83d\ude00": 3, "1": 4, "\u00f6": 5 })).toBe(reference({ "\u20ac": 1, "\r": 2, "\ud83d\ude00": 3, "1": 4, "\u00f6": 5 }));
  });

  it("agrees with the reference implementation on 5,000 generated values", () => {
    const r = rng(8785);
    for (let i = 0; i < 5000; i++) {
      const v = { args: gen(r, 0) };
      expect(canonicalize(v)).toBe(reference(v));
    }
  });

  it("refuses what is not JSON data, naming the pointer", () => {
    const bad: [unknown, string][] = [
      [{ a: undefined }, "/a"],
      [{ a: NaN }, "/a"],
      [{ a: [1, Infinity] }, "/a/1"],
      [{ a: 1n }, "/a"],
      [{ a: () => 1 }, "/a"],
      [{ a: new Date() }, "/a"],
      [{ a: new Map() }, "/a"],
      [{ "x/y": { "~": "\uD800" } }, "/x~1y/~0"],
    ];
    for (const [value, pointer] of bad) {
      let err: unknown;
      try {
        canonicalize(value);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as InputError).pointer).toBe(pointer);
    }
  });

  it("refuses cycles and 10k-deep nesting without a stack overflow", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalize(cyclic)).toThrow(InputError);
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(() => canonicalize(deep)).toThrow(InputError);
  });

  it("checkJsonAt refuses exactly what canonicalizeAt refuses, with the same message and pointer (6,000 generated values, faults planted)", () => {
    const r = rng(4627);
    const faults: (() => unknown)[] = [() => undefined, () => NaN, () => -Infinity, () => 1n, () => () => 1, () => new Date(0), () => new Map(), () => "a\uD800b", () => "\uDC00", () => Symbol("s")];
    /** `gen`, with a fault planted in some values (a value, or a key with a lone surrogate) */
    const planted = (depth: number): unknown => {
      const v = gen(r, depth);
      if (r() < 0.08) return faults[Math.floor(r() * faults.length)]!();
      if (v !== null && typeof v === "object" && !Array.isArray(v) && r() < 0.1) (v as Record<string, unknown>)[`k\uDBFF${Math.floor(r() * 9)}`] = 1;
      if (Array.isArray(v) && v.length > 0) for (let i = 0; i < v.length; i++) if (r() < 0.2) v[i] = planted(depth + 1);
      if (v !== null && typeof v === "object" && !Array.isArray(v)) for (const k of Object.keys(v)) if (r() < 0.2) (v as Record<string, unknown>)[k] = planted(depth + 1);
      return v;
    };
    const outcome = (f: () => unknown) => {
      try {
        f();
        return "ok";
      } catch (e) {
        expect(e).toBeInstanceOf(InputError);
        return `${(e as InputError).pointer} ${(e as Error).message}`;
      }
    };
    let refused = 0;
    for (let i = 0; i < 6000; i++) {
      const v = { a: planted(0), b: planted(0), z: [planted(1), planted(1)] };
      const canonical = outcome(() => canonicalizeAt(v, "result"));
      expect(outcome(() => checkJsonAt(v, "result"))).toBe(canonical);
      if (canonical !== "ok") refused++;
    }
    // both outcomes were tried many times
    expect(refused).toBeGreaterThan(1000);
    expect(refused).toBeLessThan(5000);
    // holes, depth and a cycle, as the canonical walk names them
    let deep: unknown = 1;
    for (let i = 0; i < 300; i++) deep = { d: deep };
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    // eslint-disable-next-line no-sparse-arrays
    for (const v of [[1, , 3], deep, cyclic, { b: [1, 2], a: { y: NaN, x: undefined } }]) expect(outcome(() => checkJsonAt(v, "r"))).toBe(outcome(() => canonicalizeAt(v, "r")));
  });

  it("handles a 1 MB string", () => {
    const s = "x".repeat(1 << 20);
    expect(canonicalize({ s })).toBe(reference({ s }));
  });
});
