/**
 * The one regular-expression engine for catalogue patterns (`pattern`, `patternProperties`), in
 * Node and in workerd alike: RE2 semantics through `re2js` (pure JS, no eval), whose matching
 * time is linear in the input. A backtracking engine takes seconds on `^([a-z0-9]+[-.]?)*[a-z0-9]+$`
 * against `"a"×28 + "!"` and freezes the worker isolate for every other request (issue 9).
 *
 * Patterns are written as JSON Schema says, ECMAScript regular expressions (with the `u` flag);
 * `toRe2` rewrites one into RE2 syntax with the same meaning — `.`, `\s` and `\S` spelled out as
 * ECMAScript defines them, escapes as `\x{…}`, groups non-capturing — and refuses, naming the
 * character where it starts, what RE2 cannot run in linear time: lookahead and lookbehind,
 * backreferences, and repetition counts over 1000. Lint reports that as the pattern's problem, so
 * a catalogue either loads with every pattern linear or does not load.
 */
import { RE2JS } from "re2js";

/** The built-in constructor, for syntax checks only (cfworker.ts swaps the global one briefly). */
const NativeRegExp = RegExp;

/** What the validators need of a compiled pattern (ajv calls it a `RegExpLike`). */
export interface LinearRegExp {
  readonly source: string;
  test(input: string): boolean;
  toString(): string;
}

/** A pattern the linear-time engine cannot run (or that is not a valid `u` regular expression). */
export interface PatternProblem {
  message: string;
  /** the index (in UTF-16 units) of the character where the problem starts */
  offset: number;
}

/** ECMAScript `\s` (WhiteSpace and LineTerminator) as RE2 class items. */
const WHITE_SPACE: readonly (readonly [number, number])[] = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const MAX_CODE_POINT = 0x10ffff;
/** Longest pattern compiled; a longer one is refused. */
const MAX_PATTERN = 4096;

