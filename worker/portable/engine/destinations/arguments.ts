/**
 * Step 4 over a call's arguments (checks.md, step 4): every string, at any depth, through the one
 * scanner (scan.ts). A string that is a JSON object or array holding escapes (a request body:
 * `{"callback": "https://a.example.com\u002eintranet"}`) is read as the JSON it holds too, as
 * the server that parses it will: its strings, decoded, are scanned as arguments are (as is one
 * whose strings start `//`: `{"url": "//intranet/x"}`, read whole, names intranet). A string
 * holding a percent escape (a redirect target in a query, a form-encoded body:
 * `next=https%3A%2F%2Fevil.net`, or a value a server decodes: `%5C%5Cevil.com`, `/%2Fintranet`,
 * `%20evil.com`) is scanned decoded too, once and, if encoded twice, twice — and a JSON body in
 * it is read decoded as well (`{"next": "%2F%2Fintranet"}`).
 */
import { Found } from "./found.js";
import { Scanner } from "./scan.js";
import { jsonIn, jsonUnescaped } from "./json-in.js";
import { queryValues } from "./url-parts.js";

/**
 * Every destination in `text`, deduplicated, in order of appearance, each as found in the text
 * (the whole URL for a URL).
 */
export function findDestinations(text: string): string[] {
  return walk([text]);
}

const scanner = new Scanner();

/**
 * Every destination inside the arguments of a call (checks.md step 4): in every string value at
 * any depth, and in every object key (a free-form map's keys are as much data as its values),
 * skipping the top-level arguments named in `skipArgs` (the tool's `lookup_args`), key and value.
 * Numbers and booleans hold no destination. Deduplicated, in order of appearance (arguments in
 * their key order, depth first).
 */
export function scanDestinations(args: unknown, skipArgs: ReadonlySet<string>): string[] {
  const stack: unknown[] = [];
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    pushEntries(stack, args as Record<string, unknown>, skipArgs);
  } else {
    stack.push(args);
  }
  return walk(stack);
}

/** Scans what `stack` holds, depth first, in the order it pops. */
function walk(stack: unknown[]): string[] {
  const found = (scanner.found = new Found());
  // Containers already read (made on the first nested one; reaching the top again reads it once
  // more, lookup arguments included: more is scanned, never less).
  let seen: Set<object> | undefined;
  while (stack.length > 0 && !found.full) {
    const v = stack.pop();
    if (typeof v === "string") {
      // most strings hold none of what the other readings need (a tab or newline, `%`, `\`)
      const plain = !OTHER_READINGS.test(v);
      scanner.scanString(v, !plain);
      if (!plain) {
        const decoded = percentDecoded(v);
        if (decoded !== null) {
          scanner.scanString(decoded, true);
          const twice = percentDecoded(decoded);
          if (twice !== null) scanner.scanString(twice, true);
        }
        // JSON escapes outside a whole JSON value: `?body={"next":"\u002f\u002fintranet"}` in a URL
        const unescaped = jsonUnescaped(v);
        if (unescaped !== null) scanner.scanString(unescaped, true);
        // a URL whose query a parser reads on past what ends a URL in text (`"`, `{`): its values
        for (const value of queryValues(v)) stack.push(value);
      }
      const json = jsonIn(v);
      if (json !== undefined) stack.push(json);
    } else if (v !== null && typeof v === "object") {
      seen ??= new Set();
      if (seen.has(v)) continue;
      seen.add(v);
      if (Array.isArray(v)) {
        for (let k = v.length - 1; k >= 0; k--) stack.push(v[k]);
      } else {
        pushEntries(stack, v as Record<string, unknown>, undefined);
      }
    }
  }
  return found.list;
}

/** Pushes an object's entries so that they pop in key order, each key before its value. */
function pushEntries(stack: unknown[], o: Record<string, unknown>, skip: ReadonlySet<string> | undefined): void {
  const keys = Object.keys(o);
  for (let k = keys.length - 1; k >= 0; k--) {
    const key = keys[k]!;
    if (skip?.has(key)) continue;
    stack.push(o[key], key);
  }
}

/** What the readings beside the scan's need: a tab or newline (whole.ts), a `%` escape, a JSON escape or string (a URL's query a parser reads on through `"`). */
const OTHER_READINGS = /[\t\n\r%\\"]/;

/** An encoded `://` or `//`, or one encoded twice: a server decodes it to a URL. */
const ENCODED_URL = /%3a(?:\/|%2f)|%2f%2f|%25(?:3a|2f|40)/i;
/** An encoded `@`; in a `mailto:` the scan reads it decoded already (scan.ts), so that is left to it. */
const ENCODED_AT = /%40/i;
const MAILTO = /mailto:/i;
/**
 * An escape of what ends or starts a host (a control, a space, `/ : @ \ |`). Other escapes in a
 * host (`evil%2Ecom`, `%65vil.com`) the scanner reads itself.
 */
const STRUCTURAL_ESCAPE = /%(?:[01][0-9a-f]|2[0f]|3a|40|5c|7c)/i;
const ASCII_ESCAPE = /%[0-7][0-9a-f]/gi;

/**
 * `s` with its ASCII `%hh` escapes decoded, when it holds an encoded URL or address, or is no
 * URL itself and holds an escape of a host's bounds: a server that decodes such a value reads
 * `%5C%5Cevil.com` as `\\evil.com`, `/%2Fintranet` as `//intranet`, `%20evil.com` as
 * ` evil.com`. (In a URL the values of its query are read decoded by values.ts, as a server reads
 * them; its path is not decoded.) Else null. A non-ASCII escape is left as written: the scanner
 * reads those in a host itself.
 */
function percentDecoded(s: string): string | null {
  const mailto = MAILTO.test(s);
  const bounds = !mailto && !s.includes("://") && STRUCTURAL_ESCAPE.test(s);
  if (!bounds && !ENCODED_URL.test(s) && !(ENCODED_AT.test(s) && !mailto)) return null;
  return s.replace(ASCII_ESCAPE, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));
}
