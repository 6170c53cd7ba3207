/**
 * The `typed` origin (checks.md, "Argument origins"): a value is trusted as typed only where it
 * occurs in one of the person's own turns, as they typed it. A session folds each turn once into
 * a `TurnIndex`; each check is then a set lookup (numbers) or one substring search (strings).
 *
 * How a value is found:
 * - **The language is chosen, never guessed.** Numbers in a turn are read in the session's
 *   language only: pt-BR `40`, `40,00`, `R$ 40`, `R$40,00`, `1.234,56`, `1234,56`; en `40`,
 *   `40.00`, `$40`, `1,234.56`, `1234.56`. A number written the other language's way is no number
 *   (pt-BR `1,234.56`, en `1.234,56`), and neither is an ambiguous one: a group separator must
 *   be followed by exactly three digits and lead at most three non-zero-led digits, so pt-BR
 *   `40.5`, `0.500` and en `40,5` match nothing — not 40.5, not 405, not 40. A list without
 *   spaces (`1,2,3`) is one unreadable token. Currency signs are not digits: `R$40` holds 40.
 * - **Whole tokens only.** A number is found only when it stands alone: not glued to letters
 *   (`4411a`, `a4411`, `10kg`, `nº4411` hold no number), nor inside another number (`44110`,
 *   `1.4411`) or a name (`4411.pdf`, `x@4411`). A leading `-` (or `−`) is a sign only at the start of a token (`-40`; in `10-40`
 *   it separates, and 40 is found); a negative value needs its sign typed, a positive value is
 *   not found in `-40`. Numbers compare as exact decimals (`40,00` is 40, `40,01` is not).
 * - **Strings** match case- and accent-insensitively, and in nothing else: every other character
 *   is compared as typed — white space (`hello  world` is not `hello world`), control characters
 *   (`hello\r\nworld` is not typed by the turn `subject hello world`), quotes and dashes (`'` is not
 *   `’`), compatibility characters (the Kelvin sign `K` is not the letter K, `ﬁ` is not `fi`).
 *   Folding, per character with the marks that follow it: an accented letter — a letter whose
 *   canonical decomposition is that letter and marks U+0300–U+036F, typed precomposed or
 *   decomposed (`é`, `e` + U+0301) — is its base letter; a letter is lowercased. A character that
 *   canonical normalisation would replace by another (the Kelvin, Ohm and Angstrom signs, CJK
 *   compatibility ideographs) is kept as typed, and so is a combining mark that joins no letter
 *   into an accented one (`h` + U+0337, `=` + U+0338 is `≠`, not `=`): accents the person did not
 *   type do not fold away. A value matches as the same sequence of characters with a word
 *   boundary on each side that starts or ends with a letter or digit: `ana` is not in `banana` nor in `ana.silva`,
 *   `4411` is not in `44110` nor in `4411,5`; a `.` or `@` between letters or digits joins
 *   (names, addresses, hosts), `-` and `/` separate (`São Paulo/SP`, `10-40`). Punctuation inside
 *   the value must be typed (`Flores, 12` is not in `Flores 12`). A numeric string (`"4411"`)
 *   is matched as text, not as a number.
 * - **A value that names a destination** (as step 4 reads it) must also occur in a turn as typed,
 *   up to case and Unicode normalisation (NFC): accents are part of a host (`pàypal.com` is not
 *   `paypal.com`), so folding them would vouch for a host the person never typed.
 * - **Each turn is searched on its own**: no value is found across the end of one turn and the
 *   start of the next, whatever characters it holds.
 * - **Anything else fails closed.** Booleans, null, an empty or blank string, a number JavaScript
 *   can only print with an exponent (`1e21`, `1e-7`), and a string of more than `MAX_VALUE`
 *   characters are never found. An array or object is found only when it holds at least one
 *   leaf and every leaf (string or number; keys are not values) is found; a boolean or null leaf
 *   makes it not found.
 */
