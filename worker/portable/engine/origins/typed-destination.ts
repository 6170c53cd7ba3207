/**
 * Where a value that names a destination counts as typed (typed.ts; checks.md, "How `typed`
 * values are found in turns"): at an occurrence in the turn as typed (NFC, lowercased) that is
 * not a piece of a longer destination naming another host or mailbox. Turn text treats `-`, `/`
 * and `+` as token boundaries, which suits words (`10-40`, `São Paulo/SP`) but not names:
 * `https://intranet` is not the host of `https://intranet-wiki.example.com`, nor is
 * `team@example.com` the mailbox `ops-team@example.com` (outside audit 18, F3).
 *
 * - Before the value: nothing that joins it to a longer name — a label character, a dot, `%`, or
 *   a single `/` or `\` (a path: `good.com/evil.com`). A pair of slashes is an authority's start
 *   (`example.com` in `https://example.com/docs`, `\\fs\share`) when nothing joins it either.
 *   A value holding `@` (a mailbox) is not preceded by what a local part holds (RFC 5322 atext:
 *   `ops-team@`, `ops+x@`, `ops/x@`) nor by `@`; a `'` standing alone is a quote.
 * - After the value, when it ends in its host: nothing that makes the host longer — a label
 *   character, `%`, `@` (the typed host is what follows it), or a dot followed by a label
 *   character. A port (`example.com:8080`), a path, and a full stop ending a sentence keep the host.
 * - Each occurrence is tried; one overlapping an occurrence already refused is not (fail closed:
 *   it keeps the search linear on hostile text).
 */
import { ATEXT, asciiFlags, isBreak, isDigit, isDot, isLabel } from "../destinations/chars.js";

const SLASH = 0x2f;
const BACKSLASH = 0x5c;
const PERCENT = 0x25;
const AT = 0x40;
const COLON = 0x3a;
const QUOTE = 0x27;
/** ports run to 65535: a longer run of digits after `:` is not a port */
const PORT_DIGITS = 5;

/** Does `v` (NFC, lowercased) occur in `text` (NFC, lowercased) as the whole destination it names? */
export function typedAsDestination(text: string, v: string): boolean {
  const mailbox = holdsAt(v);
  const slashes = isSlash(v.charCodeAt(0)) && isSlash(v.charCodeAt(1));
  const inHost = endsInHost(v);
  const scheme = SCHEME.test(v);
  for (let i = text.indexOf(v); i >= 0; i = text.indexOf(v, i + v.length)) {
    const starts = slashes ? authorityAt(text, i) : mailbox ? mailboxAt(text, i) : hostAt(text, i, scheme);
    if (starts && (!inHost || !extendsHost(text, afterPort(text, i + v.length)))) return true;
  }
  return false;
}

function isSlash(c: number): boolean {
  return c === SLASH || c === BACKSLASH;
}

