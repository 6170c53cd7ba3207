/**
 * A string that is a JSON object or array (a request body), read as the data it holds: by the
 * argument walk (arguments.ts) and in a URL's query values (scan.ts).
 */

/**
 * The data a JSON object or array in `s` holds, if `s` is one and holds a backslash escape or a
 * string starting `//`; else undefined. Otherwise its strings read as its text does: the scan has
 * read them (a string that is `//host` it reads as a host only as a whole value: whole.ts). Cheap
 * for a string that is no JSON: it reads its two ends.
 */
export function jsonIn(s: string): object | undefined {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 0x20) a++;
  while (b > a && s.charCodeAt(b - 1) <= 0x20) b--;
  const first = s.charCodeAt(a);
  const last = s.charCodeAt(b - 1);
  if (!((first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d))) return undefined;
  // its strings read decoded as arguments are (`"%2F%2Fintranet"`): only when pushed as strings
  if (!s.includes("\\") && !s.includes("%") && !JSON_RELATIVE.test(s)) return undefined;
  try {
    return JSON.parse(s) as object; // an object or an array, by its first character
  } catch {
    return undefined; // not JSON, or nested too deep for the parser: read as text, as it was
  }
}

/**
 * A JSON string starting `//` (a space is all a parser strips that JSON holds unescaped; `\` is
 * escaped), or a `=` before a slash or an escape (`next=//host` in a query or form body it holds).
 */
const JSON_RELATIVE = /" *\/\/|=[\s+]*[/\\%]/;

/** Every key and string a JSON value holds, depth first, without recursion (any depth is fine). */
export function* jsonStrings(root: unknown): Generator<string> {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string") yield v;
    else if (Array.isArray(v)) for (let k = v.length - 1; k >= 0; k--) stack.push(v[k]);
    else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      for (let k = keys.length - 1; k >= 0; k--) stack.push((v as Record<string, unknown>)[keys[k]!], keys[k]);
    }
  }
}

const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g;
const SIMPLE: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * `s` with its JSON string escapes decoded (`\u002f` is `/`, `\/` too), when it holds one: a
 * JSON body inside a longer text (a URL's query, which a URL parser percent-encodes and the server
 * decodes) is read by its receiver so. Else null.
 */
export function jsonUnescaped(s: string): string | null {
  if (!s.includes("\\u") && !s.includes("\\/")) return null;
  return s.replace(JSON_ESCAPE, (_, hex: string | undefined, c: string | undefined) => (hex !== undefined ? String.fromCharCode(parseInt(hex, 16)) : Object.hasOwn(SIMPLE, c!) ? SIMPLE[c!]! : c!));
}