import type { Language } from "../catalogue/types.js";
import { InputError } from "../errors.js";
import { findDestinations } from "../destinations/arguments.js";

/** A value that could name a host (a dot, `@`, `:`, a slash) and does, as step 4 reads it. */
function namesDestination(value: string): boolean {
  return MAY_NAME_HOST.test(value) && findDestinations(value).length > 0;
}
const MAY_NAME_HOST = /[.@:/\\\u3002\uff0e\uff61]/;

/** Longest string value searched for (folded); longer ones are not found (fail closed). */
const MAX_VALUE = 4096;

/** One turn, folded for searching, with the numbers it holds. */
export interface TokenizedTurn {
  readonly language: Language;
  /** lowercase, accents stripped, each run of white space one space */
  readonly text: string;
  /** every number the turn holds, read in its language, as exact decimals (`1234.56`, `-40`) */
  readonly numbers: ReadonlySet<string>;
  /** the turn as typed, NFC and lowercased only: where a value naming a destination must occur (accents count) */
  readonly exact?: string;
}

const ASCII_ONLY = /^[\x00-\x7f]*$/;
/** A character with the combining marks after it, unless it is a plain ASCII character alone. */
const SEQUENCE = /[^\x00-\x7f]\p{M}*|[\x00-\x7f]\p{M}+/gu;
const ASCII_UPPER = /[A-Z]+/g;
const ACCENTED = /^(\p{L})[\u0300-\u036f]+$/u;
/** A minus sign, hyphen or dash before a number is its sign (`−40`, `–40`). */
const NUMBER = /[+\-\u2010-\u2015\u2212]?[.,]?\d[\d.,]*/g;
const SIGN = /^[\-\u2010-\u2015\u2212]/;
const EN = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?$/;
const PT = /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d+))?$/;
const GROUP_SEPARATORS = /[.,]/g;
const LEADING_ZEROS = /^0+(?=\d)/;
const TRAILING_ZEROS = /0+$/;
const WORD = /^[\p{L}\p{N}\p{M}]$/u;

function checkLanguage(language: unknown): asserts language is Language {
  if (language !== "en" && language !== "pt-BR") {
    throw new InputError(`unknown language \`${String(language)}\``, undefined, "the session language is `en` or `pt-BR`");
  }
}

