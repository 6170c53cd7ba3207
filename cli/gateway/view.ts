/**
 * The session's history as origin inference reads it (engine `viewOfHistory`), kept up to date
 * call by call instead of rebuilt from every entry on every call. The SDK hands the history out
 * through a watching Proxy (engine history/watched.ts), so reading all of it costs microseconds per
 * entry; a gateway session grows by two entries a call, and rebuilding made each call slower than
 * the last (9 ms at 1,400 entries). Here each new entry is read once, as a plain copy.
 *
 * Same rules as `viewOfHistory`: the person's turns; the calls that were allowed and whose last
 * report says `ran`, with their tool's `returns` and `reads_outside`. A history that is not the
 * one seen before (shorter, or another first entry) is read again from the start.
 */
import type { CompiledCatalogue, Entry, InferenceView, Language, RecordedResult } from "../../worker/portable/engine/index.js";
import { jsonData } from "../../worker/portable/engine/index.js";

export class HistoryView {
  private seen = 0;
  private first: string | undefined;
  private turns: string[] = [];
  private allowed = new Map<number, { tool: string; labels: readonly string[] }>();
  private ran = new Map<number, RecordedResult>();
  private sorted: RecordedResult[] | undefined = [];

  constructor(
    private readonly catalogue: CompiledCatalogue,
    private readonly language: Language,
    private readonly context: Readonly<Record<string, unknown>>,
  ) {}

  view(entries: readonly Entry[]): InferenceView {
    const n = entries.length;
    if (n < this.seen || (this.seen > 0 && entries[0]?.link !== this.first)) this.reset();
    for (let i = this.seen; i < n; i++) {
      // one plain copy per entry: later reads do not go through the history's Proxy
      const e = jsonData(entries[i]) as Entry;
      if (i === 0) this.first = e.link;
      this.fold(e);
    }
    this.seen = n;
    this.sorted ??= [...this.ran.values()].sort((a, b) => a.step - b.step);
    return { language: this.language, turns: this.turns, results: this.sorted, context: this.context };
  }

  private fold(e: Entry): void {
    if (e.kind === "turn") this.turns.push(e.text);
    else if (e.kind === "check") {
      if (e.decision === "allow") this.allowed.set(e.step, { tool: e.tool, labels: e.labels });
    } else if (e.kind === "report") {
      // the last report of a step decides
      const check = this.allowed.get(e.of);
      const tool = check ? this.catalogue.tools.get(check.tool) : undefined;
      const had = this.ran.delete(e.of);
      if (check && tool && e.outcome === "ran") {
        const r: RecordedResult = { step: e.of, tool: check.tool, labels: check.labels, result: e.result, readsOutside: tool.readsOutside, ...(tool.returnsSchema ? { returns: tool.returnsSchema } : {}) };
        const last = this.sorted?.at(-1);
        this.ran.set(e.of, r);
        // reports mostly come in step order: append; anything else sorts again once
        if (!had && this.sorted && (last === undefined || last.step < e.of)) this.sorted.push(r);
        else this.sorted = undefined;
      } else if (had) this.sorted = undefined;
    }
  }

  private reset(): void {
    this.seen = 0;
    this.first = undefined;
    this.turns = [];
    this.allowed.clear();
    this.ran.clear();
    this.sorted = [];
  }
}
