/**
 * IP literal syntax over a range of a string, without allocating: the scanner calls these on
 * candidate runs it has already delimited.
 */
import { isDigit, isDot, isHex } from "./chars.js";

/**
 * Is `s[start, end)` a dotted-quad IPv4 address: four decimal parts of one to three digits, each
 * at most 255? Shorter forms (`127.1`) and five parts (`1.2.3.4.5`, a version) are not. Any dot
 * IDNA maps to `.` counts (`10。0。0。1` is 10.0.0.1 to a URL parser).
 */
export function isIPv4(s: string, start: number, end: number): boolean {
  let dots = 0;
  let digits = 0;
  let value = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (isDot(c)) {
      if (digits === 0 || ++dots > 3) return false;
      digits = 0;
      value = 0;
    } else if (isDigit(c)) {
      if (++digits > 3) return false;
      value = value * 10 + (c - 0x30);
      if (value > 255) return false;
    } else {
      return false;
    }
  }
  return dots === 3 && digits > 0;
}

/**
 * Is `s[start, end)` an IPv6 address in RFC 4291 text form (no zone, no brackets): eight groups
 * of one to four hex digits, or fewer around exactly one `::`, the last two groups optionally
 * written as a dotted quad (`::ffff:10.0.0.1`)? `::` alone (the unspecified address) is not
 * taken: it is a common token in code and prose and names nothing to send to.
 */
export function isIPv6(s: string, start: number, end: number): boolean {
  if (end - start < 2) return false;
  let i = start;
  let groups = 0;
  let elided = false;
  if (s.charCodeAt(i) === 0x3a) {
    if (s.charCodeAt(i + 1) !== 0x3a) return false;
    elided = true;
    i += 2;
    if (i === end) return false;
  }
  while (i < end) {
    let j = i;
    while (j < end && j - i < 5 && isHex(s.charCodeAt(j))) j++;
    if (j === i) return false;
    if (j < end && s.charCodeAt(j) === 0x2e) {
      // an embedded dotted quad ends the address
      if (!isIPv4(s, i, end)) return false;
      groups += 2;
      break;
    }
    if (j - i > 4) return false;
    groups++;
    if (j === end) break;
    if (s.charCodeAt(j) !== 0x3a) return false;
    if (s.charCodeAt(j + 1) === 0x3a && j + 1 < end) {
      if (elided) return false;
      elided = true;
      i = j + 2;
    } else {
      i = j + 1;
      if (i === end) return false; // a single trailing colon
    }
  }
  return elided ? groups <= 7 : groups === 8;
}
