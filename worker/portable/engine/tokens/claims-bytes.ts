/**
 * The body of an `st2` confirmation token: its claims as compact bytes, which the token's MAC
 * reads (~80 bytes for a usual call: two SHA-256 blocks with the domain, where the base64 of the
 * claims' JSON took five). One claims, one body, and back exactly:
 *
 *   flags   1 byte: 1 = an agent follows the tool, 2 = the digest is packed, 4 = the session is packed
 *   ask     8 bytes, float64 big-endian (a safe integer)
 *   exp     8 bytes, float64 big-endian (finite)
 *   digest  packed: 32 bytes (the digest is 64 lowercase hex digits); else a string
 *   session packed: 1 byte n, then n bytes (2n lowercase hex digits, 1 ≤ n ≤ 255); else a string
 *   tool    a string
 *   agent   a string, when flag 1
 *
 * A string is its UTF-8 length (4 bytes, big-endian) and its UTF-8. A text that is hex and could be
 * packed is always packed, and -0 is written 0, so no two bodies say the same claims.
 */
import type { TokenClaims } from "../check/types.js";

const AGENT = 1, DIGEST_PACKED = 2, SESSION_PACKED = 4;
const encoder = new TextEncoder();
// (BOM kept: a name that starts with U+FEFF reads back with it)
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

let buf = new Uint8Array(256);
let view = new DataView(buf.buffer);

/** each lowercase hex digit's value by its code, -1 for any other code below 256 */
const NIBBLE = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) NIBBLE["0123456789abcdef".charCodeAt(i)] = i;

/** Whether `s` is lowercase hex of an even length from 2 to 2·`most` digits. */
function packable(s: string, most: number): boolean {
  const n = s.length;
  if (n < 2 || n > 2 * most || (n & 1) !== 0) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 255 || NIBBLE[c]! < 0) return false;
  }
  return true;
}

function ensure(n: number): void {
  if (buf.length >= n) return;
  const old = buf;
  buf = new Uint8Array(Math.max(n, 2 * buf.length));
  buf.set(old);
  view = new DataView(buf.buffer);
}

/** `s` as bytes at `at` (two hex digits a byte), the offset after; -1 when a code is not a lowercase hex digit. */
function putPacked(at: number, s: string): number {
  for (let i = 0; i < s.length; i += 2) {
    const c = s.charCodeAt(i), d = s.charCodeAt(i + 1);
    const x = (c | d) > 255 ? -1 : (NIBBLE[c]! << 4) | NIBBLE[d]!;
    if (x < 0) return -1;
    buf[at++] = x;
  }
  return at;
}

/** Whether `s` from `i` has no lone surrogate (`isWellFormed` is ES2024, above this build's library). */
function wellFormed(s: string, i: number): boolean {
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c > 0xdbff) return false;
    const d = s.charCodeAt(++i);
    if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
  }
  return true;
}

/** A string's length and UTF-8 at `at`; -1 when it is not well-formed UTF-16 (no exact UTF-8). */
function putString(at: number, s: string): number {
  const n = s.length;
  ensure(at + 4 + 3 * n);
  let o = at + 4;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) break;
    buf[o++] = c;
  }
  if (i < n) {
    if (!wellFormed(s, i)) return -1;
    o += encoder.encodeInto(s.slice(i), buf.subarray(o)).written;
  }
  view.setUint32(at, o - at - 4);
  return o;
}

/**
 * The part after the digest, which repeats from token to token of a session (its id, the tool,
 * the agent): kept as the bytes and flags last written for it, and copied when it recurs.
 */
const tail = { session: "", tool: "", agent: null as string | null, flags: -1, bytes: new Uint8Array(0) };

