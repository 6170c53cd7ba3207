/**
 * Turn text as the `typed` origin searches it (typed.ts has the rules): folding away case and
 * accents, and finding a value as a whole token.
 */

const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** A character with the combining marks after it, unless it is a plain ASCII character alone. */
const SEQUENCE = /[^\x00-\x7f]\p{M}*|[\x00-\x7f]\p{M}+/gu;
const ASCII_UPPER = /[A-Z]+/g;
const ACCENTED = /^(\p{L})[\u0300-\u036f]+$/u;
const WORD = /^[\p{L}\p{N}\p{M}]$/u;

/** Case and accents: what matching ignores (see the module comment); nothing else changes. */
export function fold(text: string): string {
  if (ASCII_ONLY.test(text)) return text.toLowerCase();
  // ASCII letters are lowercased after the sequences, whose output is lowercase already or kept
  // as typed on purpose (a Kelvin sign must not become `k` through `toLowerCase`)
  return text.replace(SEQUENCE, foldSequence).replace(ASCII_UPPER, (m) => m.toLowerCase());
}

function foldSequence(seq: string): string {
  const first = String.fromCodePoint(seq.codePointAt(0)!);
  if (first.normalize("NFC") !== first) return seq; // a compatibility character: as typed
  let out = "";
  for (const c of seq.normalize("NFC")) out += foldChar(c);
  return out;
}

function foldChar(c: string): string {
  const accented = ACCENTED.exec(c.normalize("NFD"));
  return (accented ? accented[1]! : c).toLowerCase();
}

export function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** A letter, digit or mark (of folded text); `_` too. Surrogate halves count (fail closed). */
export function isWord(c: number): boolean {
  if (c < 128) return (c >= 0x61 && c <= 0x7a) || isDigit(c) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
  if (c !== c) return false; // NaN: before the start or past the end
  if (c >= 0xd800 && c <= 0xdfff) return true;
  return WORD.test(String.fromCharCode(c));
}

/** Is the folded value `v` a whole token of the folded turn `text`? */
export function findToken(text: string, v: string): boolean {
  return tokenAt(text, v, 0) >= 0;
}

/** How many times the folded value `v` stands as a whole token in `text`, counting to `atMost`. */
export function countTokens(text: string, v: string, atMost: number): number {
  let n = 0;
  for (let i = tokenAt(text, v, 0); i >= 0 && n < atMost; i = tokenAt(text, v, i + v.length)) n++;
  return n;
}

/** Where the folded value `v` first stands as a whole token in `text` at or after `from`; -1 if nowhere. */
function tokenAt(text: string, v: string, from: number): number {
  const first = v.charCodeAt(0);
  const last = v.charCodeAt(v.length - 1);
  const edgeLeft = isWord(first);
  const edgeRight = isWord(last);
  const digitFirst = isDigit(first);
  const digitLast = isDigit(last);
  let i = text.indexOf(v, from);
  while (i >= 0) {
    if (edgeLeft && !boundaryBefore(text, i, digitFirst)) {
      // no token starts inside this word: search again after it (keeps `aaaa…` linear)
      let k = i + 1;
      while (k < text.length && !boundaryBefore(text, k, digitFirst)) k++;
      i = text.indexOf(v, k);
    } else if (edgeRight && !boundaryAfter(text, i + v.length, digitLast)) {
      i = text.indexOf(v, i + 1);
    } else {
      return i;
    }
  }
  return -1;
}

/**
 * Does a token end just before `i`? Not after a letter or digit, nor after a `.` or `@` that
 * follows one (`silva` is not a token of `ana.silva`, nor `4411` of `1.4411` or `x@4411`), nor,
 * when the token starts with a digit, after a digit and `,` (`4411` is not in `1,4411`). A `-`
 * or `/` separates: `São Paulo` is a token of `São Paulo/SP`, `40` of `10-40`.
 */
export function boundaryBefore(text: string, i: number, digit: boolean): boolean {
  const p = text.charCodeAt(i - 1);
  if (isWord(p)) return false;
  if (p === 0x2e || p === 0x40) return !isWord(text.charCodeAt(i - 2));
  return !(digit && p === 0x2c && isDigit(text.charCodeAt(i - 2)));
}

/** Does a token end at `j`? The mirror of `boundaryBefore` (`4411` is not in `4411,5`). */
export function boundaryAfter(text: string, j: number, digit: boolean): boolean {
  const n = text.charCodeAt(j);
  if (isWord(n)) return false;
  if (n === 0x2e || n === 0x40) return !isWord(text.charCodeAt(j + 1));
  return !(digit && n === 0x2c && isDigit(text.charCodeAt(j + 1)));
}
