/**
 * A URL's authority as the scanner (scan.ts) reads it: to the first `/ ? # \` or break, and on
 * past a break to a later `@` before them; the host is what follows the last `@`, as a URL parser
 * reads it (`https://example.com@evil.com/` names `evil.com`). Remembers the last span it read, so
 * that failed URLs whose authorities run on to the same end do not read it twice.
 */
import { isBreak, isLabel } from "./chars.js";
import { NO_RUN, type Run, runOn } from "./ends.js";
import { LONGEST_IPV6, LONGEST_ZONE } from "./ip.js";

export class Authority {
  /** The authority read last: its host `[hostStart, hostEnd)`, and where it ends. */
  hostStart = 0;
  hostEnd = 0;
  end = 0;
  // the span `read()` walked last, and its last `@`
  private memoStart = -1;
  private memoEnd = -1;
  private memoAt = -1;
  private run: Run = NO_RUN; // the stretch past the break an authority stopped at, read once

  /** Forget the last string: call before reading another. */
  reset(): void {
    this.memoStart = this.memoEnd = this.memoAt = -1;
    this.run = NO_RUN;
  }

  /** Reads the authority of `s` (`n` long) from `j`. */
  read(s: string, n: number, j: number): void {
    let e: number;
    let at: number;
    if (j >= this.memoStart && j <= this.memoEnd) {
      // A failed URL's authority runs on to where this one does: do not read it twice.
      e = this.memoEnd;
      at = this.memoAt >= j ? this.memoAt : -1;
    } else {
      at = -1;
      for (e = j; e < n; e++) {
        const c = s.charCodeAt(e);
        if (c === 0x2f || c === 0x3f || c === 0x23 || c === 0x5c || isBreak(c)) break;
        if (c === 0x40) at = e;
      }
      this.memoStart = j;
      this.memoEnd = e;
      this.memoAt = at;
      // A URL parser reads on past spaces and controls to `/ ? # \`: a later `@` ends the userinfo.
      if (e < n && isBreak(s.charCodeAt(e))) {
        if (e < this.run.from || e > this.run.end) this.run = runOn(s, n, e);
        if (this.run.at >= e) [at, e] = [this.run.at, this.run.end];
      }
    }
    const hs = at >= 0 ? at + 1 : j;
    let he = hs;
    if (s.charCodeAt(hs) === 0x5b) {
      const last = Math.min(e, hs + LONGEST_IPV6 + LONGEST_ZONE + 3);
      while (he < last && s.charCodeAt(he) !== 0x5d) he++;
      if (he < last) he++;
    } else {
      while (he < e && s.charCodeAt(he) !== 0x3a) he++;
    }
    this.hostStart = hs;
    this.hostEnd = he;
    this.end = e;
  }

  /** Does the authority read last name a host: a label character, or a bracketed literal? */
  namesHost(s: string): boolean {
    const hs = this.hostStart;
    if (s.charCodeAt(hs) === 0x5b) {
      const close = this.hostEnd - 1;
      return close > hs + 1 && s.charCodeAt(close) === 0x5d;
    }
    for (let i = hs; i < this.hostEnd; i++) if (isLabel(s.charCodeAt(i))) return true;
    return false;
  }
}
