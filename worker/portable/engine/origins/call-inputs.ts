/**
 * What a host's calls sent the tool server in one session, so that a result does not vouch for what
 * it only hands back (infer.ts, `InferOptions.inputs`; outside audits 22 and 24).
 *
 * Recorded: every value the model had a say in — an argument whose origin is not trusted, at any
 * depth, with the keys of the objects in it, and whatever else the host forwarded (a resource's
 * URI, a prompt's arguments). Values from a trusted origin (typed, reply, context, computed, a
 * trusted result) are not: handing those back launders nothing, and a lookup asked with an id the
 * person typed still vouches for its answer (an `after … bind` needs it to).
 *
 * Compared as a person would read them: folded (compatibility forms, marks and invisible format
 * characters dropped, case folded) and cut into words (runs of letters and digits). A result's
 * value is an echo of something sent when its words, joined, equal a run of whole words of one
 * thing sent, joined: `ACCT666` of `acct 666`, `acct-666` of `id:acct-666`, `STRASSE-908` of
 * `straße 908`. A number is also read as the number it spells (`4,000`, `4e3` and `4000` are one).
 * An object or a list is an echo when any value in it is. A read that builds something else out of
 * what it was sent (decodes it, joins two values, adds to it) answers with a value of its own. A
 * value of one or two letters or digits (`1`, `50`, `EU`) is an echo only of its own call: such
 * values are sent for every other reason (a page, a limit), and an order's quantity of 1 is not
 * the model's because it once asked for page 1 (outside audit 25, F5).
 *
 * A result vouches only when its own call was recorded here and nothing it holds was sent with it
 * or before it. A call this record did not see (a session resumed in another process, a call made
 * without the host) vouches for nothing, and neither does any call made once the record is full
 * (`maxChars`) or after a call too large to record (`MAX_LEAVES`): nothing is forgotten quietly.
 */
import { isTrustedWord } from "./origins.js";

/** One call's text: its parts' folded words, joined; `bounds` holds every word's start and each part's end. */
interface Sent {
  doc: string;
  bounds: Int32Array;
}

/** Parts read of one value at most: past it the call cannot be told apart, and is not recorded. */
const MAX_LEAVES = 100_000;
/** Words shorter than this are indexed whole; longer ones by their first SHORT characters. */
const SHORT = 8;
/** A value's letters and digits, at least this many, count when an earlier call sent them; fewer, only its own call (see `echoes`). */
const ACROSS_CALLS = 3;

export class CallInputs {
  /** the recorded calls in the order made: `sent[k]` is seq k + 1 */
  private readonly sent: Sent[] = [];
  /** word (shorter than SHORT) → the first seq that sent it */
  private readonly short = new Map<string, number>();
  /** a longer word's first SHORT characters → the first seq that sent such a word */
  private readonly long = new Map<string, number>();
  /**
   * step → its call's span: `from`, when it was made, `to`, when it was answered (a step made
   * again, after a restart, is the later call)
   */
  private readonly spans = new Map<number, { from: number; to: number }>();
  /** calls from this seq on were not recorded (too large, or past `maxChars`) */
  private overflowFrom = Infinity;
  private chars = 0;
  private memo: { value: unknown; seq: number; parts: string[] | undefined; first: number } | undefined;

  /** `onFull`: told once, when a call is first not recorded (from then on no later result vouches) */
  constructor(private readonly maxChars = 16 * 1024 * 1024, private readonly onFull?: (why: string) => void) {}

  /**
   * What the call at `step` sent (an allowed check's arguments, with the origins it was checked
   * with), or, with no step, something else the host forwarded (no result of its own).
   */
  note(step: number | undefined, args: unknown, origins?: Readonly<Record<string, unknown>>): void {
    const seq = this.sent.length + 1;
    if (step !== undefined && step >= 0) this.spans.set(step, { from: seq, to: seq });
    const parts: string[] = [];
    let ok = true;
    if (isPlainObject(args) && origins) {
      for (const k of Object.keys(args)) {
        if (trusted(Object.hasOwn(origins, k) ? origins[k] : undefined)) continue;
        if (!leavesOf(args[k], parts, true)) ok = false;
      }
    } else ok = leavesOf(args, parts, true);
    const sent = ok && seq < this.overflowFrom ? sentOf(parts) : undefined;
    if (sent && this.chars + sent.doc.length + sent.bounds.length <= this.maxChars) {
      this.chars += sent.doc.length + sent.bounds.length;
      this.index(sent, seq);
      this.sent.push(sent);
    } else {
      if (this.overflowFrom === Infinity) this.onFull?.(ok ? `what the calls sent passed ${this.maxChars} characters` : `a call sent more than ${MAX_LEAVES} values`);
      this.overflowFrom = Math.min(this.overflowFrom, seq);
      this.sent.push({ doc: "", bounds: new Int32Array(0) });
    }
  }

