/**
 * Confirmation tokens (checks.md, "Confirmation tokens"): `st1.<claims>.<mac>`, base64url, the
 * MAC an HMAC-SHA256 under the installation key with its own domain prefix, so a token can never
 * be mistaken for a history link. Single use and the ask entry are enforced against the verified
 * history at step 10, which keeps the runtime stateless.
 */
import { base64UrlInto, equalBytes, fromBase64Url, fromUtf8, textToBase64Url, toBase64Url } from "../canonical/bytes.js";
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

/** HMAC-SHA256 of bytes under the same key (what `Mac` computes over a string's UTF-8). */
export type BytesMac = (data: Uint8Array) => Uint8Array;

export function sealToken(mac: Mac, claims: TokenClaims, macBytes?: BytesMac): string {
  const token = sealed(mac, claims, macBytes);
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
export function tokenOf(mac: Mac, claims: TokenClaims): string {
  return sealed(mac, claims);
}

/**
 * The token sealed last and its claims: a confirm's pending record is built from the token the
 * check has just sealed (approvals/build.ts `tokenClaims`), which would otherwise decode and parse
 * what this module wrote a moment before (~2 µs a confirm in the worker, docs/perf/worker.round10.md).
 */
let lastToken: string | null = null;
let lastClaims: TokenClaims | null = null;

/** The claims of `token` when it is the token sealed last in this module (the same text), else null. */
export function sealedClaims(token: string): Readonly<TokenClaims> | null {
  if (lastClaims === null || lastToken !== token) return null;
  const { tool, agent, digest, session, ask, exp } = lastClaims;
  // only claims the token's own text gives back exactly (`tokenClaims` refuses the others; -0 reads back 0)
  const exact = typeof tool === "string" && typeof digest === "string" && typeof session === "string" && (agent === null || typeof agent === "string") && Number.isSafeInteger(ask) && Number.isFinite(exp);
  return exact ? { tool, agent, digest, session, ask: ask + 0, exp: exp + 0 } : null;
}

function sealed(mac: Mac, claims: TokenClaims, macBytes?: BytesMac): string {
  // The claims' canonical JSON, keys in sorted order, written directly (this runs on every
  // confirm): as bytes when every string is plain ASCII, and base64'd behind the MAC's domain in
  // one string, so the MAC reads a flat string and the body is a slice of it (no rope to flatten).
  const n = claimsBytes(claims);
  if (n < 0) {
    const body = textToBase64Url(claimsJson(claims));
    return `st1.${body}.${toBase64Url(mac(DOMAIN + body))}`;
  }
  if (macBytes === undefined) {
    const signed = toBase64Url(claimsBuf.subarray(0, n), DOMAIN_CODES);
    return `st1.${signed.slice(DOMAIN.length)}.${toBase64Url(mac(signed))}`;
  }
  // With a MAC over bytes, the token is built as bytes and decoded once: the domain and the body
  // are MAC'd where they lie, then "st1." takes the domain's last four bytes and ".<mac>" follows
  // the body, so the token is one flat string (no text to encode again for the MAC, no rope).
  const most = DOMAIN.length + Math.ceil(n / 3) * 4 + 1 + 43;
  if (tokenBuf.length < most) {
    tokenBuf = new Uint8Array(2 * most);
    tokenView = new DataView(tokenBuf.buffer);
  }
  const t = tokenBuf;
  for (let i = 0; i < DOMAIN_CODES.length; i++) t[i] = DOMAIN_CODES[i]!;
  const end = base64UrlInto(claimsBuf, n, t, DOMAIN.length, tokenView);
  const sig = macBytes(t.subarray(0, end));
  const from = DOMAIN.length - ST1_CODES.length;
  for (let i = 0; i < ST1_CODES.length; i++) t[from + i] = ST1_CODES[i]!;
  t[end] = 0x2e; // .
  return ascii.decode(t.subarray(from, base64UrlInto(sig, sig.length, t, end + 1, tokenView)));
}

const ST1_CODES = Uint8Array.from("st1.", (c) => c.charCodeAt(0));
let tokenBuf = new Uint8Array(512);
let tokenView = new DataView(tokenBuf.buffer);
const ascii = new TextDecoder();
const DOMAIN_CODES = Uint8Array.from(DOMAIN, (c) => c.charCodeAt(0));
let claimsBuf = new Uint8Array(512);
const codes = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));
const C_AGENT = codes(`{"agent":`), C_ASK = codes(`,"ask":`), C_DIGEST = codes(`,"digest":`), C_EXP = codes(`,"exp":`);
const C_SESSION = codes(`,"session":`), C_TOOL = codes(`,"tool":`), C_NULL = codes("null");

