/**
 * A string that is one URL as a whole, read as a URL parser reads it (checks.md step 4). Before
 * it parses, a WHATWG parser (`fetch`, `new URL`) drops leading and trailing C0 controls and
 * spaces and every tab and newline inside: `https://a.example.com\t.intranet/` connects to
 * `a.example.com.intranet`. The scan (scan.ts) ends a URL at a line break unless an `@` follows
 * (in text a line break ends a URL: "…example.com\nThanks"), so it reads `https://a.example.com`
 * there. A string holding such characters that the parser reads as a URL with a host is therefore
 * also reported as the parser sees it, those characters dropped; allow.ts reads its host with the
 * same parser. Prose is not: "https://a.example.com\nThanks, Ana" is no URL to the parser (a
 * space in the host), so nothing more is reported for it.
 */

/** What the parser drops inside (every one) and at the ends (with the other C0 controls and space). */
const DROPPED = /[\t\n\r]/g;
const HAS_DROPPED = /[\t\n\r]/;
/** A scheme (tabs and newlines inside it are dropped too) and its colon, after any C0 and spaces. */
const SCHEME_FIRST = /^[\x00-\x20]*[A-Za-z][A-Za-z0-9+.\-\t\n\r]*:/;

/** `s` as a parser reads it, when that differs from `s` and names a host; else null. Linear time. */
export function wholeUrl(s: string): string | null {
  const n = s.length;
  if (n === 0) return null;
  if (s.charCodeAt(0) > 0x20 && s.charCodeAt(n - 1) > 0x20 && !HAS_DROPPED.test(s)) return null;
  if (!SCHEME_FIRST.test(s)) return null;
  const read = trimControls(s.replace(DROPPED, ""));
  let url: URL;
  try {
    url = new URL(read);
  } catch {
    return null;
  }
  return url.hostname === "" ? null : read;
}

/** `s` without its leading and trailing C0 controls and spaces. */
export function trimControls(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  return s.slice(a, b);
}
