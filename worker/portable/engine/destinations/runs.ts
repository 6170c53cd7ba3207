/**
 * Whether a run the scanner delimited (label characters and `%hh` escapes joined by dots) names a
 * host, checks.md step 4: every string a URL parser, a mailer or a resolver would turn into a host
 * is a destination, and the one host parser (host.ts) decides wherever a run could be an address.
 * How plainly the text marks the run as an address decides what is enough:
 *
 * - `NONE` (bare text, or after `//`): a name of two labels or more whose last is a top-level
 *   domain (./tlds.ts), or `localhost`; an IPv4 written in four parts in any radix (`10.0.0.1`,
 *   `0177.0.0.1`, `0x7f.0.0.1`) or with a hex part (`0x7f.1`, `0x7f000001`). A decimal number of
 *   one to three parts (`4411`, `40.00`, `3.14`) stays a number, though a URL parser would read
 *   it as IPv4: otherwise every amount and id would be an address.
 * - `PORT` (`host:port`): any name the host parser accepts (`intranet:8080`); IPv4 of two parts or
 *   more, or with a hex part (`127.1:80`; `12:30` is a time), or one decimal number past
 *   0.255.255.255 (`2130706433:80`; `1920:1080` is a ratio).
 * - `MARKED` (`user@host`, `\\host\share`): any name, any IPv4 (`x@2130706433`).
 *
 * A run holding `%hh` escapes is read decoded, as the host parser decodes it (`evil%2Ecom` is
 * evil.com, `evil%E3%80%82com` too).
 */
import { isDigit, isDot, isHex, isLabel } from "./chars.js";
import { hostKind, parseHost } from "./host.js";
import { isTld } from "./tlds.js";

export const NONE = 0;
export const PORT = 1;
export const MARKED = 2;
export type Mark = typeof NONE | typeof PORT | typeof MARKED;

const HEX_PART = 0x100;

/** End of the label characters and `%hh` escapes from `i`. */
export function labelEnd(s: string, n: number, i: number): number {
  for (;;) {
    if (i < n && isLabel(s.charCodeAt(i))) i++;
    else if (isEscape(s, i)) i += 3;
    else return i;
  }
}

/** End of the longest run `label (dot label)*` from `p`; a dot must be followed by a label. */
export function hostRun(s: string, n: number, p: number): number {
  let i = p;
  for (;;) {
    i = labelEnd(s, n, i);
    if (i + 1 < n && isDot(s.charCodeAt(i)) && (isLabel(s.charCodeAt(i + 1)) || isEscape(s, i + 1))) i++;
    else return i;
  }
}

/** Does `s[p, e)` hold a `%`? (A loop, not indexOf: that would read past `e` on every call.) */
export function hasEscape(s: string, p: number, e: number): boolean {
  for (let i = p; i < e; i++) if (s.charCodeAt(i) === 0x25) return true;
  return false;
}

export function isEscape(s: string, i: number): boolean {
  return s.charCodeAt(i) === 0x25 && isHex(s.charCodeAt(i + 1)) && isHex(s.charCodeAt(i + 2));
}

/** Does `s[p, e)`, marked as `mark`, name a host? */
export function namesHost(s: string, p: number, e: number, mark: Mark): boolean {
  const escaped = hasEscape(s, p, e);
  if (!escaped && isNameWithTld(s, p, e)) return true;
  const shape = ipv4Shape(s, p, e);
  if (shape >= 0) return enough(shape, mark) ? isIPv4Host(s.slice(p, e)) : wideWithPort(s, p, e, shape, mark);
  if (!escaped && mark === NONE) return false;
  const text = s.slice(p, e);
  const host = parseHost(text);
  if (host === null) return false;
  const kind = hostKind(host);
  if (kind === "ipv4") {
    const decoded = decode(text);
    return decoded !== null && enough(ipv4Shape(decoded, 0, decoded.length), mark);
  }
  if (kind !== "name") return false;
  return mark !== NONE || isNameWithTld(host, 0, host.length);
}

/** A name of two labels or more ending in a TLD, or `localhost` (`s[p, e)` as written). */
function isNameWithTld(s: string, p: number, e: number): boolean {
  let d = e - 1;
  while (d >= p && !isDot(s.charCodeAt(d))) d--;
  if (d < p) return e - p === 9 && isLocalhost(s, p);
  if (e - d > 64) return false; // no label is longer than 63
  return isTld(s.slice(d + 1, e));
}

/** `localhost`, any case, at `p`. */
export function isLocalhost(s: string, p: number): boolean {
  for (let i = 0; i < 9; i++) {
    if ((s.charCodeAt(p + i) | 0x20) !== "localhost".charCodeAt(i)) return false;
  }
  return true;
}

/**
 * The shape of an IPv4 address as the host parser's IPv4 parser reads parts: decimal, `0`-octal
 * or `0x`-hex numbers joined by dots, one trailing dot allowed. The number of parts, plus
 * HEX_PART when one is hex; -1 when `s[p, e)` is not numbers and dots.
 */
function ipv4Shape(s: string, p: number, e: number): number {
  let parts = 0;
  let hex = 0;
  let i = p;
  while (i < e) {
    let j = i;
    if (s.charCodeAt(j) === 0x30 && (s.charCodeAt(j + 1) | 0x20) === 0x78 && j + 1 < e) {
      j += 2;
      while (j < e && isHex(s.charCodeAt(j))) j++;
      hex = HEX_PART;
    } else {
      while (j < e && isDigit(s.charCodeAt(j))) j++;
      if (j === i) return -1;
    }
    parts++;
    if (j === e) break;
    if (!isDot(s.charCodeAt(j))) return -1;
    i = j + 1;
  }
  return parts === 0 ? -1 : parts | hex;
}

/** Is `s[p, e)` numbers and dots, as an IPv4 address is written (not a name)? */
export function isNumberRun(s: string, p: number, e: number): boolean {
  return ipv4Shape(s, p, e) >= 0;
}

function enough(shape: number, mark: Mark): boolean {
  const parts = shape & 0xff;
  if (mark === MARKED || (shape & HEX_PART) !== 0) return true;
  return mark === PORT ? parts >= 2 : parts === 4;
}

/**
 * `2130706433:80`: one decimal number with a port reaches 127.0.0.1 as `127.1:80` does. Only past
 * 0.255.255.255, where it could be no hour, minute or screen ratio (`12:30`, `1920:1080`).
 */
function wideWithPort(s: string, p: number, e: number, shape: number, mark: Mark): boolean {
  if (mark !== PORT || shape !== 1) return false;
  const host = parseHost(s.slice(p, e));
  return host !== null && hostKind(host) === "ipv4" && !host.startsWith("0.");
}

function isIPv4Host(text: string): boolean {
  const host = parseHost(text);
  return host !== null && hostKind(host) === "ipv4";
}

function decode(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
