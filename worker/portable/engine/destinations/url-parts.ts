/**
 * The parts of a URL the scanner reported that a server reads as data, not as its own address:
 * each path segment, and each query or fragment value and name (checks.md step 4). A mail, webhook or
 * proxy API takes its destination there: `https://api.example.com/send?to=bob@evil.com`,
 * `/proxy?host=169.254.169.254`, `/redirect?to=http:evil.example` (an open redirect resolves a
 * special scheme without `//` to that host). Each part is decoded once, as the server decodes it,
 * and read as any string argument is (scan.ts); a path segment only for what marks itself as a
 * host (an address, an IP, `host:port`, a URL), since `README.md` in a path is a file's name.
 * Outside audit 18, F1 and F2: these were read only for `scheme://` and `//host`.
 */

/**
 * A part of the URL: `s[start, end)`; whether it is in the query or fragment (else a path segment);
 * and, there, whether it is a parameter's name (`to[bob@evil.example]` in `?to[bob@evil.example]=1`,
 * which PHP- and Rails-style servers read as data keyed by the address: outside audit 19, F13).
 */
export type PartVisitor = (start: number, end: number, value: boolean, name: boolean) => void;

/**
 * Calls `visit` for each path segment of `s[from, to)` (split at `/` and `\`), then for each query
 * or fragment part: its name, the text before its first `=`, and its value, the text after it, or
 * the whole part when it has no `=` (split at `&` and `#`). `query`: the text starts inside a query (a form body). Parts never overlap, so
 * reading each once is linear in the URL.
 */
export function eachPart(s: string, from: number, to: number, query: boolean, visit: PartVisitor): void {
  let start = from;
  let eq = -1;
  let inQuery = query;
  for (let k = from; k <= to; k++) {
    const c = k < to ? s.charCodeAt(k) : -1;
    if (!inQuery) {
      if (c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23 || c === -1) {
        if (k > start) visit(start, k, false, false);
        start = k + 1;
        if (c === 0x3f || c === 0x23) inQuery = true;
      }
    } else if (c === 0x3d) {
      if (eq < 0) eq = k;
    } else if (c === 0x26 || c === 0x23 || c === -1) {
      if (eq > start) visit(start, eq, true, true);
      const v = eq >= 0 ? eq + 1 : start;
      if (k > v) visit(v, k, true, false);
      start = k + 1;
      eq = -1;
    }
  }
}

const ASCII_ESCAPE = /%[0-7][0-9a-f]/gi;
const PLUS = /\+/g;

/**
 * A part as the server reads it: decoded once, UTF-8 escapes included (`%EF%BC%A0` is `＠`, which
 * the scanner's NFKC reading takes as `@`), and in a query a form's `+` as a space. Escapes that
 * are no UTF-8 are decoded where ASCII, as a lenient server does, and the rest left as written.
 */
export function decodedPart(text: string, value: boolean): string {
  if (value && text.includes("+")) text = text.replace(PLUS, " ");
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(ASCII_ESCAPE, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));
  }
}

/** A value that starts as a URL, and holds in its query or fragment what ends a URL in text. */
const URL_WITH_QUOTES = /^[\s\0-\x1f]*[a-z][a-z0-9+.-]*:\/\/[^?#]*[?#][^]*["{}<>|^`]/i;

/**
 * The query and fragment values of `value` read whole, as `new URL(value)` and then the server
 * read them (decoded once), when it is a URL whose query holds `"` or `{`: the scanner's URL ends
 * there, as a URL in prose does, while a parser percent-encodes it and reads on
 * (`?body={"next":"//intranet"}`: outside audit 19). Each is read as an argument is, a JSON body
 * as its data. None for any other value.
 */
export function queryValues(value: string): string[] {
  if (!URL_WITH_QUOTES.test(value)) return [];
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const part of [u.search.slice(1), u.hash.slice(1)]) {
    for (const [, v] of new URLSearchParams(part)) if (v !== "") out.push(v);
  }
  return out;
}