/**
 * `claimsJson(claims)` as ASCII bytes in `claimsBuf`, its length; -1 when a string is not plain
 * printable ASCII or a number is not a safe integer (then the string path writes it).
 */
function claimsBytes(c: TokenClaims): number {
  const { tool, agent, digest, session, ask, exp } = c;
  const most = 120 + tool.length + (agent === null ? 0 : agent.length) + digest.length + session.length;
  if (claimsBuf.length < most) claimsBuf = new Uint8Array(2 * most);
  const b = claimsBuf;
  let at = put(b, 0, C_AGENT);
  at = agent === null ? put(b, at, C_NULL) : plain(b, at, agent);
  if (at < 0 || !Number.isSafeInteger(ask) || ask < 0 || !Number.isSafeInteger(exp)) return -1;
  at = digits(b, put(b, at, C_ASK), ask);
  // The digest is written each time: it recurs only for identical arguments, and keeping the
  // last one cost a copy per call on every other call (bench/profile.ts bv, round 9).
  at = plain(b, put(b, at, C_DIGEST), digest);
  if (at < 0) return -1;
  at = put(b, at, C_EXP);
  if (exp < 0) b[at++] = 0x2d; // -
  at = digits(b, at, Math.abs(exp));
  // (a native copy: a byte loop costs more from about a dozen bytes on)
  if (session === lastTail.text && tool === lastTail.and) return copy(b, at, lastTail.bytes);
  const from = at;
  at = plain(b, put(b, at, C_SESSION), session);
  if (at < 0) return -1;
  at = plain(b, put(b, at, C_TOOL), tool);
  if (at < 0) return -1;
  b[at++] = 0x7d; // }
  remember(lastTail, session, tool, b.slice(from, at));
  return at;
}

/**
 * The part of the claims that repeats from token to token in a session (its id and the tool),
 * kept as the bytes last written for it: copied, not checked and written again.
 */
interface Part {
  /** null until a part is kept */
  text: string | null;
  and: string;
  bytes: Uint8Array;
}
const lastTail: Part = { text: null, and: "", bytes: new Uint8Array(0) };

function remember(part: Part, text: string, and: string, bytes: Uint8Array): void {
  part.text = text;
  part.and = and;
  part.bytes = bytes;
}

function copy(b: Uint8Array, at: number, c: Uint8Array): number {
  b.set(c, at);
  return at + c.length;
}

function put(b: Uint8Array, at: number, c: Uint8Array): number {
  for (let i = 0; i < c.length; i++) b[at + i] = c[i]!;
  return at + c.length;
}

/** A string JSON.stringify leaves as it is (printable ASCII but `"` and `\`), quoted; -1 for any other. */
function plain(b: Uint8Array, at: number, s: string): number {
  if (at < 0) return -1;
  b[at++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return -1;
    b[at++] = c;
  }
  b[at] = 0x22;
  return at + 1;
}

/** A non-negative safe integer's digits (0 for -0). */
function digits(b: Uint8Array, at: number, n: number): number {
  // by arithmetic, not String(n): no string per token (below 2^53, n / 10 floors exactly)
  let len = 1;
  for (let p = 10; p <= n; p *= 10) len++;
  for (let o = at + len - 1; o >= at; o--) {
    const q = Math.floor(n / 10);
    b[o] = 48 + (n - q * 10);
    n = q;
  }
  return at + len;
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
