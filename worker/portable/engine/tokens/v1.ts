/**
 * The first token form, `st1.<base64url(claims JSON)>.<base64url(mac(domain ‖ body))>`: what this
 * runtime sealed before `st2` (confirmation.ts). Tokens of this form still open, so a call asked
 * before an upgrade can still be approved, and a receipt still finds the ask it decides by that
 * token's id. New tokens are `st1` only when their claims have no exact `st2` body (claims-bytes.ts).
 */
import { fromBase64Url, fromUtf8, textToBase64Url, toBase64Url } from "../canonical/bytes.js";
import type { TokenClaims } from "../check/types.js";

const DOMAIN = "stalwart-token-v1.";

/** HMAC-SHA256 of bytes under the installation key. */
export type BytesMac = (data: Uint8Array) => Uint8Array;

/** The claims' canonical JSON, keys in sorted order (what an `st1` body encodes). */
export function claimsJson(claims: TokenClaims): string {
  return (
    `{"agent":${claims.agent === null ? "null" : JSON.stringify(claims.agent)},"ask":${claims.ask},"digest":${JSON.stringify(claims.digest)},` +
    `"exp":${JSON.stringify(claims.exp)},"session":${JSON.stringify(claims.session)},"tool":${JSON.stringify(claims.tool)}}`
  );
}

/** The MAC of an `st1` body: over the domain and the body's text (base64url, so ASCII). */
function macOf(mac: BytesMac, body: string): Uint8Array {
  const text = DOMAIN + body;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return mac(bytes);
}

export function sealV1(mac: BytesMac, claims: TokenClaims): string {
  const body = textToBase64Url(claimsJson(claims));
  return `st1.${body}.${toBase64Url(macOf(mac, body))}`;
}

/** The claims of an `st1` token's body and MAC, or null unless the MAC is this key's and the claims are whole. */
export function openV1(mac: BytesMac, body: string, sig: Uint8Array): TokenClaims | null {
  const want = macOf(mac, body);
  let d = sig.length ^ want.length;
  for (let i = 0; i < want.length && i < sig.length; i++) d |= sig[i]! ^ want[i]!;
  return d === 0 ? readV1(body) : null;
}

/** The claims an `st1` body says, unverified (for display and binding; step 10 checks the MAC). */
export function readV1(body: string): TokenClaims | null {
  const raw = fromBase64Url(body);
  if (!raw) return null;
  try {
    const c = JSON.parse(fromUtf8(raw)) as Record<string, unknown>;
    if (typeof c.tool !== "string" || typeof c.digest !== "string" || typeof c.session !== "string") return null;
    if (!Number.isSafeInteger(c.ask) || typeof c.exp !== "number" || (c.agent !== null && typeof c.agent !== "string")) return null;
    return { tool: c.tool, agent: c.agent as string | null, digest: c.digest, session: c.session, ask: c.ask as number, exp: c.exp };
  } catch {
    return null;
  }
}
