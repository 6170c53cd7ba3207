/**
 * history/entry-bytes.ts writes an entry's canonical form as bytes, for the full verification: it
 * must equal the UTF-8 of `entryCanonical` (itself held to RFC 8785 JCS in entry.test.ts) for every
 * entry, throw where it throws, and never write past the room it is given.
 */
import { describe, expect, it } from "vitest";
import reference from "canonicalize";
import { entryCanonical, type Entry } from "../../worker/portable/engine/history/entry.js";
import { writeEntry } from "../../worker/portable/engine/history/entry-bytes.js";
import { compareUtf16, sortKeys } from "../../worker/portable/engine/canonical/jcs.js";
import { prng } from "../helpers/prng.js";

const NAMES = ["refund_card", "get-order", "a.b", "São", "x\"y", "back\\slash", "ü", "tab\t", "nl\n", "\u0000", "\u007f", "😀", "", "untrusted:read_inbox", "0", "__proto__", "\u2028", "\ud800\udc00", "</script>"];
const NUMBERS = [0, -0, 1, 9, 10, 99, 100, 12345678, 99999999, 100000000, 100000001, 1764683825123, 2 ** 53 - 1, 2 ** 53, 2 ** 60, 1e21, 1e-7, 0.5, -1, -1764683825123, 1.7976931348623157e308, 5e-324, 123.456];
const hex = (r: () => number, n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join("");
const enc = new TextEncoder();

/** A random string: the names above, random code units (lone surrogates among them when `lone`), or both. */
function text(r: () => number, lone: boolean): string {
  const pick = NAMES[Math.floor(r() * NAMES.length)]!;
  if (r() < 0.5) return pick;
  let s = "";
  for (let i = Math.floor(r() * 12); i > 0; i--) {
    const k = r();
    let c = k < 0.6 ? 0x20 + Math.floor(r() * 0x5f) : k < 0.8 ? Math.floor(r() * 0x20) : Math.floor(r() * 0x10000);
    if (!lone && c >= 0xd800 && c <= 0xdfff) c = 0x41;
    s += String.fromCharCode(c);
  }
  return r() < 0.5 ? s : pick + s;
}

function entry(r: () => number, i: number, lone: boolean): Entry {
  const num = () => (r() < 0.5 ? NUMBERS[Math.floor(r() * NUMBERS.length)]! : Math.floor(r() * 2e12));
  const idx = () => [0, 7, 10, 99999999, 100000000, 2 ** 53 - 1][Math.floor(r() * 6)]!;
  const base = { v: 1 as const, step: idx(), at: num(), link: hex(r, 64) };
  const s = () => text(r, lone);
  switch (i % 4) {
    case 0:
      return { ...base, kind: "turn", text: s() };
    case 1:
    case 2: {
      const values: Record<string, string> = {};
      for (let j = Math.floor(r() * 4); j > 0; j--) values[s()] = hex(r, 32);
      return {
        ...base, kind: "check", tool: s(), agent: r() < 0.5 ? null : s(), args: hex(r, 64), origins: hex(r, 64),
        labels: Array.from({ length: Math.floor(r() * 3) }, s).sort(), decision: (["allow", "confirm", "refuse"] as const)[i % 3]!,
        reasons: Array.from({ length: Math.floor(r() * 3) }, s), confirmed: r() < 0.5 ? null : idx(), undo_of: r() < 0.5 ? null : idx(), values,
      };
    }
    default:
      return { ...base, kind: "report", of: idx(), outcome: "ran", result: r() < 0.3 ? null : { [s()]: [num(), s(), { z: 1, a: r() }] } };
  }
}

/** What writeEntry gives for `e` with `room` bytes: the bytes, "throws", or "no room". */
function written(e: Entry, room: number): Uint8Array | "throws" | "no room" {
  const u8 = new Uint8Array(room + 16).fill(0xee);
  let end: number;
  try {
    end = writeEntry(e, u8, 8, 8 + room);
  } catch {
    return "throws";
  }
  // nothing before its start or past its room is touched, even when it gives up
  expect(u8.subarray(0, 8).every((b) => b === 0xee)).toBe(true);
  expect(u8.subarray(8 + room).every((b) => b === 0xee)).toBe(true);
  return end < 0 ? "no room" : u8.slice(8, end);
}

describe("writeEntry writes entryCanonical's bytes", () => {
  it("for random entries of every kind (unicode, escapes, numbers at the edges)", () => {
    const r = prng(14);
    for (let i = 0; i < 6000; i++) {
      const e = entry(r, i, false);
      const want = enc.encode(entryCanonical(e));
      const { link: _link, ...rest } = e;
      expect(new TextDecoder().decode(want)).toBe(reference(rest));
      expect(written(e, 1 << 16)).toEqual(want);
    }
  });

  it("throws where entryCanonical throws (a lone surrogate, a number JSON cannot carry)", () => {
    const r = prng(15);
    let threw = 0;
    for (let i = 0; i < 6000; i++) {
      const e = entry(r, i, true);
      if (i % 50 === 0) e.at = [NaN, Infinity, -Infinity][i % 3]!;
      let want: Uint8Array | "throws";
      try {
        want = enc.encode(entryCanonical(e));
      } catch {
        want = "throws";
        threw++;
      }
      expect(written(e, 1 << 16)).toEqual(want);
    }
    expect(threw).toBeGreaterThan(300);
  });

  it("in too little room gives up without writing past it; with enough, the same bytes", () => {
    const r = prng(16);
    for (let i = 0; i < 600; i++) {
      const e = entry(r, i, false);
      const want = enc.encode(entryCanonical(e));
      for (const room of [0, 1, 9, Math.floor(want.length / 2), want.length - 1]) expect(written(e, room)).toBe("no room");
      const enough = written(e, want.length * 3 + 400);
      expect(enough).toEqual(want);
    }
  });

  it("in every room short of an entry's length gives up without writing past it", () => {
    const r = prng(18);
    for (let i = 0; i < 160; i++) {
      const e = entry(r, i, false);
      const want = enc.encode(entryCanonical(e));
      for (let room = 0; room < want.length; room++) expect(written(e, room)).toBe("no room");
    }
  });

  it("writes a digest only when it is lowercase hex, for every UTF-16 code unit in it", () => {
    const r = prng(19);
    const e = entry(r, 1, false) as Entry & { kind: "check" };
    const digest = e.args;
    for (let c = 0; c < 0x10000; c++) {
      const at = c % 64;
      const odd = digest.slice(0, at) + String.fromCharCode(c) + digest.slice(at + 1);
      const hex = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);
      const field = (["args", "origins", "values"] as const)[c % 3]!;
      const edited = field === "values" ? { ...e, values: { k: odd.slice(0, 32) } } : { ...e, [field]: odd };
      if (field === "values" && at >= 32) continue;
      const got = written(edited, 1 << 12);
      if (hex) expect(got).toEqual(enc.encode(entryCanonical(edited)));
      else expect(got).toBe("throws");
    }
  });
});

describe("sortKeys orders keys as Array.prototype.sort(compareUtf16) does", () => {
  it("for random key sets of 0 to 40 keys (insertion below 17, the built-in above)", () => {
    const r = prng(17);
    for (let i = 0; i < 3000; i++) {
      const keys = [...new Set(Array.from({ length: Math.floor(r() * 41) }, () => text(r, true)))];
      expect(sortKeys([...keys])).toEqual([...keys].sort(compareUtf16));
    }
  });
});
