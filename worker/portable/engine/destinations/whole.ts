/**
 * A string value read whole, the way `new URL(value)` reads it (checks.md step 4). The WHATWG URL
 * parser first strips leading and trailing C0 controls and spaces, and removes every tab, LF and
 * CR anywhere in its input: `fetch("https://a.example.com\t.intranet/")` reaches
 * `a.example.com.intranet`, `ht\ntps://evil.net` is `https://evil.net`. The scanner reads text, in
 * which a line break ends a URL (a URL that ends a line of prose must not run into the next line);
 * so a value that is a URL once they are removed — with a scheme, or `//host` as read against a
 * base URL — is read a second time, whole. Both readings are destinations.
 *
 * A value that is, whole, a scheme-relative reference (`//host/x`, `\\host\x`, `/\host`) is read
 * whole even without a tab or newline: a tool that takes a path or a link resolves it against its
 * base URL (`new URL(value, base)`) and reaches that host, whatever its TLD. Inside longer text the
 * scan counts `//host` only for a public TLD or an IP, so that prose and comments are no hosts.
 */

/** What the whole reading of a value found. */
export interface Whole {
  /** The value as the URL parser reads it: trimmed, with no tab, LF or CR. */
  text: string;
  /** The URL's host, as `new URL()` gives it; "" for a `mailto:`. */
  host: string;
  /** Where the authority starts in `text` (after the scheme and its slashes), for the scanner. */
  from: number;
  /** Does the removal change the URL's scheme or host? If not, the scan has read what the parser reads. */
  changed: boolean;
  /** `//host`, read against a base: the scan does not read every such host, so it is always reported. */
  relative: boolean;
  /** Where in `text` a tab or newline was removed (before which character), in order. */
  joins: number[];
}

const TAB_OR_NEWLINE = /[\t\n\r]/;
const ALL_TABS_AND_NEWLINES = /[\t\n\r]/g;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
/** WHATWG's special schemes: any number of `/` or `\` before the host, and `\` ends it. */
const SPECIAL = new Set(["http", "https", "ws", "wss", "ftp", "file"]);
/** `//host` means a host only against a base; a tool resolves it against its own (any http one reads alike). */
const BASE = "http://base.invalid/";

/**
 * Does `value`, once the parser has stripped its leading C0 controls and spaces, start with `/` or
 * `\`? The one cheap test before a scheme-relative reading: most values fail at their first character.
 */
export function startsWithSlash(value: string): boolean {
  let a = 0;
  while (a < value.length && value.charCodeAt(a) <= 0x20) a++;
  return isSlash(value.charCodeAt(a));
}

/**
 * The whole reading of `value`, or null when it is no URL with a host, or (for a URL with a scheme)
 * when no tab or newline was removed but at its ends: then the scan has read it.
 */
export function wholeReading(value: string): Whole | null {
  const tabs = TAB_OR_NEWLINE.test(value);
  if (!tabs && !startsWithSlash(value)) return null;
  const trimmed = trim(value);
  const text = tabs ? trimmed.replace(ALL_TABS_AND_NEWLINES, "") : trimmed;
  if (text === trimmed && !isSlash(text.charCodeAt(0))) return null; // only at the ends: the scan reads past those
  const m = SCHEME.exec(text);
  let special = true;
  let from = 0;
  let host: string | null;
  if (m) {
    const scheme = m[1]!.toLowerCase();
    if (scheme === "mailto") return /@|%40/i.test(text) ? { text, host: "", from: m[0].length, changed: true, relative: false, joins: joinsOf(trimmed) } : null;
    special = SPECIAL.has(scheme);
    from = m[0].length;
    host = urlHostname(text, false);
  } else {
    host = isSlash(text.charCodeAt(0)) && isSlash(text.charCodeAt(1)) ? urlHostname(text, true) : null;
  }
  if (host === null) return null;
  const joins = joinsOf(trimmed);
  const n = text.length;
  if (special) while (from < n && isSlash(text.charCodeAt(from))) from++;
  else from += 2; // a host after a non-special scheme follows exactly `//`
  let end = from;
  let hostStart = from;
  for (; end < n && !endsAuthority(text.charCodeAt(end), special); end++) if (text.charCodeAt(end) === 0x40) hostStart = end + 1;
  // The scan reads a URL's userinfo on past a tab or newline (authority.ts): only one removed in
  // the scheme, its slashes or the host changes what the parser reads.
  const changed = joins[0]! <= from || joinedIn(joins, hostStart - 1, end);
  return { text, host, from, changed, relative: !m, joins };
}

/** `value` as the URL parser reads it: trimmed of C0 controls and spaces, with no tab, LF or CR. */
export function parsedText(value: string): string {
  return trim(value).replace(ALL_TABS_AND_NEWLINES, "");
}

function trim(value: string): string {
  let a = 0;
  let b = value.length;
  while (a < b && value.charCodeAt(a) <= 0x20) a++;
  while (b > a && value.charCodeAt(b - 1) <= 0x20) b--;
  return value.slice(a, b);
}

/** The host `new URL()` reads in `url` (against a base when `relative`); null when it reads none. */
export function urlHostname(url: string, relative: boolean): string | null {
  try {
    const host = new URL(url, relative ? BASE : undefined).hostname;
    return host === "" ? null : host;
  } catch {
    return null;
  }
}

function joinsOf(trimmed: string): number[] {
  const joins: number[] = [];
  let removed = 0;
  for (let i = 0; i < trimmed.length; i++) {
    const c = trimmed.charCodeAt(i);
    if (c === 0x09 || c === 0x0a || c === 0x0d) {
      if (joins.at(-1) !== i - removed) joins.push(i - removed);
      removed++;
    }
  }
  return joins;
}

/** Was a tab or newline removed inside `text[from, to)` (`joins` as `wholeReading` gives them)? */
export function joinedIn(joins: readonly number[], from: number, to: number): boolean {
  let lo = 0;
  let hi = joins.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (joins[mid]! <= from) lo = mid + 1;
    else hi = mid;
  }
  return lo < joins.length && joins[lo]! < to;
}

function isSlash(c: number): boolean {
  return c === 0x2f || c === 0x5c;
}

function endsAuthority(c: number, special: boolean): boolean {
  return c === 0x2f || c === 0x3f || c === 0x23 || (special && c === 0x5c);
}
