/** RFC 8785 canonical JSON against the reference implementation (canonicalize, by the RFC's author). */
import { describe, expect, it } from "vitest";
import reference from "canonicalize";
import { canonicalize } from "../../worker/portable/engine/canonical/jcs.js";
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

  it("handles a 1 MB string", () => {
    const s = "x".repeat(1 << 20);
    expect(canonicalize({ s })).toBe(reference({ s }));
  });
});