/** Case and accents: what matching ignores (see the module comment); nothing else changes. */
function fold(text: string): string {
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

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** A letter, digit or mark (of folded text); `_` too. Surrogate halves count (fail closed). */
function isWord(c: number): boolean {
  if (c < 128) return (c >= 0x61 && c <= 0x7a) || isDigit(c) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
  if (c !== c) return false; // NaN: before the start or past the end
  if (c >= 0xd800 && c <= 0xdfff) return true;
  return WORD.test(String.fromCharCode(c));
}

/** Reads one number token in the given language as an exact decimal string; null if it is none. */
export function readNumber(token: string, language: Language): string | null {
  let sign = "";
  let t = token;
  if (SIGN.test(t) || t.startsWith("+")) {
    if (t[0] !== "+") sign = "-";
    t = t.slice(1);
  }
  const m = (language === "pt-BR" ? PT : EN).exec(t);
  if (!m) return null;
  const whole = m[1]!;
  const grouped = whole.length > 3 && !isDigit(whole.charCodeAt(whole.length - 4));
  if (grouped && whole.startsWith("0")) return null; // `0.500`, `01.234`: not a grouped number
  const digits = whole.replace(GROUP_SEPARATORS, "").replace(LEADING_ZEROS, "");
  const fraction = (m[2] ?? "").replace(TRAILING_ZEROS, "");
  const value = fraction === "" ? digits : `${digits}.${fraction}`;
  return value === "0" ? "0" : sign + value;
}

/** A number value as the exact decimal `readNumber` gives; null for what cannot be typed. */
function numberKey(value: number): string | null {
  if (!Number.isFinite(value)) return null;
  const s = String(value === 0 ? 0 : value);
  return s.includes("e") ? null : s;
}

/**
 * A minus sign before the currency sign the number follows (`-$40`, `−R$ 40,00`): the person wrote
 * a negative amount, not 40. Not after a letter or digit (`$10-$40` is a range).
 */
function signedCurrency(folded: string, start: number): boolean {
  return SIGNED_CURRENCY.test(folded.slice(Math.max(0, start - 8), start));
}
const SIGNED_CURRENCY = /(?:^|[^\p{L}\p{N}])[-\u2010-\u2015\u2212](?:r\$|us\$|\$|€|£) ?$/u;

function negated(key: string): string {
  return key === "0" ? key : key.startsWith("-") ? key.slice(1) : `-${key}`;
}

/** Longest number token read (a sign, 30 digits and their separators); longer ones are none. */
const LONGEST_NUMBER = 64;

/** Folds one turn and reads every number it holds, once. */
export function tokenizeTurn(text: string, language: Language): TokenizedTurn {
  checkLanguage(language);
  const folded = fold(text);
  const numbers = new Set<string>();
  NUMBER.lastIndex = 0;
  for (let m = NUMBER.exec(folded); m !== null; m = NUMBER.exec(folded)) {
    let start = m.index;
    let token = m[0];
    const first = token.charCodeAt(0);
    if ((first === 0x2b || SIGN.test(token)) && isWord(folded.charCodeAt(start - 1))) {
      // a sign only at the start of a token: in `10-40` or `covid-19` the dash separates
      token = token.slice(1);
      start++;
    }
    let end = token.length;
    while (end > 0 && (token.charCodeAt(end - 1) === 0x2e || token.charCodeAt(end - 1) === 0x2c)) end--;
    if (end > LONGEST_NUMBER) continue;
    token = token.slice(0, end);
    // glued to a word or a name: `a4411`, `4411a`, `10kg`, `x@4411`, `4411.pdf`
    if (!boundaryBefore(folded, start, true) || !boundaryAfter(folded, start + token.length, true)) continue;
    const key = readNumber(token, language);
    if (key !== null) numbers.add(start > 0 && !SIGN.test(token) && signedCurrency(folded, start) ? negated(key) : key);
  }
  return { language, text: folded, numbers, exact: text.normalize("NFC").toLowerCase() };
}

/**
 * The person's turns of one session, folded once each (`add`), searched by every check (`has`).
 */
export class TurnIndex {
  readonly language: Language;
  /** each turn folded; searched one by one, so nothing is found across two turns */
  private readonly texts: string[] = [];
  private readonly numbers = new Set<string>();
  /** each turn as typed (NFC, lowercased), for values that name a destination */
  private readonly exact: string[] = [];

  constructor(language: Language = "en") {
    checkLanguage(language);
    this.language = language;
  }

  /** Adds one turn, as the person typed it (or as `tokenizeTurn` folded it). */
  add(turn: string | TokenizedTurn): void {
    const t = typeof turn === "string" ? tokenizeTurn(turn, this.language) : turn;
    if (t.language !== this.language) {
      throw new InputError(`a turn read as \`${t.language}\` in a \`${this.language}\` session`);
    }
    this.texts.push(t.text);
    if (t.exact !== undefined) this.exact.push(t.exact);
    for (const n of t.numbers) this.numbers.add(n);
  }

  /** How many turns were added. */
  get size(): number {
    return this.texts.length;
  }

  /** Did the person type `value` in one of the turns? (See the module comment for the rules.) */
  has(value: unknown): boolean {
    if (typeof value === "string") return this.hasString(value);
    if (typeof value === "number") return this.hasNumber(value);
    if (value === null || typeof value !== "object") return false;
    return this.hasEveryLeaf(value);
  }

  private hasNumber(value: number): boolean {
    const key = numberKey(value);
    return key !== null && this.numbers.has(key);
  }

  private hasString(value: string): boolean {
    if (BLANK.test(value)) return false;
    const v = fold(value);
    if (v.length > MAX_VALUE) return false;
    for (const text of this.texts) {
      if (findToken(text, v)) return !namesDestination(value) || this.typedExactly(value);
    }
    return false;
  }

  /**
   * A value naming a destination is typed only as the person spelt it, accents included: folding
   * them would make `billing@pàypal.com` the `billing@paypal.com` the person typed, another host
   * (outside audit F5). Case still folds (hosts ignore it).
   */
  private typedExactly(value: string): boolean {
    const v = value.normalize("NFC").toLowerCase();
    for (const text of this.exact) if (text.includes(v)) return true;
    return false;
  }

  /** An array or object: at least one leaf, and every leaf a string or number that was typed. */
  private hasEveryLeaf(root: object): boolean {
    const stack: unknown[] = [root];
    const seen = new Set<object>();
    let leaves = 0;
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v === "string" || typeof v === "number") {
        if (!this.has(v)) return false;
        leaves++;
      } else if (v !== null && typeof v === "object") {
        if (seen.has(v)) continue;
        seen.add(v);
        if (Array.isArray(v)) for (const x of v) stack.push(x);
        else for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
      } else {
        return false;
      }
    }
    return leaves > 0;
  }
}

