/**
 * base64url (canonical/bytes.ts), both ways.
 * - `fromBase64Url` reads exactly what `toBase64Url` writes and nothing else — no padding, no other
 *   character, no set bit after the last byte — held to node's decoder and to the encoder, for every
 *   length around the 3-byte groups and for edits of each kind (the MACs, seals and tokens the
 *   engine reads are compared through it).
 * - The writer, byte at a time and four characters a store (with a DataView over the output):
 *   the same characters as Node's encoder for every length and offset.
 */
import { describe, expect, it } from "vitest";
import { base64UrlInto, fromBase64Url, toBase64Url } from "../../worker/portable/engine/canonical/bytes.js";
import { prng } from "../helpers/prng.js";

const canonical = (s: string): Uint8Array | null => {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) return null;
  const b = new Uint8Array(Buffer.from(s, "base64url"));
  return Buffer.from(b).toString("base64url") === s ? b : null;
};
const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString("hex"));

describe("fromBase64Url", () => {
  it("reads back what toBase64Url wrote, every length 0–70", () => {
    let x = 11;
    for (let n = 0; n <= 70; n++) {
      const bytes = new Uint8Array(n).map(() => (x = (x * 1103515245 + 12345) & 0xff));
      expect(hex(fromBase64Url(toBase64Url(bytes)))).toBe(hex(bytes));
    }
  });

  it("refuses padding, other characters, a lone last character and set trailing bits", () => {
    for (const s of ["AA==", "AAA=", "A", "AAAAA", "AA+A", "AA/A", "AA A", "AA.A", "AAé", "AB", "AAB", "_x", "__9"]) {
      expect(fromBase64Url(s), s).toBeNull();
      expect(canonical(s), s).toBeNull();
    }
    for (const v of [undefined, null, 3, {}]) expect(fromBase64Url(v)).toBeNull();
    expect(hex(fromBase64Url(""))).toBe("");
  });

  it("agrees with node's decoder on edited strings", () => {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/= .\u0000é\u0100";
    let x = 5;
    const next = () => (x = (x * 1103515245 + 12345) % 2147483648);
    for (let k = 0; k < 5000; k++) {
      const bytes = new Uint8Array(k % 37).map(() => next() & 0xff);
      let s = toBase64Url(bytes);
      if (s.length > 0 && k % 2 === 1) {
        const at = next() % s.length;
        s = s.slice(0, at) + alphabet[next() % alphabet.length] + s.slice(at + 1);
      }
      if (k % 5 === 0) s += alphabet[next() % 64];
      expect(hex(fromBase64Url(s)), s).toBe(hex(canonical(s)));
    }
  });
});

describe("base64UrlInto", () => {
  it("writes Buffer's base64url with and without a view, at any offset, for lengths 0 to 300", () => {
    const r = prng(64);
    const out = new Uint8Array(512);
    const view = new DataView(out.buffer);
    for (let n = 0; n <= 300; n++) {
      const b = Uint8Array.from({ length: n + 3 }, () => Math.floor(r() * 256));
      const want = Buffer.from(b.subarray(0, n)).toString("base64url");
      for (const at of [0, 1, 18, 19]) {
        for (const v of [undefined, view]) {
          out.fill(0);
          const end = base64UrlInto(b, n, out, at, v);
          expect(end - at).toBe(want.length);
          expect(Buffer.from(out.subarray(at, end)).toString("latin1")).toBe(want);
          expect(out[end]).toBe(0);
        }
      }
      expect(toBase64Url(b.subarray(0, n))).toBe(want);
    }
  });
});
