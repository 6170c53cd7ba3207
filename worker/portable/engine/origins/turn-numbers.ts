/**
 * Numbers in a turn, read the session language's way (typed.ts has the rules): every number a
 * folded turn holds, as exact decimals (`1234.56`, `-40`).
 */
import type { Language } from "../catalogue/types.js";
import { boundaryAfter, boundaryBefore, isDigit, isWord } from "./turn-text.js";

/** A minus sign, hyphen or dash before a number is its sign (`−40`, `–40`). */
const NUMBER = /[+\-\u2010-\u2015\u2212]?[.,]?\d[\d.,]*/g;
const SIGN = /^[\-\u2010-\u2015\u2212]/;
const EN = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?$/;
const PT = /^(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d+))?$/;
const GROUP_SEPARATORS = /[.,]/g;
const LEADING_ZEROS = /^0+(?=\d)/;
const TRAILING_ZEROS = /0+$/;

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
export function numberKey(value: number): string | null {
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

/** Calls `visit` with each number the folded turn holds, in order (a number typed twice, twice). */
export function eachNumber(folded: string, language: Language, visit: (key: string) => void): void {
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
    if (key !== null) visit(start > 0 && !SIGN.test(token) && signedCurrency(folded, start) ? negated(key) : key);
  }
}
