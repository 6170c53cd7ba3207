/**
 * canonical/bytes.ts's base64url writer, byte at a time and four characters a store (with a
 * DataView over the output): the same characters as Node's encoder for every length and offset.
 */
import { describe, expect, it } from "vitest";
import { base64UrlInto, toBase64Url } from "../../worker/portable/engine/canonical/bytes.js";
import { prng } from "../helpers/prng.js";

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