const BLANK = /^\s*$/;

/** Is the folded value `v` a whole token of the folded turn `text`? */
function findToken(text: string, v: string): boolean {
  const first = v.charCodeAt(0);
  const last = v.charCodeAt(v.length - 1);
  const edgeLeft = isWord(first);
  const edgeRight = isWord(last);
  const digitFirst = isDigit(first);
  const digitLast = isDigit(last);
  let i = text.indexOf(v);
  while (i >= 0) {
    if (edgeLeft && !boundaryBefore(text, i, digitFirst)) {
      // no token starts inside this word: search again after it (keeps `aaaa…` linear)
      let k = i + 1;
      while (k < text.length && !boundaryBefore(text, k, digitFirst)) k++;
      i = text.indexOf(v, k);
    } else if (edgeRight && !boundaryAfter(text, i + v.length, digitLast)) {
      i = text.indexOf(v, i + 1);
    } else {
      return true;
    }
  }
  return false;
}

/**
 * Does a token end just before `i`? Not after a letter or digit, nor after a `.` or `@` that
 * follows one (`silva` is not a token of `ana.silva`, nor `4411` of `1.4411` or `x@4411`), nor,
 * when the token starts with a digit, after a digit and `,` (`4411` is not in `1,4411`). A `-`
 * or `/` separates: `São Paulo` is a token of `São Paulo/SP`, `40` of `10-40`.
 */
function boundaryBefore(text: string, i: number, digit: boolean): boolean {
  const p = text.charCodeAt(i - 1);
  if (isWord(p)) return false;
  if (p === 0x2e || p === 0x40) return !isWord(text.charCodeAt(i - 2));
  return !(digit && p === 0x2c && isDigit(text.charCodeAt(i - 2)));
}

/** Does a token end at `j`? The mirror of `boundaryBefore` (`4411` is not in `4411,5`). */
function boundaryAfter(text: string, j: number, digit: boolean): boolean {
  const n = text.charCodeAt(j);
  if (isWord(n)) return false;
  if (n === 0x2e || n === 0x40) return !isWord(text.charCodeAt(j + 1));
  return !(digit && n === 0x2c && isDigit(text.charCodeAt(j + 1)));
}

/**
 * Does `value` occur in one of `turns` as the person typed it, in the session's `language`?
 * Folds every turn on each call: a session keeps a `TurnIndex` instead.
 */
export function typedIn(value: unknown, turns: readonly (string | TokenizedTurn)[], language: Language): boolean {
  const index = new TurnIndex(language);
  for (const t of turns) index.add(t);
  return index.has(value);
}
