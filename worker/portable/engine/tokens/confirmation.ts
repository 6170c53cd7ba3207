/**
 * Confirmation tokens (checks.md, "Confirmation tokens"): `st1.<claims>.<mac>`, base64url, the
 * MAC an HMAC-SHA256 under the installation key with its own domain prefix, so a token can never
 * be mistaken for a history link. Single use and the ask entry are enforced against the verified
 * history at step 10, which keeps the runtime stateless.
 */
import { equalBytes, fromBase64Url, fromUtf8, textToBase64Url, toBase64Url } from "../canonical/bytes.js";
import type { TokenClaims } from "../check/types.js";

const DOMAIN = "stalwart-token-v1.";

/** HMAC-SHA256 of a string's UTF-8 bytes under the installation key. */
export type Mac = (text: string) => Uint8Array;

export function claimsJson(claims: TokenClaims): string {
  return (
    `{"agent":${claims.agent === null ? "null" : JSON.stringify(claims.agent)},"ask":${claims.ask},"digest":${JSON.stringify(claims.digest)},` +
    `"exp":${JSON.stringify(claims.exp)},"session":${JSON.stringify(claims.session)},"tool":${JSON.stringify(claims.tool)}}`
  );
}

export function sealToken(mac: Mac, claims: TokenClaims): string {
  // The claims' canonical JSON, keys in sorted order, written directly (this runs on every confirm).
  const body = textToBase64Url(claimsJson(claims));
  return `st1.${body}.${toBase64Url(mac(DOMAIN + body))}`;
}

export function openToken(mac: Mac, token: unknown): TokenClaims | null {
  if (typeof token !== "string" || token.length > 4096) return null;
  const parts = token.split(".");
  if (parts.length !== 3 || parts[0] !== "st1") return null;
  const sig = fromBase64Url(parts[2]!);
  if (!sig || !equalBytes(sig, mac(DOMAIN + parts[1]!))) return null;
  const raw = fromBase64Url(parts[1]!);
  if (!raw) return null;
  try {
    const c = JSON.parse(fromUtf8(raw)) as TokenClaims;
    if (typeof c.tool !== "string" || typeof c.digest !== "string" || typeof c.session !== "string") return null;
    if (!Number.isSafeInteger(c.ask) || typeof c.exp !== "number" || (c.agent !== null && typeof c.agent !== "string")) return null;
    return c;
  } catch {
    return null;
  }
}
