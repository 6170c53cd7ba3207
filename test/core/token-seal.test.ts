/**
 * Confirmation tokens (tokens/confirmation.ts): a token is exactly
 * `st2.<base64url(body)>.<base64url(hmac(domain ‖ body))>`, the body written here again from the
 * layout claims-bytes.ts documents, for any claims; claims no body says exactly take the `st1`
 * form (the JSON claims' base64, MAC'd as text), and tokens of that earlier form still open.
 * One claims, one token: a body read back is the body written, and no other body opens.
 */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { claimsJson, openToken, readClaims, sealToken, sealedClaims, tokenV1Of } from "../../worker/portable/engine/tokens/confirmation.js";
import { claimsBody, readBody } from "../../worker/portable/engine/tokens/claims-bytes.js";
import { tokenClaims } from "../../worker/portable/engine/approvals/build.js";
import type { TokenClaims } from "../../worker/portable/engine/check/types.js";
import { prng } from "../helpers/prng.js";

const key = Buffer.alloc(32, 3);
const hmac = (data: Uint8Array | string) => new Uint8Array(createHmac("sha256", key).update(data).digest());
const macBytes = (data: Uint8Array) => hmac(data);
const other = (data: Uint8Array) => new Uint8Array(createHmac("sha256", Buffer.alloc(32, 4)).update(data).digest());
const b64 = (b: Uint8Array | Buffer) => Buffer.from(b).toString("base64url");
const NAMES = ["refund_card", "get-order", "a.b", "São", "x\"y", "back\\slash", "tab\t", "😀", "", "\ud800", "\udc00x", "\u007f", "~", "\ufeffbom", "ABCDEF", "abcdef", "0"];
const NUMBERS = [0, -0, 7, 1764683825123, -1, 2 ** 53 - 1, 2 ** 53, 1e21, 0.5, -1.5e300, NaN, Infinity, -Infinity];

/** The body by the documented layout, or null when the claims have none (then the token is `st1`). */
function referenceBody(c: TokenClaims): Buffer | null {
  const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
  if (!Number.isSafeInteger(c.ask) || !Number.isFinite(c.exp)) return null;
  if (![c.tool, c.digest, c.session, c.agent ?? ""].every(wellFormed)) return null;
  const str = (s: string) => {
    const u = Buffer.from(s, "utf8");
    const n = Buffer.alloc(4);
    n.writeUInt32BE(u.length);
    return Buffer.concat([n, u]);
  };
  const nums = Buffer.alloc(16);
  nums.writeDoubleBE(c.ask + 0, 0);
  nums.writeDoubleBE(c.exp + 0, 8);
  const digestPacked = /^[0-9a-f]{64}$/.test(c.digest);
  const sessionPacked = /^(?:[0-9a-f]{2}){1,255}$/.test(c.session);
  const flags = (c.agent !== null ? 1 : 0) | (digestPacked ? 2 : 0) | (sessionPacked ? 4 : 0);
  return Buffer.concat([
    Buffer.from([flags]), nums,
    digestPacked ? Buffer.from(c.digest, "hex") : str(c.digest),
    sessionPacked ? Buffer.concat([Buffer.from([c.session.length / 2]), Buffer.from(c.session, "hex")]) : str(c.session),
    str(c.tool), c.agent !== null ? str(c.agent) : Buffer.alloc(0),
  ]);
}

function referenceToken(c: TokenClaims): string {
  const body = referenceBody(c);
  if (body) return `st2.${b64(body)}.${b64(hmac(Buffer.concat([Buffer.from("stalwart-token-v2."), body])))}`;
  const v1 = b64(Buffer.from(claimsJson(c), "utf8"));
  return `st1.${v1}.${b64(hmac("stalwart-token-v1." + v1))}`;
}

function randomClaims(r: () => number): TokenClaims {
  const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join("");
  return {
    tool: pick(NAMES) + (r() < 0.5 ? "" : pick(NAMES)), agent: r() < 0.3 ? null : pick(NAMES), digest: r() < 0.8 ? hex(64) : r() < 0.5 ? hex(62) : pick(NAMES),
    session: r() < 0.8 ? hex(32) : r() < 0.5 ? hex(1 + Math.floor(r() * 40)) : pick(NAMES), ask: r() < 0.8 ? Math.floor(r() * 5000) : pick(NUMBERS), exp: r() < 0.7 ? 1.7e12 + Math.floor(r() * 1e9) : pick(NUMBERS),
  };
}

