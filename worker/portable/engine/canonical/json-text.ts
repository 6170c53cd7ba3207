/**
 * What JSON.parse says nothing about, read from JSON text that parsed:
 *
 * - integers it cannot hold exactly. JSON.parse reads `1234567890123456788` as
 *   1234567890123456768; a host in Python or Go runs its tool with the integer it wrote. Checked as
 *   the rounded number, a call could pass an `enum` or a `result:` origin for another value than
 *   the one that runs (I-JSON, RFC 7493 §2.2: beyond ±(2^53 − 1) an integer is not exact). Only
 *   integers written as integers: one written with a fraction or an exponent is a float to every
 *   parser, rounded the same way.
 * - a key given twice in one object. JSON.parse keeps the last; a person reading the file, or
 *   another parser, may take the first (the YAML reader refuses it, catalogue/source.ts).
 */

/** Where a number can start in JSON text: first, or after `:`, `[` or `,` (and spaces); 16 digits or more. */
const LONG_INTEGER = /(?:^|[:,[])\s*-?\d{16}/;
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * The first integer of `text` that reads as another number, with its JSON pointer; undefined when
 * there is none. Cheap for a text without a 16-digit number in it (a request body, as a rule).
 */
export function inexactInteger(text: string): { pointer: string; written: string; read: number } | undefined {
  if (!LONG_INTEGER.test(text)) return undefined;
  let found: { pointer: string; written: string; read: number } | undefined;
  walk(text, {
    integer(written, pointer) {
      const read = Number(written);
      if (BigInt(written) === BigInt(read)) return false;
      found = { pointer: pointer(), written, read };
      return true;
    },
  });
  return found;
}

/** The first key `text` gives twice in one object, with the pointer of its second; undefined when none is. */
export function duplicateKey(text: string): { pointer: string; key: string } | undefined {
  let found: { pointer: string; key: string } | undefined;
  walk(text, {
    key(key, seen, pointer) {
      if (!seen.has(key)) return false;
      found = { pointer: pointer(), key };
      return true;
    },
  });
  return found;
}

interface Visitor {
  /** an integer of 16 digits or more, written without a fraction or exponent; true stops the walk */
  integer?(written: string, pointer: () => string): boolean;
  /** a key, with the keys its object gave before it; true stops the walk */
  key?(key: string, seen: ReadonlySet<string>, pointer: () => string): boolean;
}

/** One pass over JSON text (that parsed), with the path to the value being read. */
function walk(text: string, v: Visitor): void {
  const path: (string | number)[] = [];
  // per open container: the keys an object gave so far, or null for an array
  const open: (Set<string> | null)[] = [];
  const pointer = () => pointerOf(path);
  let keyNext = false;
  for (let i = 0; i < text.length; ) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (keyNext) {
        // most keys hold no escape: their text is the key
        const body = text.slice(i + 1, end - 1);
        const key = body.includes("\\") ? (JSON.parse(text.slice(i, end)) as string) : body;
        path[path.length - 1] = key;
        if (v.key) {
          const seen = open[open.length - 1]!;
          if (v.key(key, seen, pointer)) return;
          seen.add(key);
        }
        keyNext = false;
      }
      i = end;
    } else if (ch === "{" || ch === "[") {
      open.push(ch === "[" ? null : v.key ? new Set() : NO_KEYS);
      path.push(0);
      keyNext = ch === "{";
      i++;
    } else if (ch === "}" || ch === "]") {
      open.pop();
      path.pop();
      i++;
    } else if (ch === ",") {
      if (open[open.length - 1] === null) (path[path.length - 1] as number)++;
      else keyNext = true;
      i++;
    } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      NUMBER.lastIndex = i;
      const written = NUMBER.exec(text)![0];
      i += written.length;
      if (v.integer && written.length >= 16 && !/[.eE]/.test(written) && v.integer(written, pointer)) return;
    } else i++;
  }
}

/** An object whose keys nobody asks about: not kept (never added to). */
const NO_KEYS: Set<string> = new Set();

/** The offset after the string that starts at `at` (its quote), escapes skipped. */
function stringEnd(text: string, at: number): number {
  // a quote ends the string unless an odd run of backslashes stands before it
  for (let q = text.indexOf('"', at + 1); q !== -1; q = text.indexOf('"', q + 1)) {
    let b = 0;
    while (text.charCodeAt(q - 1 - b) === 0x5c) b++;
    if (b % 2 === 0) return q + 1;
  }
  return text.length;
}

function pointerOf(path: readonly (string | number)[]): string {
  let p = "";
  for (const k of path) p += `/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`;
  return p;
}