/** The session, tool and agent at `at`; the offset after and the flags they set, or -1. */
function putTail(at: number, session: string, tool: string, agent: string | null): number {
  if (tail.flags >= 0 && session === tail.session && tool === tail.tool && agent === tail.agent) {
    ensure(at + tail.bytes.length);
    buf.set(tail.bytes, at);
    buf[0] = buf[0]! | tail.flags;
    return at + tail.bytes.length;
  }
  const from = at;
  let flags = 0;
  ensure(at + 1 + session.length);
  const packed = session.length >= 2 && session.length <= 510 && (session.length & 1) === 0 ? putPacked(at + 1, session) : -1;
  if (packed >= 0) {
    flags |= SESSION_PACKED;
    buf[at] = session.length / 2;
    at = packed;
  } else if ((at = putString(at, session)) < 0) return -1;
  if ((at = putString(at, tool)) < 0) return -1;
  if (agent !== null) {
    flags |= AGENT;
    if ((at = putString(at, agent)) < 0) return -1;
  }
  buf[0] = buf[0]! | flags;
  tail.session = session;
  tail.tool = tool;
  tail.agent = agent;
  tail.flags = flags;
  tail.bytes = buf.slice(from, at);
  return at;
}

/**
 * The body of `claims` in this module's buffer, as a view valid until the next call; null when the
 * claims have no exact body (a name with a lone surrogate, an ask that is not a safe integer, an
 * expiry that is not finite): those are sealed in the `st1` form, which says them as JSON does.
 */
export function claimsBody(c: TokenClaims): Uint8Array | null {
  const { tool, agent, digest, session } = c;
  if (!Number.isSafeInteger(c.ask) || !Number.isFinite(c.exp)) return null;
  ensure(17 + 32);
  view.setFloat64(1, c.ask + 0);
  view.setFloat64(9, c.exp + 0);
  // The digest is written each time: it recurs only for identical arguments.
  let at = digest.length === 64 ? putPacked(17, digest) : -1;
  if (at >= 0) buf[0] = DIGEST_PACKED;
  else {
    buf[0] = 0;
    if ((at = putString(17, digest)) < 0) return null;
  }
  at = putTail(at, session, tool, agent);
  return at < 0 ? null : buf.subarray(0, at);
}

const HEX = "0123456789abcdef";

/** Reads a body back (strictly: unknown flags, a short or long body, bad UTF-8 or a packable text left unpacked give null). */
export function readBody(b: Uint8Array): TokenClaims | null {
  if (b.length < 17) return null;
  const flags = b[0]!;
  if ((flags & ~(AGENT | DIGEST_PACKED | SESSION_PACKED)) !== 0) return null;
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const ask = v.getFloat64(1);
  const exp = v.getFloat64(9);
  if (!Number.isSafeInteger(ask) || !Number.isFinite(exp) || Object.is(ask, -0) || Object.is(exp, -0)) return null;
  let at = 17;
  const hex = (n: number): string | null => {
    if (at + n > b.length) return null;
    let s = "";
    for (let i = 0; i < n; i++) s += HEX[b[at + i]! >>> 4]! + HEX[b[at + i]! & 15]!;
    at += n;
    return s;
  };
  const text = (): string | null => {
    if (at + 4 > b.length) return null;
    const n = v.getUint32(at);
    if (at + 4 + n > b.length) return null;
    try {
      const s = decoder.decode(b.subarray(at + 4, at + 4 + n));
      at += 4 + n;
      return s;
    } catch {
      return null;
    }
  };
  let digest: string | null;
  if (flags & DIGEST_PACKED) digest = hex(32);
  else if ((digest = text()) !== null && digest.length === 64 && packable(digest, 32)) return null;
  if (digest === null) return null;
  let session: string | null;
  if (flags & SESSION_PACKED) {
    const n = at < b.length ? b[at++]! : 0;
    session = n === 0 ? null : hex(n);
  } else if ((session = text()) !== null && packable(session, 255)) return null;
  if (session === null) return null;
  const tool = text();
  if (tool === null) return null;
  const agent = flags & AGENT ? text() : null;
  if (flags & AGENT && agent === null) return null;
  return at === b.length ? { tool, agent, digest, session, ask, exp } : null;
}
