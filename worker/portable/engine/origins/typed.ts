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
 * - **A value that names a destination** (as step 4 reads it) must also occur in that turn as
 *   typed, up to case and Unicode normalisation (NFC): accents are part of a host (`pàypal.com` is
 *   not `paypal.com`), so folding them would vouch for a host the person never typed. And it must
 *   not be a piece of a longer destination there (typed-destination.ts): `https://intranet` is not
 *   in `https://intranet-wiki.example.com`, nor `team@example.com` in `ops-team@example.com`.
 * - **Each turn is searched on its own**: no value is found across the end of one turn and the
 *   start of the next, whatever characters it holds.
 * - **Anything else fails closed.** Booleans, null, an empty or blank string, a number JavaScript
 *   can only print with an exponent (`1e21`, `1e-7`), and a string of more than `MAX_VALUE`
 *   characters are never found. An array or object is found only when it holds at least one
 *   leaf, every leaf (string or number) is found as many times as it is used, and every key the
 *   argument's schema does not declare is found as a string; a boolean or null leaf makes it not
 *   found.
 */
import type { Language } from "../catalogue/types.js";
import { InputError } from "../errors.js";
import { findDestinations } from "../destinations/arguments.js";
import { countTokens, findToken, fold } from "./turn-text.js";
import { eachNumber, numberKey } from "./turn-numbers.js";
import { typedAsDestination } from "./typed-destination.js";

export { readNumber } from "./turn-numbers.js";

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


function checkLanguage(language: unknown): asserts language is Language {
  if (language !== "en" && language !== "pt-BR") {
    throw new InputError(`unknown language \`${String(language)}\``, undefined, "the session language is `en` or `pt-BR`");
  }
}

/** Folds one turn and reads every number it holds, once. */
export function tokenizeTurn(text: string, language: Language): TokenizedTurn {
  checkLanguage(language);
  const folded = fold(text);
  const numbers = new Set<string>();
  eachNumber(folded, language, (key) => numbers.add(key));
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
  /** each turn as typed (NFC, lowercased), for values that name a destination; by the index of `texts` */
  private readonly exact: (string | undefined)[] = [];

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
    this.exact.push(t.exact);
    for (const n of t.numbers) this.numbers.add(n);
  }

  /** How many turns were added. */
  get size(): number {
    return this.texts.length;
  }

  /**
   * Did the person type `value` in one of the turns? (See the module comment for the rules.)
   * `keys`: the object keys the argument's schema declares; any other key of an object value is
   * the writer's word and must have been typed too.
   */
  has(value: unknown, keys?: ReadonlySet<string>): boolean {
    if (typeof value === "string") return this.hasString(value);
    if (typeof value === "number") return this.hasNumber(value);
    if (value === null || typeof value !== "object") return false;
    return this.hasEveryLeaf(value, keys);
  }

  private hasNumber(value: number): boolean {
    const key = numberKey(value);
    return key !== null && this.numbers.has(key);
  }

  private hasString(value: string): boolean {
    if (BLANK.test(value)) return false;
    const v = fold(value);
    if (v.length > MAX_VALUE) return false;
    let destination: boolean | undefined;
    for (let k = 0; k < this.texts.length; k++) {
      if (!findToken(this.texts[k]!, v)) continue;
      destination ??= namesDestination(value);
      if (!destination || this.typedExactly(k, value)) return true;
    }
    return false;
  }

  /**
   * A value naming a destination is typed only as the person spelt it, accents included: folding
   * them would make `billing@pàypal.com` the `billing@paypal.com` the person typed, another host
   * (outside audit F5). Case still folds (hosts ignore it). And only where it is the whole of
   * what the person typed there, not a piece cut at `-`, `/` or `+` (outside audit 18, F3).
   */
  private typedExactly(turn: number, value: string): boolean {
    const text = this.exact[turn];
    return text !== undefined && typedAsDestination(text, value.normalize("NFC").toLowerCase());
  }

  /**
   * An array or object: at least one leaf, every leaf a string or number that was typed, as many
   * times as the person typed it (`[40, 40, 40]` is not in `refund 40`), and every key the schema
   * does not declare typed as well (`{"delete_all_orders": "4411"}` is not in `order 4411`).
   */
  private hasEveryLeaf(root: object, keys: ReadonlySet<string> | undefined): boolean {
    const stack: unknown[] = [root];
    const seen = new Set<object>();
    const leaves = new Map<string, { value: string | number; uses: number }>();
    while (stack.length > 0) {
      const v = stack.pop();
      if (typeof v === "string" || typeof v === "number") {
        const id = typeof v === "number" ? `n${String(v)}` : `s${fold(v)}`;
        const leaf = leaves.get(id);
        if (leaf) leaf.uses++;
        else leaves.set(id, { value: v, uses: 1 });
      } else if (v !== null && typeof v === "object") {
        if (seen.has(v)) continue;
        seen.add(v);
        if (Array.isArray(v)) for (const x of v) stack.push(x);
        else {
          for (const k of Object.keys(v)) {
            if (!keys?.has(k) && !this.hasString(k)) return false;
            stack.push((v as Record<string, unknown>)[k]);
          }
        }
      } else {
        return false;
      }
    }
    for (const { value, uses } of leaves.values()) {
      if (!this.has(value) || (uses > 1 && this.timesTyped(value, uses) < uses)) return false;
    }
    return leaves.size > 0;
  }

  /** How many times the person typed `value` over all turns, counting to `atMost`. */
  private timesTyped(value: string | number, atMost: number): number {
    let n = 0;
    if (typeof value === "number") {
      const key = numberKey(value);
      for (const text of this.texts) eachNumber(text, this.language, (k) => void (k === key && n++));
    } else {
      const v = fold(value);
      for (const text of this.texts) if (n < atMost) n += countTokens(text, v, atMost - n);
    }
    return n;
  }
}

const BLANK = /^\s*$/;

/**
 * Does `value` occur in one of `turns` as the person typed it, in the session's `language`?
 * Folds every turn on each call: a session keeps a `TurnIndex` instead.
 */
export function typedIn(value: unknown, turns: readonly (string | TokenizedTurn)[], language: Language): boolean {
  const index = new TurnIndex(language);
  for (const t of turns) index.add(t);
  return index.has(value);
}
