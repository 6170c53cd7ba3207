/** Where a destination the scanner found ends (scan.ts): pure walks over a string. */
import { isBreak, isDigit, isLabel } from "./chars.js";

/**
 * End of a URL that starts at `start` and whose path (if any) starts at `from`: up to the next
 * break, then without trailing `. , ; : ! ? ' *`, non-ASCII punctuation, or closing brackets
 * that close nothing; never before `min`.
 */
export function urlEnd(s: string, n: number, start: number, from: number, min: number): number {
  let e = from;
  while (e < n && !isBreak(s.charCodeAt(e))) e++;
  let parens = 0;
  let squares = 0;
  for (let i = start; i < e; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x28) parens++;
    else if (c === 0x29) parens--;
    else if (c === 0x5b) squares++;
    else if (c === 0x5d) squares--;
  }
  while (e > min) {
    const c = s.charCodeAt(e - 1);
    if (c === 0x29 && parens < 0) parens++;
    else if (c === 0x5d && squares < 0) squares++;
    else if (!isTrailingPunctuation(c)) break;
    e--;
  }
  return e;
}

function isTrailingPunctuation(c: number): boolean {
  switch (c) {
    case 0x2e: case 0x2c: case 0x3b: case 0x3a: case 0x21: case 0x3f: case 0x27: case 0x2a:
      return true;
    default:
      return c >= 128 && !isLabel(c);
  }
}

/**
 * End of a `:port` at `e` (one to five digits not followed by a label character), or -1. `strict`
 * is for deciding that a run is a host by its port: then the port is at most 65535 and not the
 * middle of a time or a ratio (`10:30:00`, `1:2.5`).
 */
export function portEnd(s: string, n: number, e: number, strict: boolean): number {
  if (s.charCodeAt(e) !== 0x3a) return -1;
  let j = e + 1;
  while (j < n && j - e <= 6 && isDigit(s.charCodeAt(j))) j++;
  const digits = j - e - 1;
  if (digits < 1 || digits > 5 || (j < n && isLabel(s.charCodeAt(j)))) return -1;
  if (!strict) return j;
  const next = s.charCodeAt(j);
  if (Number(s.slice(e + 1, j)) > 65535 || next === 0x3a || (next === 0x2e && isDigit(s.charCodeAt(j + 1)))) return -1;
  return j;
}

/** From `from` to the first `/ ? # \\` or the end, and the last `@` in it (-1 if none). */
export interface Run {
  from: number;
  end: number;
  at: number;
}
export const NO_RUN: Run = { from: -1, end: -1, at: -1 };

/**
 * A URL parser's authority runs on past spaces and controls (it drops tabs and newlines, and
 * percent-encodes the rest as userinfo) to the first `/ ? # \\`: so in `https://a.com\t@evil/`
 * the host is `evil`. The scanner's authority stops at the break; this reads what lies past it.
 */
export function runOn(s: string, n: number, from: number): Run {
  let end = from;
  let at = -1;
  for (; end < n; end++) {
    const c = s.charCodeAt(end);
    if (c === 0x2f || c === 0x3f || c === 0x23 || c === 0x5c) break;
    if (c === 0x40) at = end;
  }
  return { from, end, at };
}
