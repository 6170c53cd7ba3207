/**
 * Where an IP literal may stand in a string, for the scanner: bounded walks over a range that
 * allocate nothing. Whether a run IS an address is never decided here but by the one host parser
 * (host.ts), on the few runs that get that far.
 */
import { isDigit, isDot, isHex, isLabel } from "./chars.js";
import { hostKind, parseHost } from "./host.js";

export const LONGEST_IPV6 = 45; // 8 groups with an embedded dotted quad: 6*5 + 15
export const LONGEST_ZONE = 32;

/**
 * Is `s[start, end)` a dotted quad (four decimal parts of one to three digits, any dot IDNA maps
 * to `.`: `10。0。0。1`) that the host parser reads as IPv4? Shorter forms (`127.1`) and five
 * parts (`1.2.3.4.5`, a version) are not.
 */
export function isIPv4(s: string, start: number, end: number): boolean {
  let dots = 0;
  let digits = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (isDot(c)) {
      if (digits === 0 || ++dots > 3) return false;
      digits = 0;
    } else if (!isDigit(c) || ++digits > 3) {
      return false;
    }
  }
  if (dots !== 3 || digits === 0) return false;
  const host = parseHost(s.slice(start, end));
  return host !== null && hostKind(host) === "ipv4";
}

/**
 * Is `s[start, end)` an IPv6 address (no zone, no brackets) to the host parser? `::` alone (the
 * unspecified address) is taken only `bracketed` (`[::]:80`, `a@[::]`: a host, as `0.0.0.0` is);
 * bare, it is a common token in code and prose.
 */
export function isIPv6(s: string, start: number, end: number, bracketed = false): boolean {
  if (end - start < (bracketed ? 2 : 3)) return false; // `::` (unless bracketed) and shorter
  let colons = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x3a) colons++;
    else if (!isHex(c) && c !== 0x2e) return false;
  }
  if (colons < 2) return false; // `12:30`: no address has fewer than two colons
  const text = s.slice(start, end);
  const host = parseHost(text);
  return host !== null && hostKind(host) === "ipv6";
}

/** Could a bare IPv6 address start at `i`? Not inside a word, a number or another address. */
export function v6Start(s: string, i: number): boolean {
  if (i === 0) return true;
  const prev = s.charCodeAt(i - 1);
  return !(isLabel(prev) || prev === 0x3a || prev === 0x25 || isDot(prev));
}

/** A word at `p` that starts like an IPv6 address: up to four hex digits, then `:`. */
export function looksV6(s: string, p: number): boolean {
  let j = p;
  while (j - p < 5 && isHex(s.charCodeAt(j))) j++;
  return j > p && j - p <= 4 && s.charCodeAt(j) === 0x3a && v6Start(s, p);
}

/** End of the run of IPv6 characters from `p` (bounded), or -1 when it is too long. */
export function v6RunEnd(s: string, n: number, p: number): number {
  let e = p;
  while (e < n && e - p <= LONGEST_IPV6) {
    const c = s.charCodeAt(e);
    if (isHex(c) || c === 0x3a || c === 0x2e) e++;
    else break;
  }
  return e - p > LONGEST_IPV6 ? -1 : e;
}

/** A zone (`%eth0`) at `e`; returns its end (or `e` when there is none). */
export function zoneEnd(s: string, n: number, e: number): number {
  if (s.charCodeAt(e) !== 0x25) return e;
  let z = e + 1;
  while (z < n && z - e <= LONGEST_ZONE) {
    const c = s.charCodeAt(z);
    if ((isLabel(c) && c < 128) || c === 0x2e || c === 0x7e) z++;
    else break;
  }
  while (z > e + 1 && s.charCodeAt(z - 1) === 0x2e) z--;
  return z > e + 1 ? z : e;
}