describe("sealToken", () => {
  it("gives the token's one form for random claims, and openToken reads exactly those claims back", () => {
    const r = prng(21);
    let v2 = 0;
    for (let i = 0; i < 4000; i++) {
      const claims = randomClaims(r);
      const want = referenceToken(claims);
      const got = sealToken(macBytes, claims);
      expect(got, JSON.stringify(claims)).toBe(want);
      if (!got.startsWith("st2.")) continue;
      v2++;
      expect(openToken(macBytes, got), JSON.stringify(claims)).toEqual({ ...claims, ask: claims.ask + 0, exp: claims.exp + 0 });
      expect(readClaims(got)).toEqual(openToken(macBytes, got));
      // another key's MAC, a changed body byte, a changed MAC: none opens
      expect(openToken(other, got)).toBeNull();
      const [, body, sig] = got.split(".");
      const flipped = Buffer.from(body!, "base64url");
      const at = Math.floor(r() * flipped.length);
      flipped[at] = flipped[at]! ^ (1 << Math.floor(r() * 8));
      expect(openToken(macBytes, `st2.${b64(flipped)}.${sig}`)).toBeNull();
      expect(openToken(macBytes, `st2.${body}.${b64(hmac("x"))}`)).toBeNull();
    }
    expect(v2).toBeGreaterThan(2000);
  });

  it("is about 150 characters for a usual call, and its MAC reads two SHA-256 blocks' worth", () => {
    const claims = { tool: "refund_card", agent: null, digest: "a".repeat(64), session: "b".repeat(32), ask: 3, exp: 1764683825123 };
    const token = sealToken(macBytes, claims);
    expect(token.length).toBeLessThan(160);
    // domain (18) + body + SHA-256 padding (9) fits in 128 bytes
    expect(18 + claimsBody(claims)!.length + 9).toBeLessThanOrEqual(128);
  });

  it("still opens tokens of the st1 form, which tokenV1Of makes as they were made", () => {
    const r = prng(23);
    for (let i = 0; i < 500; i++) {
      const claims = randomClaims(r);
      const v1 = b64(Buffer.from(claimsJson(claims), "utf8"));
      const token = `st1.${v1}.${b64(hmac("stalwart-token-v1." + v1))}`;
      expect(tokenV1Of(macBytes, claims)).toBe(token);
      // (an ask of NaN or Infinity wrote JSON that does not parse: such a token never opened)
      let parsed: Record<string, unknown> | null = null;
      try {
        parsed = JSON.parse(claimsJson(claims)) as Record<string, unknown>;
      } catch {}
      const whole = parsed !== null && Number.isSafeInteger(parsed.ask) && typeof parsed.exp === "number";
      expect(openToken(macBytes, token), JSON.stringify(claims)).toEqual(whole ? parsed : null);
      expect(readClaims(token)).toEqual(whole ? parsed : null);
      expect(openToken(other, token)).toBeNull();
    }
  });

  it("keeps the form when claims repeat a part of the last token's (session, tool, agent, digest) and change another", () => {
    const base = { tool: "refund_card", agent: null, digest: "a".repeat(64), session: "b".repeat(32), ask: 3, exp: 1764683825123 };
    const seq: TokenClaims[] = [
      base, { ...base, ask: 4 }, { ...base, tool: "get_order" }, { ...base, session: "c".repeat(32) }, { ...base, digest: "d".repeat(64) },
      { ...base, digest: "x\"y" }, base, { ...base, tool: "São" }, { ...base, session: "😀" }, base, { ...base, agent: "bot", tool: "" }, base,
      { ...base, agent: "bot" }, { ...base, agent: "bot", digest: "A".repeat(64) }, { ...base, session: "B".repeat(32) }, { ...base, session: "\ud800" }, base,
      { ...base, session: "ab" }, { ...base, session: "abc" }, { ...base, session: "ab".repeat(256) }, { ...base, session: "ab".repeat(255) }, base,
    ];
    for (const claims of seq) expect(sealToken(macBytes, claims), JSON.stringify(claims)).toBe(referenceToken(claims));
  });

  it("opens no body but the one the claims have (one spelling), whatever its MAC", () => {
    const c = { tool: "refund_card", agent: "bot", digest: "0".repeat(64), session: "ab".repeat(16), ask: 3, exp: 1764683825123 };
    const body = Buffer.from(claimsBody(c)!);
    const seal = (b: Buffer) => `st2.${b64(b)}.${b64(hmac(Buffer.concat([Buffer.from("stalwart-token-v2."), b])))}`;
    expect(openToken(macBytes, seal(body))).toEqual(c);
    const str = (s: string) => Buffer.concat([Buffer.from([0, 0, 0, s.length]), Buffer.from(s)]);
    const nums = body.subarray(1, 17);
    const tail = body.subarray(17 + 32 + 17);
    const variants: Record<string, Buffer> = {
      "a byte more": Buffer.concat([body, Buffer.from([0])]),
      "a byte less": body.subarray(0, body.length - 1),
      "an unknown flag": Buffer.concat([Buffer.from([body[0]! | 8]), body.subarray(1)]),
      "the digest unpacked": Buffer.concat([Buffer.from([body[0]! & ~2]), nums, str(c.digest), body.subarray(17 + 32)]),
      "the session unpacked": Buffer.concat([Buffer.from([body[0]! & ~4]), nums, body.subarray(17, 17 + 32), str(c.session), tail]),
      "a packed session of length 0": Buffer.concat([body.subarray(0, 17 + 32), Buffer.from([0]), tail]),
      "-0 for the ask": Buffer.concat([body.subarray(0, 1), Buffer.from([0x80, 0, 0, 0, 0, 0, 0, 0]), body.subarray(9)]),
    };
    for (const [what, b] of Object.entries(variants)) expect(openToken(macBytes, seal(b)), what).toBeNull();
  });

  it("reads random bodies back only as the bodies their claims write (a property over random bytes)", () => {
    const r = prng(24);
    let read = 0;
    const good = claimsBody({ tool: "t", agent: "a", digest: "d", session: "s", ask: 1, exp: 2 })!;
    for (let i = 0; i < 20000; i++) {
      const b = Buffer.from(good);
      // mutate a few bytes, or truncate, or extend
      for (let k = 0; k < 1 + Math.floor(r() * 3); k++) b[Math.floor(r() * b.length)] = Math.floor(r() * 256);
      const cut = r() < 0.2 ? b.subarray(0, Math.floor(r() * b.length)) : b;
      const c = readBody(cut);
      if (!c) continue;
      read++;
      expect(Buffer.from(claimsBody(c)!).equals(cut)).toBe(true);
    }
    expect(read).toBeGreaterThan(0);
  });

  it("the claims kept for the token sealed last are what decoding that token gives, and name no other token", () => {
    const r = prng(22);
    const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
    const first = sealToken(macBytes, { tool: "t", agent: null, digest: "d", session: "s", ask: 1, exp: 2 });
    for (let i = 0; i < 2000; i++) {
      const claims = { tool: pick(NAMES), agent: r() < 0.3 ? null : pick(NAMES), digest: pick(NAMES), session: pick(NAMES), ask: pick(NUMBERS), exp: pick(NUMBERS) };
      const token = sealToken(macBytes, claims);
      const kept = tokenClaims(token);
      expect(sealedClaims(first)).toBeNull();
      // decoded: after another token was sealed, nothing is kept for this one
      sealToken(macBytes, { ...claims, tool: claims.tool + "2" });
      expect(sealedClaims(token)).toBeNull();
      const decoded = tokenClaims(token);
      expect(kept, JSON.stringify(claims)).toEqual(decoded);
      if (kept) expect(Object.is(kept.ask, decoded!.ask) && Object.is(kept.exp, decoded!.exp)).toBe(true);
    }
  });
});