/** A mailbox: an `@` before any path (`https://a.example/x@y` is a URL, read as a host). */
function holdsAt(v: string): boolean {
  const at = v.indexOf("@");
  if (at < 0) return false;
  const path = v.search(/[/\\?#]/);
  return path < 0 || at < path;
}

/** Would the character at `k` carry a name on from the left? (`-`, `.`, `%`, letters, `/`) */
function joins(text: string, k: number): boolean {
  const c = text.charCodeAt(k);
  if (c !== c) return false; // before the start
  return isLabel(c) || isDot(c) || c === PERCENT || isSlash(c);
}

/** `//` or `\\` at `i` starts an authority unless something joins it (`good.com//evil.com`). */
function authorityAt(text: string, i: number): boolean {
  return !joins(text, i - 1);
}

/**
 * A bare host or a URL at `i`: not glued on; after a pair of slashes, that pair starts an
 * authority. A value with a scheme needs only that no scheme character runs into it; a bare host
 * needs a plain separator before it (a space, an opening bracket or quote, `:`, `,`, `;`, `=`):
 * `intranet－wiki` with a full-width hyphen is `intranet-wiki` to a URL parser (outside audit 19, F5).
 */
function hostAt(text: string, i: number, scheme: boolean): boolean {
  if (isSlash(text.charCodeAt(i - 1))) return isSlash(text.charCodeAt(i - 2)) && authorityAt(text, i - 2);
  if (scheme) return !joins(text, i - 1);
  return i === 0 || separates(text.charCodeAt(i - 1), HOST_BEFORE);
}

/**
 * A mailbox at `i`: a plain separator before it, not a local-part character (`ops-team@…`,
 * `ops|team@…` and `ops－team@…` are not `team@…`: outside audit 18, F3 and audit 19, F5, F6).
 */
function mailboxAt(text: string, i: number): boolean {
  const k = i - 1;
  if (text.charCodeAt(k) === QUOTE && !localPart(text, k - 1)) return true; // 'ops@example.com'
  return i === 0 || separates(text.charCodeAt(k), MAILBOX_BEFORE);
}

/** Characters that end a name in prose before a host or mailbox, besides white space. */
const HOST_BEFORE = new Set([..."([{<\"':,;=>|"].map((c) => c.charCodeAt(0)));
const MAILBOX_BEFORE = new Set([..."([<\":,;>"].map((c) => c.charCodeAt(0)));

function separates(c: number, set: ReadonlySet<number>): boolean {
  return isBreakOrSpace(c) || set.has(c);
}

function isBreakOrSpace(c: number): boolean {
  return c <= 0x20 || c === 0x7f || (c >= 128 && isBreak(c));
}

function localPart(text: string, k: number): boolean {
  const c = text.charCodeAt(k);
  return joins(text, k) || (asciiFlags(c) & ATEXT) !== 0 || c === AT;
}

/**
 * Does `v` end inside its host? Read back from its end: a `?` or `#`, or a single `/` or `\`,
 * means a path or query (what follows it names no other host); an `@`, a space, a pair of
 * slashes, or the start means the host (so it is checked: fail closed).
 */
function endsInHost(v: string): boolean {
  for (let k = v.length - 1; k >= 0; k--) {
    const c = v.charCodeAt(k);
    if (c === 0x3f || c === 0x23) return false;
    if (c === AT || isBreak(c)) return true;
    if (isSlash(c)) return isSlash(v.charCodeAt(k - 1));
  }
  return true;
}

/** Past a port after the host at `j` (`example.com:8080`), or `j` itself. */
function afterPort(text: string, j: number): number {
  if (text.charCodeAt(j) !== COLON) return j;
  let k = j + 1;
  while (k <= j + PORT_DIGITS && isDigit(text.charCodeAt(k))) k++;
  return k;
}

/**
 * Would the text at `j` make the host longer or another one? Only what ends a host for a URL
 * parser (white space, `/ \ ? #`, `< > [ ] ^ |`) leaves it as it is; prose punctuation (`. , ; ! ) ]
 * } ' " *`, any other non-ASCII punctuation) only where no name goes on after it: `intranet-wiki`,
 * `intranet－wiki`, `intranet~wiki`, `intranet,wiki`, `.evil.net`, `@evil.net` and `%2e` all do
 * (outside audit 18, F3; audit 19, F5, F14).
 */
function extendsHost(text: string, j: number): boolean {
  const c = text.charCodeAt(j);
  if (c !== c || isBreakOrSpace(c) || ENDS_HOST.has(c)) return false; // the end, or what ends a host
  if (!isDot(c) && !PROSE.has(c) && (c < 128 || isLabel(c))) return true;
  const n = text.charCodeAt(j + 1);
  return !(n !== n || isBreakOrSpace(n) || ENDS_HOST.has(n) || PROSE.has(n) || isDot(n) || (n >= 128 && !isLabel(n)));
}

/** What ends a host to a URL parser (a delimiter, or what it refuses in one). */
const ENDS_HOST = new Set([..."/\\?#<>[]^|"].map((c) => c.charCodeAt(0)));
/** Punctuation that ends a name in prose when nothing follows it but more of the same, or a space. */
const PROSE = new Set([..."),;!]}'\"*`:"].map((c) => c.charCodeAt(0)));
const SCHEME = /^[a-z][a-z0-9+.-]*:/;
