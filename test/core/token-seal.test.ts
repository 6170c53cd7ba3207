/**
 * sealToken writes plain claims as bytes behind the MAC's domain (tokens/confirmation.ts): the token
 * must be exactly `st1.<base64url(claimsJson)>.<base64url(mac(domain ‖ body))>` — the form it had
 * before, which openToken reads — for any claims, with a MAC over text or over bytes (escapes, unicode, lone surrogates, odd numbers).
 */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { claimsJson, openToken, sealToken, sealedClaims } from "../../worker/portable/engine/tokens/confirmation.js";
import { tokenClaims } from "../../worker/portable/engine/approvals/build.js";
import { prng } from "../helpers/prng.js";

const key = Buffer.alloc(32, 3);
const mac = (text: string) => new Uint8Array(createHmac("sha256", key).update(text, "utf8").digest());
const macBytes = (data: Uint8Array) => new Uint8Array(createHmac("sha256", key).update(data).digest());
const b64 = (b: Uint8Array | Buffer) => Buffer.from(b).toString("base64url");
const NAMES = ["refund_card", "get-order", "a.b", "São", "x\"y", "back\\slash", "tab\t", "😀", "", "\ud800", "\u007f", "~"];
const NUMBERS = [0, -0, 7, 1764683825123, -1, 2 ** 53 - 1, 2 ** 53, 1e21, 0.5, NaN, Infinity];

describe("sealToken", () => {
  it("gives the token's one form for random claims, and openToken reads it back", () => {
    const r = prng(21);
    const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
    const hex = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join("");
    for (let i = 0; i < 3000; i++) {
      const claims = {
        tool: pick(NAMES) + (r() < 0.5 ? "" : pick(NAMES)), agent: r() < 0.3 ? null : pick(NAMES), digest: r() < 0.9 ? hex(64) : pick(NAMES),
        session: r() < 0.9 ? hex(32) : pick(NAMES), ask: r() < 0.8 ? Math.floor(r() * 5000) : pick(NUMBERS), exp: r() < 0.7 ? 1.7e12 + Math.floor(r() * 1e9) : pick(NUMBERS),
      };
      const body = b64(Buffer.from(claimsJson(claims), "utf8"));
      const want = `st1.${body}.${b64(mac("stalwart-token-v1." + body))}`;
      const got = sealToken(mac, claims);
      expect(got, JSON.stringify(claims)).toBe(want);
      // the path a session takes (a MAC over bytes: the token built as bytes, repeated parts kept)
      expect(sealToken(mac, claims, macBytes), JSON.stringify(claims)).toBe(want);
      const plain = /^[\x20-\x7e]*$/;
      if ([claims.tool, claims.agent ?? "", claims.digest, claims.session].every((s) => plain.test(s)) && Number.isSafeInteger(claims.ask) && Number.isSafeInteger(claims.exp)) {
        expect(openToken(mac, got)).toEqual({ ...claims, exp: claims.exp === 0 ? 0 : claims.exp, ask: claims.ask === 0 ? 0 : claims.ask });
      }
    }
  });

  it("the claims kept for the token sealed last are what decoding that token gives, and name no other token", () => {
    const r = prng(22);
    const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
    const other = sealToken(mac, { tool: "t", agent: null, digest: "d", session: "s", ask: 1, exp: 2 });
    for (let i = 0; i < 2000; i++) {
      const claims = { tool: pick(NAMES), agent: r() < 0.3 ? null : pick(NAMES), digest: pick(NAMES), session: pick(NAMES), ask: pick(NUMBERS), exp: pick(NUMBERS) };
      const token = sealToken(mac, claims, r() < 0.5 ? macBytes : undefined);
      const kept = tokenClaims(token);
      expect(sealedClaims(other)).toBeNull();
      // decoded: after another token was sealed, nothing is kept for this one
      sealToken(mac, { ...claims, tool: claims.tool + "2" });
      expect(sealedClaims(token)).toBeNull();
      const decoded = tokenClaims(token);
      expect(kept, JSON.stringify(claims)).toEqual(decoded);
      if (kept) expect(Object.is(kept.ask, decoded!.ask) && Object.is(kept.exp, decoded!.exp)).toBe(true);
    }
  });

  it("keeps the form when claims repeat a part of the last token's (session, tool, digest) and change another", () => {
    const base = { tool: "refund_card", agent: null, digest: "a".repeat(64), session: "b".repeat(32), ask: 3, exp: 1764683825123 };
    const seq = [
      base, { ...base, ask: 4 }, { ...base, tool: "get_order" }, { ...base, session: "c".repeat(32) }, { ...base, digest: "d".repeat(64) },
      { ...base, digest: "x\"y" }, base, { ...base, tool: "São" }, { ...base, session: "😀" }, base, { ...base, agent: "bot", tool: "" }, base,
    ];
    for (const claims of seq) {
      const body = b64(Buffer.from(claimsJson(claims), "utf8"));
      expect(sealToken(mac, claims, macBytes), JSON.stringify(claims)).toBe(`st1.${body}.${b64(mac("stalwart-token-v1." + body))}`);
    }
  });
});
