/**
 * The one set of byte helpers (engine, licensing, both workers): UTF-8, hex, base64url, random
 * bytes, constant-time equality. Web-standard APIs only. A decoder answers `null` for text that is
 * not what it decodes, never throws.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function utf8(s: string): Uint8Array {
  // ASCII (the common case: hex, base64url, names) without the encoder's call overhead.
  if (s.length <= 512) {
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) return encoder.encode(s);
      out[i] = c;
    }
    return out;
  }
  return encoder.encode(s);
}

export function fromUtf8(b: Uint8Array): string {
  return decoder.decode(b);
}

/**
 * Hex and base64url are written as ASCII bytes into one scratch buffer and decoded once: a string
 * built a character pair at a time is a chain of small string nodes (allocated, then flattened
 * when it is read), which cost 2–4× as much for a link or a token (measured: docs/perf/README.md).
 */
let scratch = new Uint8Array(512);
const ascii = new TextDecoder();
function room(n: number): Uint8Array {
  if (scratch.length < n) scratch = new Uint8Array(Math.max(n, 2 * scratch.length));
  return scratch;
}

/** hex digit pairs as character codes: byte b at [2b], [2b + 1] */
const HEX_CODES = new Uint8Array(512);
for (let i = 0; i < 256; i++) {
  const pair = i.toString(16).padStart(2, "0");
  HEX_CODES[2 * i] = pair.charCodeAt(0);
  HEX_CODES[2 * i + 1] = pair.charCodeAt(1);
}

export function toHex(b: Uint8Array): string {
  const n = b.length;
  const out = room(2 * n);
  for (let i = 0; i < n; i++) {
    const x = b[i]! << 1;
    out[2 * i] = HEX_CODES[x]!;
    out[2 * i + 1] = HEX_CODES[x + 1]!;
  }
  return ascii.decode(out.subarray(0, 2 * n));
}

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  return -1;
}

