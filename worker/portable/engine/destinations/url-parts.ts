/**
 * The parts of a URL the scanner reported that a server reads as data, not as its own address:
 * each path segment, and each query or fragment value (checks.md step 4). A mail, webhook or
 * proxy API takes its destination there: `https://api.example.com/send?to=bob@evil.com`,
 * `/proxy?host=169.254.169.254`, `/redirect?to=http:evil.example` (an open redirect resolves a
 * special scheme without `//` to that host). Each part is decoded once, as the server decodes it,
 * and read as any string argument is (scan.ts); a path segment only for what marks itself as a
 * host (an address, an IP, `host:port`, a URL), since `README.md` in a path is a file's name.
 * Outside audit 18, F1 and F2: these were read only for `scheme://` and `//host`.
 */

/** A part of the URL: `s[start, end)`, and whether it is a query or fragment value (else a path segment). */
export type PartVisitor = (start: number, end: number, value: boolean) => void;

/**
 * Calls `visit` for each path segment of `s[from, to)` (split at `/` and `\`), then for each query
 * or fragment part: the text after its first `=`, or the whole part when it has none (split at
 * `&` and `#`). `query`: the text starts inside a query (a form body). Parts never overlap, so
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
        if (k > start) visit(start, k, false);
        start = k + 1;
        if (c === 0x3f || c === 0x23) inQuery = true;
      }
    } else if (c === 0x3d) {
      if (eq < 0) eq = k;
    } else if (c === 0x26 || c === 0x23 || c === -1) {
      const v = eq >= 0 ? eq + 1 : start;
      if (k > v) visit(v, k, true);
      start = k + 1;
      eq = -1;
    }
  }
}

const ASCII_ESCAPE = /%[0-7][0-9a-f]/gi;
const PLUS = /\+/g;

/**
 * A part as the server reads it: decoded once, its ASCII `%hh` escapes (a non-ASCII escape the
 * scanner reads in a host itself), and in a query a form's `+` as a space.
 */
export function decodedPart(text: string, value: boolean): string {
  if (value && text.includes("+")) text = text.replace(PLUS, " ");
  return text.includes("%") ? text.replace(ASCII_ESCAPE, (e) => String.fromCharCode(parseInt(e.slice(1), 16))) : text;
}
