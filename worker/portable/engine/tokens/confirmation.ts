/**
 * Confirmation tokens (checks.md, "Confirmation tokens"): `st2.<body>.<mac>`, base64url. The body
 * is the claims as compact bytes (claims-bytes.ts); the MAC is HMAC-SHA256 under the installation
 * key over the token's own domain and the body, so a token can never be mistaken for a history
 * link. Single use and the ask entry are enforced against the verified history at step 10, which
 * keeps the runtime stateless. Tokens of the earlier `st1` form still open (v1.ts).
 */
import { base64UrlInto, equalBytes, fromBase64Url } from "../canonical/bytes.js";
import type { TokenClaims } from "../check/types.js";
import { claimsBody, readBody } from "./claims-bytes.js";
import { openV1, readV1, sealV1, type BytesMac } from "./v1.js";

export type { BytesMac } from "./v1.js";
export { claimsJson } from "./v1.js";

const DOMAIN = "stalwart-token-v2.";
const codes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const DOMAIN_CODES = codes(DOMAIN);
const ST2_CODES = codes("st2.");

/** The MAC's input: the domain, then the body written after it (grown as needed). */
let macBuf = new Uint8Array(512);
macBuf.set(DOMAIN_CODES);
/** The token's text as ASCII codes, decoded once. */
let tokenBuf = new Uint8Array(512);
let tokenView = new DataView(tokenBuf.buffer);
tokenBuf.set(ST2_CODES);
const ascii = new TextDecoder();

export function sealToken(mac: BytesMac, claims: TokenClaims): string {
  const token = sealed(mac, claims);
  // kept as handed in, no copy on this path (every confirm): the check hands a fresh object it
  // does not keep, and sealedClaims reads it only for this exact token
  lastToken = token;
  lastClaims = claims;
  return token;
}

/**
 * The token these claims seal to, as `sealToken` makes it, without becoming the token sealed last:
 * a receipt names its ask by the id of the token that ask had (approvals/history.ts).
 */
export function tokenOf(mac: BytesMac, claims: TokenClaims): string {
  return sealed(mac, claims);
}

/** The `st1` token these claims had before `st2` (a receipt may name its ask by that one's id). */
export function tokenV1Of(mac: BytesMac, claims: TokenClaims): string {
  return sealV1(mac, claims);
}

/**
 * The token sealed last and its claims: a confirm's pending record is built from the token the
 * check has just sealed (approvals/build.ts `tokenClaims`), which would otherwise decode what this
 * module wrote a moment before.
 */
let lastToken: string | null = null;
let lastClaims: TokenClaims | null = null;

/** The claims of `token` when it is the token sealed last in this module (the same text), else null. */
export function sealedClaims(token: string): Readonly<TokenClaims> | null {
  if (lastClaims === null || lastToken !== token) return null;
  const { tool, agent, digest, session, ask, exp } = lastClaims;
  // only claims the token's own text gives back exactly (reading it refuses the others; -0 reads back 0)
  const exact = typeof tool === "string" && typeof digest === "string" && typeof session === "string" && (agent === null || typeof agent === "string") && Number.isSafeInteger(ask) && Number.isFinite(exp);
  return exact ? { tool, agent, digest, session, ask: ask + 0, exp: exp + 0 } : null;
}

function sealed(mac: BytesMac, claims: TokenClaims): string {
  const body = claimsBody(claims);
  if (body === null) return sealV1(mac, claims);
  const n = body.length;
  const most = DOMAIN.length + n;
  if (macBuf.length < most) {
    macBuf = new Uint8Array(2 * most);
    macBuf.set(DOMAIN_CODES);
  }
  macBuf.set(body, DOMAIN.length);
  const sig = mac(macBuf.subarray(0, most));
  const room = 4 + Math.ceil(n / 3) * 4 + 1 + 44;
  if (tokenBuf.length < room) {
    tokenBuf = new Uint8Array(2 * room);
    tokenView = new DataView(tokenBuf.buffer);
    tokenBuf.set(ST2_CODES);
  }
  const dot = base64UrlInto(macBuf.subarray(DOMAIN.length), n, tokenBuf, 4, tokenView);
  tokenBuf[dot] = 0x2e; // .
  return ascii.decode(tokenBuf.subarray(0, base64UrlInto(sig, sig.length, tokenBuf, dot + 1, tokenView)));
}

/** The parts of a token of either form, or null for anything that is not one. */
function partsOf(token: unknown): { form: "st1" | "st2"; body: string; sig: string } | null {
  if (typeof token !== "string" || token.length > 4096) return null;
  const parts = token.split(".");
  if (parts.length !== 3 || (parts[0] !== "st1" && parts[0] !== "st2")) return null;
  return { form: parts[0], body: parts[1]!, sig: parts[2]! };
}

/** The claims of a token this key sealed, or null (another key's, altered, or not a token). */
export function openToken(mac: BytesMac, token: unknown): TokenClaims | null {
  const p = partsOf(token);
  const sig = p && fromBase64Url(p.sig);
  if (!p || !sig || sig.length !== 32) return null;
  if (p.form === "st1") return openV1(mac, p.body, sig);
  const body = fromBase64Url(p.body);
  if (!body) return null;
  const input = new Uint8Array(DOMAIN.length + body.length);
  input.set(DOMAIN_CODES);
  input.set(body, DOMAIN.length);
  return equalBytes(sig, mac(input)) ? readBody(body) : null;
}

/** The claims a token says, unverified: for display and binding (step 10 checks the MAC when it is spent). */
export function readClaims(token: string): TokenClaims | null {
  const p = partsOf(token);
  if (!p) return null;
  if (p.form === "st1") return readV1(p.body);
  const body = fromBase64Url(p.body);
  return body ? readBody(body) : null;
}