/** Lowercase hex to bytes; null when it is not that. */
export function fromHex(s: string): Uint8Array | null {
  if (s.length % 2 !== 0) return null;
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = nibble(s.charCodeAt(2 * i));
    const lo = nibble(s.charCodeAt(2 * i + 1));
    if (hi < 0 || lo < 0) return null;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/**
 * Many strings as UTF-8 in one encoding pass: one buffer, a view per string. ASCII text (every
 * history entry of ours unless a name or turn is not) has as many bytes as characters.
 */
function utf8Many(texts: readonly string[]): Uint8Array[] {
  const joined = texts.join("");
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(joined)) return texts.map(utf8);
  const all = encoder.encode(joined);
  const out: Uint8Array[] = new Array(texts.length);
  let off = 0;
  for (let i = 0; i < texts.length; i++) {
    const n = texts[i]!.length;
    out[i] = all.subarray(off, off + n);
    off += n;
  }
  return out;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const B64_CODES = Uint8Array.from(B64, (c) => c.charCodeAt(0));
/** the two characters of each 12 bits, the first in the low byte (a little-endian store writes it first) */
const B64_PAIRS = new Uint16Array(4096);
for (let x = 0; x < 4096; x++) B64_PAIRS[x] = B64_CODES[x >>> 6]! | (B64_CODES[x & 63]! << 8);

/**
 * base64url without padding, by table (btoa over a binary string was a visible share of a check);
 * `prefix` (ASCII codes), when given, comes first in the same string (one string, not a rope).
 */
export function toBase64Url(b: Uint8Array, prefix?: Uint8Array): string {
  const n = b.length;
  const p = prefix === undefined ? 0 : prefix.length;
  const out = room(p + Math.ceil(n / 3) * 4);
  for (let o = 0; o < p; o++) out[o] = prefix![o]!;
  return ascii.decode(out.subarray(0, base64UrlInto(b, n, out, p)));
}

/**
 * base64url (no padding) of `b[0..n)` as ASCII codes into `out` from `o`; the offset after it.
 * `view`, a DataView over exactly `out`'s bytes, lets each group's four characters go in one
 * store, from a table of character pairs (about a third less time than a byte at a time).
 */
export function base64UrlInto(b: Uint8Array, n: number, out: Uint8Array, o: number, view?: DataView): number {
  let i = 0;
  if (view !== undefined) {
    for (; i + 2 < n; i += 3) {
      const x = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
      view.setUint32(o, B64_PAIRS[x >>> 12]! | (B64_PAIRS[x & 4095]! << 16), true);
      o += 4;
    }
  }
  for (; i + 2 < n; i += 3) {
    const x = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
    out[o++] = B64_CODES[x >>> 18]!;
    out[o++] = B64_CODES[(x >>> 12) & 63]!;
    out[o++] = B64_CODES[(x >>> 6) & 63]!;
    out[o++] = B64_CODES[x & 63]!;
  }
  if (i < n) {
    const x = (b[i]! << 16) | (i + 1 < n ? b[i + 1]! << 8 : 0);
    out[o++] = B64_CODES[x >>> 18]!;
    out[o++] = B64_CODES[(x >>> 12) & 63]!;
    if (i + 1 < n) out[o++] = B64_CODES[(x >>> 6) & 63]!;
  }
  return o;
}

/** base64url of a string's UTF-8 bytes; ASCII (token claims, as a rule) straight from its units. */
export function textToBase64Url(t: string): string {
  const n = t.length;
  const out = room(Math.ceil(n / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < n; i += 3) {
    const a = t.charCodeAt(i), b = t.charCodeAt(i + 1), c = t.charCodeAt(i + 2);
    if ((a | b | c) > 0x7f) return toBase64Url(utf8(t));
    const x = (a << 16) | (b << 8) | c;
    out[o++] = B64_CODES[x >>> 18]!;
    out[o++] = B64_CODES[(x >>> 12) & 63]!;
    out[o++] = B64_CODES[(x >>> 6) & 63]!;
    out[o++] = B64_CODES[x & 63]!;
  }
  if (i < n) {
    const a = t.charCodeAt(i), b = i + 1 < n ? t.charCodeAt(i + 1) : 0;
    if ((a | b) > 0x7f) return toBase64Url(utf8(t));
    const x = (a << 16) | (b << 8);
    out[o++] = B64_CODES[x >>> 18]!;
    out[o++] = B64_CODES[(x >>> 12) & 63]!;
    if (i + 1 < n) out[o++] = B64_CODES[(x >>> 6) & 63]!;
  }
  return ascii.decode(out.subarray(0, o));
}

/**
 * Strict base64url (no padding, no other alphabet, no set trailing bits: one byte string has one
 * spelling); null for anything else, a non-string included.
 */
/** each base64url character's value by its code, -1 for any other code below 128 */
const B64_VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64_VALUES[B64_CODES[i]!] = i;
const b64At = (s: string, i: number): number => {
  const c = s.charCodeAt(i);
  return c < 128 ? B64_VALUES[c]! : -1;
};

/**
 * base64url without padding to bytes, by table; null unless `s` is exactly what `toBase64Url`
 * makes of them (no other character, no padding, no set bit after the last byte). Not `atob`,
 * whose replace-pad-decode-and-encode-again round was ~5 µs for a confirmation token's claims.
 */
export function fromBase64Url(s: unknown): Uint8Array | null {
  if (typeof s !== "string") return null;
  const n = s.length;
  const tail = n % 4;
  if (tail === 1) return null;
  const out = new Uint8Array(((n - tail) / 4) * 3 + (tail === 0 ? 0 : tail - 1));
  let o = 0;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const a = b64At(s, i), b = b64At(s, i + 1), c = b64At(s, i + 2), d = b64At(s, i + 3);
    if ((a | b | c | d) < 0) return null;
    const x = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = x >>> 16;
    out[o++] = (x >>> 8) & 255;
    out[o++] = x & 255;
  }
  if (tail === 2) {
    const a = b64At(s, i), b = b64At(s, i + 1);
    if ((a | b) < 0 || (b & 15) !== 0) return null;
    out[o] = (a << 2) | (b >>> 4);
  } else if (tail === 3) {
    const a = b64At(s, i), b = b64At(s, i + 1), c = b64At(s, i + 2);
    if ((a | b | c) < 0 || (c & 3) !== 0) return null;
    const x = (a << 12) | (b << 6) | c;
    out[o++] = x >>> 10;
    out[o] = (x >>> 2) & 255;
  }
  return out;
}

export function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  crypto.getRandomValues(out);
  return out;
}

/** A random identifier: a prefix and 16 random bytes, base64url. */
export function randomId(prefix: string): string {
  return `${prefix}_${toBase64Url(randomBytes(16))}`;
}

/** Constant-time comparison of two byte strings of equal length. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}
