/**
 * Integers JSON text holds that a JavaScript number cannot hold exactly. JSON.parse reads
 * `1234567890123456788` as 1234567890123456768; a host in Python or Go runs its tool with the
 * integer it wrote. Checked as the rounded number, a call could pass an `enum` or a `result:`
 * origin for another value than the one that runs (I-JSON, RFC 7493 §2.2: beyond ±(2^53 − 1) an
 * integer is not exact). Only integers written as integers: a number written with a fraction or
 * an exponent is a float to every parser, rounded the same way.
 */

/** Where a number can start in JSON text: first, or after `:`, `[` or `,` (and spaces); 16 digits or more. */
const LONG_INTEGER = /(?:^|[:,[])\s*-?\d{16}/;
const NUMBER = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;

/**
 * The first integer of `text` (JSON that parsed) that reads as another number, with its JSON
 * pointer; undefined when there is none. Cheap for a body without a 16-digit number in it.
 */
export function inexactInteger(text: string): { pointer: string; written: string; read: number } | undefined {
  if (!LONG_INTEGER.test(text)) return undefined;
  // the path to the value being read: a key per object, an index per array
  const path: (string | number)[] = [];
  const inArray: boolean[] = [];
  let keyNext = false;
  for (let i = 0; i < text.length; ) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (keyNext) {
        path[path.length - 1] = JSON.parse(text.slice(i, end)) as string;
        keyNext = false;
      }
      i = end;
    } else if (ch === "{" || ch === "[") {
      inArray.push(ch === "[");
      path.push(0);
      keyNext = ch === "{";
      i++;
    } else if (ch === "}" || ch === "]") {
      inArray.pop();
      path.pop();
      i++;
    } else if (ch === ",") {
      if (inArray.at(-1)) (path[path.length - 1] as number)++;
      else keyNext = true;
      i++;
    } else if (ch === "-" || (ch >= "0" && ch <= "9")) {
      NUMBER.lastIndex = i;
      const written = NUMBER.exec(text)![0];
      i += written.length;
      if (written.length < 16 || /[.eE]/.test(written)) continue;
      const read = Number(written);
      if (BigInt(written) !== BigInt(read)) return { pointer: pointerOf(path), written, read };
    } else i++;
  }
  return undefined;
}

/** The offset after the string that starts at `at` (its quote), escapes skipped. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return text.length;
}

function pointerOf(path: readonly (string | number)[]): string {
  let p = "";
  for (const k of path) p += `/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`;
  return p;
}
