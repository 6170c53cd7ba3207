/**
 * Character classes for the destination scanner, as flag tables built once at load (the scanner
 * reads one UTF-16 code unit at a time and never allocates per character).
 *
 * Which characters may belong to a host name decides what an attacker can hide: every character
 * that the WHATWG URL parser keeps in a host, and that a registry could sell, has to be a label
 * character here, or a prefix such as `😀` or a soft hyphen in front of an allowed name would be
 * read as a separate word while a tool's `fetch()` would join it to the name. So a label is made
 * of ASCII letters, digits, `-`, `_`, and every non-ASCII letter, number, mark, format character
 * (soft hyphen, joiners: IDNA removes them) and symbol (emoji domains exist), plus surrogate
 * halves (astral letters and emoji). Non-ASCII punctuation stays a separator: IDNA2008 registries
 * do not sell names containing it.
 */

const LABEL = 1;
const DIGIT = 2;
const HEX = 4;
/** RFC 5322 atext, plus `.`: what a local part of an e-mail address is made of. */
export const ATEXT = 8;
/** RFC 3986 scheme characters `[A-Za-z0-9+.-]`. */
export const SCHEME = 16;
export const ALPHA = 32;
/** Ends any destination: whitespace, controls, and characters no URL, address or host holds. */
const BREAK = 64;

const ascii = new Uint8Array(128);
for (let c = 0; c <= 0x20; c++) ascii[c] = BREAK;
ascii[0x7f] = BREAK;
for (const ch of "\"<>`{}|^") ascii[ch.charCodeAt(0)] = BREAK;
for (let c = 0x41; c <= 0x5a; c++) {
  ascii[c] = LABEL | ATEXT | SCHEME | ALPHA | (c <= 0x46 ? HEX : 0);
  ascii[c + 0x20] = LABEL | ATEXT | SCHEME | ALPHA | (c <= 0x46 ? HEX : 0);
}
for (let c = 0x30; c <= 0x39; c++) ascii[c] = LABEL | DIGIT | HEX | ATEXT | SCHEME;
ascii[0x2d] = LABEL | ATEXT | SCHEME; // -
ascii[0x5f] = LABEL | ATEXT; // _
ascii[0x2e] = ATEXT | SCHEME; // .
ascii[0x2b] = ATEXT | SCHEME; // +
for (const ch of "!#$%&'*/=?~") ascii[ch.charCodeAt(0)]! |= ATEXT;

/** Flags of an ASCII code unit (0 for non-ASCII). */
export function asciiFlags(c: number): number {
  return c < 128 ? ascii[c]! : 0;
}

const U_UNKNOWN = 0;
const U_LABEL = 1;
const U_SPACE = 2;
const U_OTHER = 3;
/** Lazily filled class of each non-ASCII BMP code unit: computed once per code unit per isolate. */
const uni = new Uint8Array(0x10000);
const LABEL_CHAR = /^[\p{L}\p{N}\p{M}\p{Cf}\p{So}]$/u;
/** Unicode white space, but not U+FEFF: IDNA drops it inside a name, so it joins, like U+200B. */
const SPACE_CHAR = /^(?!\uFEFF)[\s\u0085]$/u;

function uniClass(c: number): number {
  let k = uni[c]!;
  if (k !== U_UNKNOWN) return k;
  if (c >= 0xd800 && c <= 0xdfff) k = U_LABEL;
  else {
    const ch = String.fromCharCode(c);
    k = SPACE_CHAR.test(ch) ? U_SPACE : LABEL_CHAR.test(ch) ? U_LABEL : U_OTHER;
  }
  uni[c] = k;
  return k;
}

/**
 * The dots of a host name: `.` and the ideographic and full-width full stops that IDNA maps to
 * `.` (`evil。com` is `evil.com` to a URL parser), plus the one-dot leader and small full stop.
 */
export function isDot(c: number): boolean {
  return c === 0x2e || c === 0x3002 || c === 0xff0e || c === 0xff61 || c === 0x2024 || c === 0xfe52;
}

export function isLabel(c: number): boolean {
  if (c < 128) return (ascii[c]! & LABEL) !== 0;
  if (isDot(c)) return false;
  return uniClass(c) === U_LABEL;
}

export function isBreak(c: number): boolean {
  if (c < 128) return (ascii[c]! & BREAK) !== 0;
  return uniClass(c) === U_SPACE;
}

export function isHex(c: number): boolean {
  return c < 128 && (ascii[c]! & HEX) !== 0;
}

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