  /**
   * The call at `step` got its result now: what was sent while it ran (a message the client's model
   * wrote to the tool server for it, another client's call) counts as sent before its result.
   */
  answered(step: number): void {
    const span = this.spans.get(step);
    if (span) span.to = this.sent.length;
  }

  /** Whether `value`, held by the result of the call at `step`, may not vouch for it (see above). */
  echoes(step: number, value: unknown): boolean {
    const span = this.spans.get(step);
    if (span === undefined || span.to >= this.overflowFrom) return true;
    const { parts, first } = this.firstSent(value);
    // a value that is no JSON data cannot be told from an argument: no result vouches for it
    if (parts === undefined || first <= span.to) return true;
    // A value of one or two letters or digits (`1`, `50`, `EU`) is sent for every other reason (a
    // page, a limit): one sent by an earlier call is no echo, only one this very call was sent.
    return parts.some((s) => s.length > 0 && s.length < ACROSS_CALLS && this.sentIn(s, span.from, span.to));
  }

  /**
   * A value's parts (its words joined) and the first seq that sent one of at least ACROSS_CALLS
   * characters as a run of whole words (Infinity: never); kept for the next holder of the value.
   */
  private firstSent(value: unknown): { parts: string[] | undefined; first: number } {
    const m = this.memo;
    if (m && m.value === value && m.seq === this.sent.length) return m;
    const leaves: string[] = [];
    const parts = leavesOf(value, leaves, false) ? leaves.map((p) => wordsOf(p).join("")) : undefined;
    let first = Infinity;
    for (const s of parts ?? []) if (s.length >= ACROSS_CALLS) first = Math.min(first, this.firstRun(s));
    this.memo = { value, seq: this.sent.length, parts, first };
    return this.memo;
  }

  /** `s` was sent as a run of whole words by a call of seq `from` to `to`. */
  private sentIn(s: string, from: number, to: number): boolean {
    for (let i = from - 1; i < Math.min(to, this.sent.length); i++) if (runIn(this.sent[i]!, s)) return true;
    return false;
  }

  /** The first seq that sent `s` (a value's words, joined) as a run of whole words; Infinity when none. */
  private firstRun(s: string): number {
    if (s.length === 0) return Infinity; // no letter or digit: nothing to launder
    // A run starts with a word that begins `s`: no call before the first such word can hold it.
    let from = Infinity;
    for (let k = 1; k <= Math.min(s.length, SHORT - 1); k++) from = Math.min(from, this.short.get(s.slice(0, k)) ?? Infinity);
    if (s.length >= SHORT) from = Math.min(from, this.long.get(s.slice(0, SHORT)) ?? Infinity);
    for (let i = from - 1; i < this.sent.length; i++) if (runIn(this.sent[i]!, s)) return i + 1;
    return Infinity;
  }

  private index(sent: Sent, seq: number): void {
    const { doc, bounds } = sent;
    for (let b = 0; b + 1 < bounds.length; b++) {
      const start = bounds[b]!;
      const end = bounds[b + 1]!;
      if (end <= start || doc.charCodeAt(start) === 0) continue;
      const word = doc.slice(start, end);
      const [map, key] = word.length < SHORT ? [this.short, word] : [this.long, word.slice(0, SHORT)];
      if (!map.has(key)) map.set(key, seq);
    }
  }
}

/**
 * Trusted origins (origins.ts): their values were not the model's to choose. A `result:` counts
 * only as an inferred origin that brings no label (a value out of an untrusted read, sent on to a
 * lookup that hands it back, must stay labelled); said as a bare word, its labels are unknown.
 */
function trusted(o: unknown): boolean {
  if (typeof o === "string") return isTrustedWord(o);
  if (!isPlainObject(o) || typeof o.origin !== "string" || !Array.isArray(o.labels) || o.labels.length > 0) return false;
  return isTrustedWord(o.origin) || o.origin.startsWith("result:");
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (x === null || typeof x !== "object" || Array.isArray(x)) return false;
  const p = Object.getPrototypeOf(x);
  return p === Object.prototype || p === null;
}

