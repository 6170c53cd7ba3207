/**
 * A URL's authority, read the way a URL parser reads it, for the scanner (scan.ts): from after
 * `scheme://` to the first `/ ? # \` or break, the host being what follows the last `@`
 * (`https://example.com@evil.com/` names `evil.com`). A parser reads on past spaces and controls
 * to `/ ? # \`, so an `@` after one still ends the userinfo (ends.ts, `runOn`).
 *
 * What was read last is kept, so that the authority of a failed URL, which runs on to where a
 * later one's does, is not read twice: every character is read a bounded number of times.
 */
import { isBreak, isLabel } from "./chars.js";
import { NO_RUN, type Run, runOn } from "./ends.js";
import { LONGEST_IPV6, LONGEST_ZONE } from "./ip.js";

export class Authority {
  private s = "";
  /** the host of the authority read last: `[hostStart, hostEnd)` */
  hostStart = 0;
  hostEnd = 0;
  /** where that authority ends */
  end = 0;
  // the span read last, and its last `@`
  private memoStart = -1;
  private memoEnd = -1;
  private memoAt = -1;
  private run: Run = NO_RUN; // the stretch past the break an authority stopped at, read once

  /** A new string to read from (nothing of the previous one is kept). */
  reset(s: string): void {
    this.s = s;
    this.memoStart = this.memoEnd = this.memoAt = -1;
    this.run = NO_RUN;
  }

  /** Reads the authority that starts at `j`. */
  read(j: number): void {
    const s = this.s;
    const n = s.length;
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
  namesHost(): boolean {
    const s = this.s;
    const hs = this.hostStart;
    if (s.charCodeAt(hs) === 0x5b) {
      const close = this.hostEnd - 1;
      return close > hs + 1 && s.charCodeAt(close) === 0x5d;
    }
    for (let i = hs; i < this.hostEnd; i++) if (isLabel(s.charCodeAt(i))) return true;
    return false;
  }
}
