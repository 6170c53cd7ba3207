/**
 * What the calls a host made were sent (what `InferOptions.inputs` reads): every string, number,
 * boolean and object key at any depth of their arguments, folded (NFKC, lower case), in the order
 * the calls were made. A result does not vouch for a value that was sent before it or with its own
 * call, found as a whole word of something sent: a read can hand back what it was given nested,
 * trimmed, lower-cased, with a prefix cut, or in a later call (a cache, "recent searches"), and
 * none of that makes the model's value the tool's (outside audit 22, F1 and F2). A read that
 * builds something new out of it (adds to it, encodes it) answers with a value of its own.
 *
 * Bounded by what it keeps (`maxChars` of folded text): past it nothing is forgotten quietly —
 * no result vouches for anything any more, so every value is the model's.
 */
export class CallInputs {
  /** the calls' folded texts in the order made (`sent[k]` is seq k + 1): parts `\u0000`-separated, with one at each end */
  private readonly sent: string[] = [];
  /**
   * Each word (a run of letters, digits and marks) of what was sent → when it was first sent. A
   * value found in a text as a whole word has every word of its own there as a whole word, so a
   * value with a word never sent by then is no echo, without reading the texts (the usual answer
   * for a value a result found itself).
   */
  private readonly words = new Map<string, number>();
  /** step → when its call was noted (a step noted again, after a restart, is the later call) */
  private readonly seqOf = new Map<number, number>();
  private seq = 0;
  private chars = 0;
  private full = false;
  constructor(private readonly maxChars = 16 * 1024 * 1024) {}

  /** `args` of the call at `step` (an allowed check's, sent on to the tool). */
  note(step: number, args: unknown): void {
    if (step < 0 || this.full) return;
    const parts: string[] = [];
    if (!leavesOf(args, parts)) return this.forget();
    const text = parts.length > 0 ? "\u0000" + parts.join("\u0000") + "\u0000" : "";
    this.chars += text.length;
    if (this.chars > this.maxChars) return this.forget();
    const seq = ++this.seq;
    this.sent.push(text);
    this.seqOf.set(step, seq);
    for (const p of parts) for (const w of wordsOf(p)) if (!this.words.has(w)) this.words.set(w, seq);
  }

  /** Past what it keeps: nothing is forgotten quietly, so no result vouches for anything any more. */
  private forget(): void {
    this.full = true;
    this.sent.length = 0;
    this.words.clear();
    this.seqOf.clear();
  }

  /**
   * Whether `value`, held by the result of the call at `step`, was sent before it or with its
   * call. A step this host did not call (a resumed history's) is read against everything sent.
   */
  echoes(step: number, value: unknown): boolean {
    if (this.full) return true;
    if (this.sent.length === 0) return false;
    const parts: string[] = [];
    // a value that is no JSON data cannot be told from an argument: no result vouches for it
    if (!leavesOf(value, parts)) return true;
    const until = this.seqOf.get(step) ?? Infinity;
    for (const p of parts) {
      const ws = wordsOf(p);
      // no call before the one that first sent its last new word can hold it whole
      let from = 1;
      for (const w of ws) {
        const first = this.words.get(w);
        if (first === undefined || first > until) from = Infinity;
        else if (first > from) from = first;
      }
      for (let i = from - 1, end = Math.min(this.sent.length, until); i < end; i++) if (wordIn(this.sent[i]!, p)) return true;
    }
    return false;
  }
}

const WORDS = /[\p{L}\p{N}\p{M}]+/gu;
const wordsOf = (s: string): string[] => s.match(WORDS) ?? [];

/** Nodes read of one value at most: past it the value cannot be told from an argument. */
const MAX_LEAVES = 100_000;

/** Every string, number, boolean, null and object key of `x`, folded, into `out`; false when it is no JSON data or too big. */
function leavesOf(x: unknown, out: string[]): boolean {
  const stack: unknown[] = [x];
  let n = 0;
  while (stack.length > 0) {
    if (++n > MAX_LEAVES) return false;
    const v = stack.pop();
    if (typeof v === "string") out.push(fold(v));
    else if (typeof v === "number") {
      if (!Number.isFinite(v)) return false;
      out.push(String(v));
    } else if (v === null || typeof v === "boolean") out.push(String(v));
    else if (Array.isArray(v)) for (const y of v) stack.push(y);
    else if (typeof v === "object" && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
      for (const k of Object.keys(v)) {
        out.push(fold(k));
        stack.push((v as Record<string, unknown>)[k]);
      }
    } else return false;
  }
  return true;
}

/** The same text whatever its case, width or composed form, without the spaces around it. */
function fold(s: string): string {
  // ASCII is its own NFKC form: most values are, and normalising them anyway costs
  return (NOT_ASCII.test(s) ? s.normalize("NFKC") : s).toLowerCase().trim();
}
const NOT_ASCII = /[^\x00-\x7f]/;

const WORD = /[\p{L}\p{N}\p{M}]/u;
const wordAt = (s: string, i: number): boolean => i >= 0 && i < s.length && WORD.test(String.fromCodePoint(s.codePointAt(i)!));
/** The code point that ends just before `i` (a surrogate pair read whole). */
const wordBefore = (s: string, i: number): boolean => {
  if (i <= 0) return false;
  const lo = s.charCodeAt(i - 1);
  return wordAt(s, lo >= 0xdc00 && lo <= 0xdfff && i >= 2 ? i - 2 : i - 1);
};

/**
 * `p` occurs in `text` as a whole word: where `p` starts (ends) with a letter or digit, the
 * character before (after) it is none. `text` is a call's parts joined by `\u0000`.
 */
function wordIn(text: string, p: string): boolean {
  if (p.length === 0) return text.includes("\u0000\u0000");
  const startsWord = wordAt(p, 0);
  const endsWord = wordBefore(p, p.length);
  for (let i = text.indexOf(p); i >= 0; i = text.indexOf(p, i + 1)) {
    if (startsWord && wordBefore(text, i)) continue;
    if (endsWord && wordAt(text, i + p.length)) continue;
    return true;
  }
  return false;
}
