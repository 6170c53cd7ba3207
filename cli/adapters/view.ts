/**
 * The inference view of a session (engine `viewOfHistory`: its turns, and the calls that were
 * allowed and last reported `ran`), kept up to date entry by entry instead of rebuilt per call.
 * A session's `history.entries` is a watched view (every read goes through a Proxy, so edits are
 * detected), and origin inference walks results value by value: rebuilding the view from it on
 * every call costs time in the length of the history. Here each new entry is read once, and a
 * result that ran is copied as plain data; the folded turns are rebuilt only when a turn arrives.
 *
 * Same answer as `viewOfHistory` (test/adapters/view.test.ts compares them on random histories).
 * A history that got shorter, or whose last seen link changed (a new history after
 * `history_invalid`, a resumed copy), is read again from the start. An entry edited in place is
 * not seen here — and the check refuses that history (`history_invalid`) whatever was inferred.
 */
import { prepareView } from "../../worker/portable/engine/index.js";
import type { CompiledCatalogue, Entry, Language, PreparedView, RecordedResult } from "../../worker/portable/engine/index.js";

export class HistoryMirror {
  private seen = 0;
  private lastLink = "";
  private turns: string[] = [];
  private folded: PreparedView["turns"] | undefined;
  private readonly allowed = new Map<number, { tool: string; labels: string[] }>();
  private readonly outcomes = new Map<number, { outcome: string; result: unknown }>();
  /** by step, ascending (inference reads the latest first) */
  private results: RecordedResult[] = [];

  constructor(
    private readonly catalogue: () => CompiledCatalogue,
    private readonly language: () => Language,
    private readonly context: Readonly<Record<string, unknown>>,
  ) {}

  view(entries: readonly Entry[]): PreparedView {
    const n = entries.length;
    if (n < this.seen || (this.seen > 0 && entries[this.seen - 1]?.link !== this.lastLink)) this.reset();
    for (let k = this.seen; k < n; k++) this.add(entries[k]!);
    if (n > this.seen) this.lastLink = entries[n - 1]?.link ?? "";
    this.seen = n;
    this.folded ??= prepareView({ language: this.language(), turns: this.turns, results: [], context: {} }).turns;
    return { turns: this.folded, results: this.results, context: this.context };
  }

  /** The turns read so far, as the person typed them. */
  turnTexts(entries: readonly Entry[]): readonly string[] {
    this.view(entries);
    return this.turns;
  }

  /** Read once, field by field (each read of the watched view is a trap): only what the view keeps. */
  private add(e: Entry): void {
    switch (e.kind) {
      case "turn":
        this.turns.push(e.text);
        this.folded = undefined;
        return;
      case "check":
        if (e.decision === "allow") this.allowed.set(e.step, { tool: e.tool, labels: [...e.labels] });
        return this.settle(e.step);
      case "report": {
        const result = e.outcome === "ran" && e.result !== null && typeof e.result === "object" ? (JSON.parse(JSON.stringify(e.result)) as unknown) : e.result;
        this.outcomes.set(e.of, { outcome: e.outcome, result });
        return this.settle(e.of);
      }
    }
  }

  /** Step `step` is a result a `result:` origin may name exactly when it was allowed and last ran. */
  private settle(step: number): void {
    const at = this.indexOf(step);
    const present = at < this.results.length && this.results[at]!.step === step;
    const check = this.allowed.get(step);
    const report = this.outcomes.get(step);
    const tool = check ? this.catalogue().tools.get(check.tool) : undefined;
    if (!check || !tool || report?.outcome !== "ran") {
      if (present) this.results.splice(at, 1);
      return;
    }
    const r: RecordedResult = {
      step, tool: check.tool, labels: check.labels, result: report.result, readsOutside: tool.readsOutside,
      ...(tool.returnsSchema ? { returns: tool.returnsSchema } : {}),
    };
    if (present) this.results[at] = r;
    else this.results.splice(at, 0, r);
  }

  /** Where `step` is or would go in `results` (reports come for recent steps: search from the end). */
  private indexOf(step: number): number {
    let i = this.results.length;
    while (i > 0 && this.results[i - 1]!.step >= step) i--;
    return i;
  }

  private reset(): void {
    this.seen = 0;
    this.lastLink = "";
    this.turns = [];
    this.folded = undefined;
    this.allowed.clear();
    this.outcomes.clear();
    this.results = [];
  }
}