const hex = (cp: number) => `\\x{${cp.toString(16)}}`;
const items = (ranges: readonly (readonly [number, number])[]) => ranges.map(([a, b]) => (a === b ? hex(a) : `${hex(a)}-${hex(b)}`)).join("");
const complement = (ranges: readonly (readonly [number, number])[]) => {
  const out: [number, number][] = [];
  let next = 0;
  for (const [a, b] of ranges) {
    if (a > next) out.push([next, a - 1]);
    next = b + 1;
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
};
const SPACE_ITEMS = items(WHITE_SPACE);
const NON_SPACE_ITEMS = items(complement(WHITE_SPACE));
/** ECMAScript `.` with `u`: any code point but a line terminator. */
const DOT = `[^${hex(0x0a)}${hex(0x0d)}${hex(0x2028)}${hex(0x2029)}]`;

/** Long General_Category names ECMAScript accepts, by the short names RE2 knows. */
const CATEGORY: Readonly<Record<string, string>> = {
  Letter: "L", Cased_Letter: "LC", Uppercase_Letter: "Lu", Lowercase_Letter: "Ll", Titlecase_Letter: "Lt", Modifier_Letter: "Lm", Other_Letter: "Lo",
  Mark: "M", Combining_Mark: "M", Nonspacing_Mark: "Mn", Spacing_Mark: "Mc", Enclosing_Mark: "Me",
  Number: "N", Decimal_Number: "Nd", digit: "Nd", Letter_Number: "Nl", Other_Number: "No",
  Punctuation: "P", punct: "P", Connector_Punctuation: "Pc", Dash_Punctuation: "Pd", Open_Punctuation: "Ps", Close_Punctuation: "Pe", Initial_Punctuation: "Pi", Final_Punctuation: "Pf", Other_Punctuation: "Po",
  Symbol: "S", Math_Symbol: "Sm", Currency_Symbol: "Sc", Modifier_Symbol: "Sk", Other_Symbol: "So",
  Separator: "Z", Space_Separator: "Zs", Line_Separator: "Zl", Paragraph_Separator: "Zp",
  Other: "C", Control: "Cc", cntrl: "Cc", Format: "Cf", Surrogate: "Cs", Private_Use: "Co", Unassigned: "Cn",
};

class Refused extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

/** The RE2 form of an ECMAScript `u` pattern; throws `Refused` for what RE2 cannot run. */
function toRe2(pattern: string): string {
  return new Translator(pattern).run();
}

class Translator {
  private i = 0;
  constructor(private readonly p: string) {}

  run(): string {
    let out = "";
    while (this.i < this.p.length) out += this.atom();
    return out;
  }

  private refuse(what: string, at = this.i): never {
    throw new Refused(what, at);
  }

  private cp(): number {
    return this.p.codePointAt(this.i)!;
  }

  /** One piece of the pattern outside a class. */
  private atom(): string {
    const c = this.p[this.i]!;
    switch (c) {
      case "\\":
        return this.escape(false);
      case "[":
        return this.charClass();
      case ".":
        this.i++;
        return DOT;
      case "(": {
        const at = this.i;
        if (this.p.startsWith("(?=", at) || this.p.startsWith("(?!", at)) this.refuse("a lookahead `(?=…)` / `(?!…)` cannot run in linear time", at);
        if (this.p.startsWith("(?<=", at) || this.p.startsWith("(?<!", at)) this.refuse("a lookbehind `(?<=…)` / `(?<!…)` cannot run in linear time", at);
        if (this.p.startsWith("(?:", at)) {
          this.i += 3;
          return "(?:";
        }
        if (this.p.startsWith("(?<", at)) {
          const end = this.p.indexOf(">", at);
          this.i = end + 1; // a named group: names are not needed to test a match
          return "(?:";
        }
        if (this.p.startsWith("(?", at)) this.refuse("this group modifier is not supported", at);
        this.i++;
        return "(?:";
      }
      case "{": {
        // a quantifier (the `u` flag makes a lone brace a syntax error, already refused)
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i));
        if (m && (Number(m[1]) > 1000 || (m[3] !== undefined && m[3] !== "" && Number(m[3]) > 1000))) this.refuse("a repetition count over 1000 is not supported", this.i);
        this.i += m ? m[0].length : 1;
        return m ? m[0] : "\\{";
      }
      case ")": case "|": case "^": case "$": case "*": case "+": case "?": case "}": case "]":
        this.i++;
        return c;
      default:
        return this.literal();
    }
  }

  private literal(): string {
    const cp = this.cp();
    this.i += cp > 0xffff ? 2 : 1;
    return /[A-Za-z0-9_]/.test(String.fromCodePoint(cp)) ? String.fromCodePoint(cp) : hex(cp);
  }

  /** `\…`; in a class, `\b` is a backspace and `\s`/`\S` are spelled as class items. */
  private escape(inClass: boolean): string {
    const at = this.i;
    const c = this.p[this.i + 1];
    this.i += 2;
    switch (c) {
      case "d": case "D": case "w": case "W":
        return `\\${c}`;
      case "b": case "B":
        return inClass ? hex(8) : `\\${c}`;
      case "s":
        return inClass ? SPACE_ITEMS : `[${SPACE_ITEMS}]`;
      case "S":
        return inClass ? NON_SPACE_ITEMS : `[${NON_SPACE_ITEMS}]`;
      case "t": return hex(9);
      case "n": return hex(10);
      case "v": return hex(11);
      case "f": return hex(12);
      case "r": return hex(13);
      case "0": return hex(0);
      case "c": {
        const letter = this.p.charCodeAt(this.i++);
        return hex(letter % 32);
      }
      case "x": {
        const h = this.p.slice(this.i, this.i + 2);
        this.i += 2;
        return hex(parseInt(h, 16));
      }
      case "u":
        return hex(this.unicodeEscape());
      case "p": case "P":
        return this.property(c, at);
      case "k":
        return this.refuse("a named backreference `\\k<…>` cannot run in linear time", at);
      default:
        if (c !== undefined && c >= "1" && c <= "9") this.refuse("a backreference cannot run in linear time", at);
        // an escaped syntax character (or `-` in a class, `/`): the character itself
        this.i = at + 1;
        return this.literal();
    }
  }

  /** `\uXXXX` (a surrogate pair written as two of them is one code point) or `\u{…}`. */
  private unicodeEscape(): number {
    if (this.p[this.i] === "{") {
      const end = this.p.indexOf("}", this.i);
      const cp = parseInt(this.p.slice(this.i + 1, end), 16);
      this.i = end + 1;
      return cp;
    }
    const hi = parseInt(this.p.slice(this.i, this.i + 4), 16);
    this.i += 4;
    if (hi >= 0xd800 && hi <= 0xdbff && this.p.startsWith("\\u", this.i) && /^[0-9a-fA-F]{4}$/.test(this.p.slice(this.i + 2, this.i + 6))) {
      const lo = parseInt(this.p.slice(this.i + 2, this.i + 6), 16);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        this.i += 6;
        return (hi - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
      }
    }
    return hi;
  }

  private property(c: string, at: number): string {
    const end = this.p.indexOf("}", this.i);
    const body = this.p.slice(this.i + 1, end);
    this.i = end + 1;
    const eq = body.indexOf("=");
    let name = body;
    if (eq >= 0) {
      const key = body.slice(0, eq);
      const value = body.slice(eq + 1);
      if (key === "General_Category" || key === "gc" || key === "Script" || key === "sc") name = value;
      else this.refuse(`\`\\${c}{${body}}\` is not supported`, at);
    }
    return `\\${c}{${Object.hasOwn(CATEGORY, name) ? CATEGORY[name] : name}}`;
  }

  /**
   * `[…]` / `[^…]`, ranges read the way ECMAScript engines read them (`[a-z-9]` is a–z, `-` and
   * `9`); every literal spelled `\x{…}`, so RE2's own class syntax (`[:alpha:]`) never applies.
   */
  private charClass(): string {
    this.i++;
    let negate = false;
    if (this.p[this.i] === "^") {
      negate = true;
      this.i++;
    }
    let body = "";
    while (this.p[this.i] !== "]") {
      if (this.i >= this.p.length) this.refuse("a class is not closed");
      const first = this.classAtom();
      if (this.p[this.i] === "-" && this.p[this.i + 1] !== "]" && this.i + 1 < this.p.length) {
        this.i++;
        const second = this.classAtom();
        // the `u` flag already refused a range with a class escape at either end
        body += `${first}-${second}`;
      } else body += first;
    }
    this.i++;
    if (body === "") return negate ? `[${hex(0)}-${hex(MAX_CODE_POINT)}]` : `[^${hex(0)}-${hex(MAX_CODE_POINT)}]`;
    return `[${negate ? "^" : ""}${body}]`;
  }

  private classAtom(): string {
    return this.p[this.i] === "\\" ? this.escape(true) : this.literal();
  }
}

