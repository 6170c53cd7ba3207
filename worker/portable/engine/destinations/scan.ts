/**
 * Step 4's scanner: every string in a call's arguments that a URL parser, a mailer or a resolver
 * would turn into a host (what counts, and why: ./README.md). Linear on hostile input: backward
 * walks stop at the previous find, the parts of a URL (url-parts.ts) never overlap and are read
 * at most MAX_DEPTH deep, and no regex runs over the text but the one-shot prefilters.
 */
import { ALPHA, SCHEME, asciiFlags, isDot, isHex, isLabel } from "./chars.js";
import { CUT, Found } from "./found.js";
import { portEnd, urlEnd } from "./ends.js";
import { isIPv6, looksV6, v6RunEnd, v6Start, zoneEnd } from "./ip.js";
import { MARKED, NONE, PORT, hasEscape, hostRun, isEscape, isLocalhost, isNumberRun, labelEnd, namesHost } from "./runs.js";
import { Authority } from "./authority.js";
import { domainEnd, isLocalChar, localStart } from "./addresses.js";
import { joinedIn, parsedText, startsWithSlash, urlHostname, wholeReading } from "./whole.js";
import { readValue } from "./values.js";
import { decodedPart, eachPart } from "./url-parts.js";
import { jsonIn, jsonStrings } from "./json-in.js";