/**
 * Every string, number, boolean and null of `x` (and, with `keys`, its objects' keys), folded,
 * into `out`, numbers also as the number they spell; false when it is no JSON data or too big.
 */
function leavesOf(x: unknown, out: string[], keys: boolean): boolean {
  const stack: unknown[] = [x];
  let n = 0;
  while (stack.length > 0) {
    if (++n > MAX_LEAVES) return false;
    const v = stack.pop();
    if (v === undefined) continue; // nothing sent (JSON leaves it out)
    if (typeof v === "string") {
      out.push(fold(v));
      const num = numbersIn(v);
      if (num) out.push(...num);
    } else if (typeof v === "number") {
      if (!Number.isFinite(v)) return false;
      out.push(String(v));
    } else if (v === null || typeof v === "boolean") out.push(String(v));
    else if (Array.isArray(v)) for (const y of v) stack.push(y);
    else if (isPlainObject(v)) {
      for (const k of Object.keys(v)) {
        if (keys) out.push(fold(k));
        stack.push(v[k]);
      }
    } else return false;
  }
  return true;
}

/** `4,000`, `4.000,5`, `4e3`, `1 000`: the numbers a text that is only a number may spell. */
const NUMBER_TEXT = /^\s*[+-]?(?=[\d.,])[\d\s.,_']*(?:[eE][+-]?\d+)?\s*$/;
function numbersIn(s: string): string[] | undefined {
  if (s.length > 64 || !NUMBER_TEXT.test(s)) return undefined;
  const bare = s.replace(/[\s_']/g, "");
  const out: string[] = [];
  for (const t of [bare.replace(/,/g, ""), bare.replace(/\./g, "").replace(/,/g, ".")]) {
    const n = Number(t);
    if (t !== "" && Number.isFinite(n) && !out.includes(String(n))) out.push(String(n));
  }
  return out;
}

/** The same text whatever its case, width, accents, digits' script or invisible characters. */
function fold(s: string): string {
  // ASCII has no compatibility forms, marks, other digits or invisible characters: most values are, and skip it
  if (!NOT_ASCII.test(s)) return s.toUpperCase().toLowerCase();
  // lower, upper, lower: `ẞ` and `ß` both end as `ss`, as a tool that upper-cases them writes them
  const t = s.normalize("NFKD").replace(INVISIBLE, "").replace(DIGIT, asciiDigit);
  return t.toLowerCase().toUpperCase().toLowerCase();
}
const NOT_ASCII = /[^\x00-\x7f]/;
// marks, format characters, and what else draws nothing (Hangul fillers are letters that draw nothing)
const INVISIBLE = /[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const DIGIT = /[^\x00-\x7f](?<=\p{Nd})/gu;
/** A decimal digit of any script as its ASCII digit: digits come in runs of ten from 0. */
function asciiDigit(d: string): string {
  const cp = d.codePointAt(0)!;
  let zero = cp;
  while (zero > cp - 9 && ND.test(String.fromCodePoint(zero - 1))) zero--;
  return String((cp - zero) % 10);
}
const ND = /^\p{Nd}$/u;

const WORDS = /[\p{L}\p{N}]+/gu;
function wordsOf(folded: string): string[] {
  return folded.match(WORDS) ?? [];
}

/** A call's parts as one text of words (NUL between parts) and where each word starts. */
function sentOf(parts: readonly string[]): Sent {
  let doc = "";
  const bounds: number[] = [];
  for (const p of parts) {
    const ws = wordsOf(p);
    if (ws.length === 0) continue;
    for (const w of ws) {
      bounds.push(doc.length);
      doc += w;
    }
    bounds.push(doc.length);
    doc += "\u0000";
  }
  return { doc, bounds: Int32Array.from(bounds) };
}

/** `s` is a run of whole words of `sent`: it occurs starting and ending at word bounds. */
function runIn(sent: Sent, s: string): boolean {
  const { doc, bounds } = sent;
  for (let i = doc.indexOf(s); i >= 0; i = doc.indexOf(s, i + 1)) if (hasBound(bounds, i) && hasBound(bounds, i + s.length)) return true;
  return false;
}

function hasBound(bounds: Int32Array, at: number): boolean {
  let lo = 0;
  let hi = bounds.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = bounds[mid]!;
    if (b === at) return true;
    if (b < at) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}