/**
 * Why `pattern` cannot be used — "is not a valid regular expression: …" or "cannot be matched in
 * linear time: … (at character N)" — or undefined when it can.
 */
export function patternProblem(pattern: string): PatternProblem | undefined {
  // no real pattern is this long, and compiling one costs time on every load
  if (pattern.length > MAX_PATTERN) return { message: `is ${pattern.length} characters long; patterns of at most ${MAX_PATTERN} characters are compiled`, offset: MAX_PATTERN };
  try {
    new NativeRegExp(pattern, "u"); // syntax only: compiling is linear, matching is what backtracks
  } catch (err) {
    return { message: `is not a valid regular expression: ${String((err as Error).message).replace(/^Invalid regular expression: /, "")}`, offset: 0 };
  }
  try {
    RE2JS.compile(toRe2(pattern));
  } catch (err) {
    if (err instanceof Refused) return { message: `cannot be matched in linear time: ${err.message} (at character ${err.offset + 1})`, offset: err.offset };
    return { message: `cannot be matched in linear time: ${String((err as Error).message).replace(/^error parsing regexp: /, "")}`, offset: 0 };
  }
  return undefined;
}

const cache = new Map<string, LinearRegExp>();
const CACHE_MAX = 2048;

/** The compiled pattern (cached by its text); throws for a pattern `patternProblem` refuses. */
export function linearRegExp(pattern: string): LinearRegExp {
  let hit = cache.get(pattern);
  if (hit) return hit;
  const problem = patternProblem(pattern);
  if (problem) throw new Error(`pattern \`${pattern}\`: ${problem.message}`);
  const re = RE2JS.compile(toRe2(pattern));
  hit = Object.freeze({ source: pattern, test: (input: string) => re.test(input), toString: () => `/${pattern}/u` });
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(pattern, hit);
  return hit;
}

const ONE = ["additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else"];
const LISTS = ["allOf", "anyOf", "oneOf"];
const MAPS = ["properties", "patternProperties", "definitions", "$defs", "dependencies"];

/** Every `pattern` and `patternProperties` key of a (valid) draft-07 schema, compiled. */
export function schemaPatterns(schema: unknown): Map<string, LinearRegExp> {
  const out = new Map<string, LinearRegExp>();
  const add = (p: string) => {
    if (!out.has(p)) out.set(p, linearRegExp(p));
  };
  const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const o = stack.pop();
    if (!isMap(o)) continue;
    if (typeof o.pattern === "string") add(o.pattern);
    if (isMap(o.patternProperties)) for (const k of Object.keys(o.patternProperties)) add(k);
    for (const k of ONE) stack.push(o[k]);
    for (const k of LISTS) if (Array.isArray(o[k])) stack.push(...(o[k] as unknown[]));
    for (const k of MAPS) if (isMap(o[k])) stack.push(...Object.values(o[k] as Record<string, unknown>));
    if (Array.isArray(o.items)) stack.push(...o.items);
    else stack.push(o.items);
  }
  return out;
}
