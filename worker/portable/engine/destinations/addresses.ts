/**
 * The parts of an e-mail address as the scanner (scan.ts) reads them: pure walks over a string.
 */
import { isLabel } from "./chars.js";
import { isIPv4, isIPv6, LONGEST_IPV6 } from "./ip.js";
import { MARKED, hostRun, namesHost } from "./runs.js";

/** Letters, digits and `. _ % + -`: the local parts people and tools write. */
export function isLocalChar(c: number): boolean {
  return isLabel(c) || c === 0x2e || c === 0x25 || c === 0x2b;
}

/** Start of the local part that ends at `p`, walking back no further than `floor`. */
export function localStart(s: string, floor: number, p: number): number {
  let ls = p;
  while (ls > floor && isLocalChar(s.charCodeAt(ls - 1))) ls--;
  return ls;
}

/** The domain of an address from `d`: a name, an IPv4, or `[10.0.0.1]` / `[IPv6:…]`; or -1. */
export function domainEnd(s: string, n: number, d: number): number {
  if (s.charCodeAt(d) === 0x5b) {
    let close = d + 1;
    while (close < n && close - d <= LONGEST_IPV6 + 6 && s.charCodeAt(close) !== 0x5d) close++;
    if (s.charCodeAt(close) !== 0x5d) return -1;
    if (isIPv4(s, d + 1, close)) return close + 1;
    if (s.slice(d + 1, d + 6).toLowerCase() === "ipv6:" && isIPv6(s, d + 6, close, true)) return close + 1;
    return -1;
  }
  const de = hostRun(s, n, d);
  return de > d && namesHost(s, d, de, MARKED) ? de : -1;
}