/** a URL, JSON (read as the data it holds) or prose: not a relative reference nor a form body */
const NOT_A_REFERENCE = /^[a-z][a-z0-9+.-]*:|^[{["]|\s/i;
const QUERY_OR_FRAGMENT = /[?#]/;

/** Schemes a URL parser reads a host from even without `//` (`http:evil.com`); not `file`. */
const SPECIAL = new Set(["http", "https", "ws", "wss", "ftp"]);
/** Without one of these, or a non-ASCII character, a string cannot hold a destination. */
const MAYBE = /[.:@\u3002\uff0e\uff61\u2024\ufe52]|%[0-9a-f]{2}|0x|\\\\|localhost/i;
const NON_ASCII = /[^\x00-\x7f]/;
const TAB_OR_NEWLINE = /[\t\n\r]/;
/** A URL in a part of a URL in a part of…: past this depth a part that may hold a host is one (fail closed). */
const MAX_DEPTH = 3;

export class Scanner {
  private s = "";
  private n = 0;
  /** End of the last destination reported: no backward walk goes before it. */
  private floor = 0;
  /** The authority read last. */
  private readonly auth = new Authority();
  private plain = -1; // no mailto with a `%40` starts before this
  /** Reading a value whole (whole.ts): where tabs and newlines were removed. */
  private joins: readonly number[] | null = null;

  /** Where finds go; set for each call (one scanner serves every call: the scan never yields). */
  found = new Found();
  /** false: a bare host name is none (a URL's path segment: `README.md` names a file). */
  private bareNames = true;
  /** Reads the parts of the URLs this one finds (url-parts.ts), one level deeper. */
  private child: Scanner | undefined;

  constructor(private readonly depth = 0) {}

  /** `readWhole: false` when the caller knows `s` holds no tab or newline: whole.ts has nothing to read. */
  scanString(s: string, readWhole = true): void {
    if (NON_ASCII.test(s)) {
      this.scan(s);
      this.whole(s);
      const k = s.normalize("NFKC");
      if (k !== s) {
        this.scan(k);
        this.whole(k);
      }
    } else {
      if (MAYBE.test(s)) this.scan(s);
      if (readWhole || startsWithSlash(s)) this.whole(s);
      else if (s.indexOf("=") >= 0 && !NOT_A_REFERENCE.test(s)) this.reference(s); // nothing for whole.ts to strip in it
    }
  }

  private start(s: string): void {
    this.s = s;
    this.n = s.length;
    this.floor = 0;
    this.auth.reset();
    this.plain = -1;
  }

  private scan(s: string): void {
    this.start(s);
    const n = this.n;
    const found = this.found;
    let i = 0;
    while (i < n && !found.full) {
      const c = s.charCodeAt(i);
      let e = -1;
      if (c === 0x3a /* : */) {
        if (s.charCodeAt(i + 1) === 0x3a && v6Start(s, i)) e = this.atBareV6(i);
        // a scheme whose last character is no label's (`wss.://intranet`): no word ran into it. Its
        // walk back may cross a host reported already (`a.example.com..://intranet`); it stops at
        // the colon before, which no scheme holds, so each character is walked back once.
        else if (i > 0 && (s.charCodeAt(i - 1) === 0x2e || s.charCodeAt(i - 1) === 0x2b)) e = this.atScheme(i, 0);
      } else if (c === 0x5b /* [ */) {
        e = this.atBracket(i);
      } else if (c === 0x2f /* / */) {
        if (s.charCodeAt(i + 1) === 0x2f) e = this.atSchemeRelative(i);
      } else if (c === 0x5c /* \ */) {
        if (s.charCodeAt(i + 1) === 0x5c) e = this.atUnc(i);
      } else if (c === 0x40 /* @ */) {
        // after a label, `atWord` has tried it already: here the local part ends in `. + %`
        if (i > 0 && !isLabel(s.charCodeAt(i - 1))) e = this.atAddress(i, i);
      } else if ((isLabel(c) || isEscape(s, i)) && (i === 0 || !isLabel(s.charCodeAt(i - 1)))) {
        e = this.atWord(i); // a word may start with an escape: `%65vil.com` is evil.com
      }
      i = e > i ? e : i + 1;
    }
    this.s = ""; // hold no argument past the call
  }

  /**
   * The value read whole, as a URL parser reads it once tabs and newlines are gone (whole.ts): the
   * URL when that changes its host (as the scan reports a URL, or whole if that would read another
   * host), and the URLs in its path and query.
   */
  private whole(value: string): void {
    const w = wholeReading(value);
    if (!this.found.full && value.indexOf("=") >= 0) this.reference(parsedText(value));
    if (w === null || this.found.full) return;
    this.start(w.text);
    const s = this.s;
    const n = this.n;
    if (w.host === "") {
      this.emit(0, urlEnd(s, n, 0, w.from, w.from)); // a mailto: every address in it is read
    } else {
      this.auth.read(s, n, w.from);
      const end = urlEnd(s, n, 0, this.auth.end, this.auth.hostStart + 1);
      // `//host` the scan reads only for some hosts: reported always, up to the first tab or newline
      // removed past its authority when none changed its host (where the scan, if it read it, stopped)
      let to = end;
      const cut = w.relative && !w.changed ? w.joins.find((j) => j >= this.auth.end) : undefined;
      if (cut !== undefined) to = urlEnd(s, cut, 0, this.auth.end, this.auth.hostStart + 1);
      if (w.changed || w.relative) this.emit(0, urlHostname(s.slice(0, to), w.relative) === w.host ? to : n);
      this.joins = w.joins;
      this.nested(this.auth.end, end);
      this.joins = null;
    }
    this.s = "";
  }

  /** A word starts at `p`. Returns where scanning goes on: never inside the word's host run. */
  private atWord(p: number): number {
    const s = this.s;
    const n = this.n;
    const e = labelEnd(s, n, p);
    const after = s.charCodeAt(e);
    if (after !== 0x2e && after !== 0x3a && after !== 0x40 && !isDot(after)) {
      // a plain word (most of any text): a destination only as `localhost`, an escaped name
      // (`evil%2Ecom`) or a hex IPv4 (`0x7f000001`)
      const maybe = (e - p === 9 && isLocalhost(s, p)) || (s.charCodeAt(p) === 0x30 && (s.charCodeAt(p + 1) | 0x20) === 0x78) || hasEscape(s, p, e);
      return maybe && namesHost(s, p, e, NONE) ? this.finishHost(p, e) : e;
    }
    if (looksV6(s, p)) {
      const e = this.atBareV6(p);
      if (e > 0) return e;
    }
    const he = hostRun(s, n, p);
    const next = s.charCodeAt(he);
    if (next === 0x3a /* : */) {
      const e = this.atScheme(he, this.floor);
      if (e > 0) return e;
    } else if (next === 0x40 /* @ */) {
      const e = this.atAddress(p, he);
      if (e > 0) return e;
    }
    const mark = this.markAfter(he);
    if (mark === NONE && !this.bareNames && !isNumberRun(s, p, he) && !(he - p === 9 && isLocalhost(s, p))) return he;
    return namesHost(s, p, he, mark) ? this.finishHost(p, he) : he;
  }

  /** `PORT` when a port follows the run ending at `e` (`intranet:8080`), else `NONE`. */
  private markAfter(e: number): typeof NONE | typeof PORT {
    return portEnd(this.s, this.n, e, true) > 0 ? PORT : NONE;
  }

  /** A host (or IP) ends at `e`: take `:port` and a path, query or fragment if they follow. */
  private finishHost(start: number, e: number): number {
    const s = this.s;
    const n = this.n;
    const port = portEnd(s, n, e, false);
    let end = port > 0 ? port : e;
    const c = s.charCodeAt(end);
    if (c === 0x2f || c === 0x3f || c === 0x23 /* / ? # */) {
      const pathStart = end;
      end = urlEnd(s, this.n, start, end, e);
      this.emit(start, end);
      this.nested(pathStart, end);
      return end;
    }
    this.emit(start, end);
    return end;
  }

  /**
   * A URL's scheme ends at the colon `k`; no backward walk passes `floor`. Reports the URL and
   * returns its end, or -1 when there is none. `outerEnd` is given for a URL inside the path of
   * another (`nested`): it ends where that one does, and is not searched again for more.
   */
  private atScheme(k: number, floor: number, outerEnd = -1): number {
    const s = this.s;
    const n = this.n;
    let a = k;
    while (a > floor && (asciiFlags(s.charCodeAt(a - 1)) & SCHEME) !== 0) a--;
    while (a < k && (asciiFlags(s.charCodeAt(a)) & ALPHA) === 0) a++;
    if (k - a < 2) return -1; // no scheme, or a drive letter
    let j = k + 1;
    while (j < n && (s.charCodeAt(j) === 0x2f || s.charCodeAt(j) === 0x5c)) j++;
    const slashes = j - k - 1;
    const scheme = s.slice(a, k).toLowerCase();
    if (scheme === "mailto") return slashes === 0 ? this.atMailto(a, j) : -1;
    // a special scheme skips any slashes; another names no host with fewer or more than two
    if (!SPECIAL.has(scheme) && slashes !== 2) return -1;
    this.auth.read(s, n, j);
    if (!this.auth.namesHost(s)) return -1;
    const auth = this.auth.end;
    if (outerEnd >= 0) {
      if (outerEnd <= this.auth.hostStart) return -1;
      // read whole, a URL in a URL is new only where a tab or newline was removed inside its authority
      if (this.joins !== null && !joinedIn(this.joins, k, auth)) return -1;
      this.emit(a, outerEnd);
      return outerEnd;
    }
    const end = urlEnd(s, this.n, a, auth, this.auth.hostStart + 1);
    this.emit(a, end);
    this.nested(auth, end);
    return end;
  }

  /** A UNC path `\\host\share…` at `i`: any name or IPv4 the host parser reads (the `\\` marks it). */
  private atUnc(i: number): number {
    const s = this.s;
    if (i > 0) {
      const prev = s.charCodeAt(i - 1);
      if (isLabel(prev) || prev === 0x3a || prev === 0x2f || prev === 0x5c) return -1;
    }
    const hs = i + 2;
    const he = hostRun(s, this.n, hs);
    if (he === hs || !namesHost(s, hs, he, MARKED)) return -1;
    const port = portEnd(s, this.n, he, false);
    let end = port > 0 ? port : he;
    const c = s.charCodeAt(end);
    if (c === 0x5c || c === 0x2f) end = urlEnd(s, this.n, i, end, end);
    this.emit(i, end);
    return end;
  }

  /** `//host/path`, when the host is a name, IPv4 or bracketed IPv6 by the bare rules. */
  private atSchemeRelative(i: number): number {
    const s = this.s;
    if (i > 0) {
      const prev = s.charCodeAt(i - 1);
      if (isLabel(prev) || prev === 0x3a || prev === 0x2f || prev === 0x5c) return -1;
    }
    if (s.charCodeAt(i + 2) === 0x2f) return -1;
    this.auth.read(s, this.n, i + 2);
    const hs = this.auth.hostStart;
    if (s.charCodeAt(hs) === 0x5b) {
      if (!this.auth.namesHost(s)) return -1;
    } else {
      const he = hostRun(s, this.n, hs);
      if (he === hs || !namesHost(s, hs, he, this.markAfter(he))) return -1;
    }
    const auth = this.auth.end;
    const end = urlEnd(s, this.n, i, auth, hs + 1);
    this.emit(i, end);
    this.nested(auth, end);
    return end;
  }

  /** `mailto:` at `a`, its address at `j`: reported whole with its query (`?cc=…`). */
  private atMailto(a: number, j: number): number {
    const s = this.s;
    let at = j;
    while (at < this.n && isLocalChar(s.charCodeAt(at))) at++;
    if (at === j || s.charCodeAt(at) !== 0x40) return j < this.plain ? -1 : this.atEncodedMailto(a, j);
    const de = domainEnd(s, this.n, at + 1);
    if (de < 0) return -1;
    const end = urlEnd(s, this.n, a, de, de);
    this.emit(a, end);
    return end;
  }

  /** RFC 6068 lets a `mailto:` write `@` as `%40`: a mail client decodes it. No `%40`, none before `plain`. */
  private atEncodedMailto(a: number, j: number): number {
    const end = urlEnd(this.s, this.n, a, j, j);
    const encoded = /%40/i.test(this.s.slice(j, end));
    if (encoded) this.emit(a, end);
    return encoded ? end : ((this.plain = end), -1);
  }

  /**
   * An `@` at `he`, after a host run `s[p, he)` (or `p === he`): an e-mail address when the local
   * part (walked back from `p`) and the domain hold up. Returns its end, or -1.
   */
  private atAddress(p: number, he: number): number {
    const s = this.s;
    let ls = localStart(s, this.floor, p);
    while (ls < he && s.charCodeAt(ls) === 0x2e) ls++;
    if (ls === he) return -1;
    const de = domainEnd(s, this.n, he + 1);
    if (de < 0) return -1;
    // `user@host:port/path` is a URL to `host` without its scheme, as curl reads it: reported
    // whole, so that an address on the allow-list does not allow it (outside audit 18, F4)
    const port = portEnd(s, this.n, de, false);
    const after = port > 0 ? port : de;
    const c = s.charCodeAt(after);
    if (port < 0 && c !== 0x2f && c !== 0x3f && c !== 0x23) {
      this.emit(ls, de);
      return de;
    }
    const end = urlEnd(s, this.n, ls, after, de);
    this.emit(ls, end);
    this.nested(after, end);
    return end;
  }

  private atBareV6(p: number): number {
    const s = this.s;
    const e = v6RunEnd(s, this.n, p);
    if (e < 0) return -1;
    let ve = e;
    while (ve > p && s.charCodeAt(ve - 1) === 0x2e) ve--;
    if (ve - p >= 2 && s.charCodeAt(ve - 1) === 0x3a && s.charCodeAt(ve - 2) !== 0x3a) ve--;
    const end = ve === e ? zoneEnd(s, this.n, e) : ve;
    if (end < this.n && isLabel(s.charCodeAt(end))) return -1;
    if (!isIPv6(s, p, ve)) return -1;
    this.emit(p, end);
    return end;
  }

  private atBracket(p: number): number {
    const s = this.s;
    const c = s.charCodeAt(p + 1);
    if (!(isHex(c) || c === 0x3a)) return -1;
    const e = v6RunEnd(s, this.n, p + 1);
    if (e < 0) return -1;
    const z = zoneEnd(s, this.n, e);
    if (s.charCodeAt(z) !== 0x5d || !isIPv6(s, p + 1, e, true)) return -1;
    return this.finishHost(p, z + 1);
  }

  /** Scheme URLs in a URL reported (`/r?to=https://evil.example`), `?next=//intranet` (values.ts), its parts (url-parts.ts). */
  private nested(from: number, to: number, query = false): void {
    const s = this.s;
    const form = query; // the loop moves `query` on at the URL's `?`; its path is read as a path
    for (let k = from; k < to && !this.found.full; k++) {
      const c = s.charCodeAt(k);
      if (c === 0x3f || c === 0x23) query = true;
      else if (c === 0x3d && query) k = this.atValue(k + 1, to) - 1;
      if (c !== 0x3a || k + 2 >= to) continue;
      const c1 = s.charCodeAt(k + 1);
      const c2 = s.charCodeAt(k + 2);
      if ((c1 !== 0x2f && c1 !== 0x5c) || (c2 !== 0x2f && c2 !== 0x5c)) continue;
      if (this.atScheme(k, from, to) > 0) k = this.auth.end - 1;
    }
    this.parts(from, to, form);
  }

  /** A URL's path segments and query values, decoded once, read as strings are (url-parts.ts). */
  private parts(from: number, to: number, query: boolean): void {
    eachPart(this.s, from, to, query, (a, b, value, name) => {
      if (this.found.full) return;
      const text = decodedPart(this.s.slice(a, b), value);
      if (!MAYBE.test(text) && !NON_ASCII.test(text)) return;
      if (this.depth >= MAX_DEPTH) return this.found.add(text + CUT); // unread: only "*" allows it
      const child = (this.child ??= new Scanner(this.depth + 1));
      child.found = this.found;
      child.bareNames = value && !name; // a name like `page.size` or `sort.by` is rarely a host
      child.scanString(text, TAB_OR_NEWLINE.test(text)); // whole.ts has nothing else to strip
      if (value && !name) for (const v of jsonStrings(jsonIn(text))) if (!this.found.full) child.scanString(v); // a JSON body's data
    });
  }

  /**
   * A whole value that is a relative reference (`/login?next=//intranet`, `login?next=…`,
   * `?next=…`) or a form body (`a=1&next=//intranet`): a tool resolves it against its base URL, or
   * posts it, so its query values are read as a URL's are. Not `//…` (the whole reading's), nor a
   * value with a scheme, JSON or a space (a URL, data or prose: read as such).
   */
  private reference(text: string): void {
    const c0 = text.charCodeAt(0);
    const c1 = text.charCodeAt(1);
    if (((c0 === 0x2f || c0 === 0x5c) && (c1 === 0x2f || c1 === 0x5c)) || NOT_A_REFERENCE.test(text)) return;
    this.start(text);
    this.joins = []; // so `nested` reports no scheme URL: the scan has read those
    this.nested(0, this.n, !QUERY_OR_FRAGMENT.test(text)); // no `?` or `#`: every `=` starts a value
    this.joins = null;
    this.s = "";
  }

  /** A query or fragment value at `v`: reported, decoded and read whole, when it is `//host`. Returns its end. */
  private atValue(v: number, to: number): number {
    const value = readValue(this.s, v, to);
    const w = value.text === null ? null : wholeReading(value.text);
    if (w?.relative) this.found.add(w.text);
    return value.end;
  }

  private emit(start: number, end: number): void {
    this.found.add(this.s.slice(start, end));
    if (end > this.floor) this.floor = end;
  }
}
