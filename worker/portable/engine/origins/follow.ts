/**
 * The inference view (infer.ts) of a session's own signed entries, kept up to date as its history
 * grows: each entry is read once, when it is new, so inferring the origins of a call costs the
 * same at step 20 and at step 2,000, and a guard that starts on a long session reads nothing
 * (issue 13; the adapters' HistoryMirror does the same from the caller's copy of the entries,
 * for a session the adapter cannot see into).
 *
 * The entries are the engine's own (never edited after they are appended); a history replaced
 * after a full verification or a restart comes with a new HistoryIndex, and is read again from
 * its start. The turns are the session's own TurnIndex, kept by SignedHistory.
 */
import type { CompiledCatalogue } from "../catalogue/types.js";
import type { Entry } from "../history/entry.js";
import type { HistoryIndex } from "../history/index.js";
import type { TurnIndex } from "./typed.js";
import { ResultIndex, type PreparedView, type RecordedResult } from "./infer.js";

export interface FollowedView {
  view: PreparedView;
  /** the person's turns, as they typed them, in order */
  turns: readonly string[];
}

export class ViewFollower {
  private epoch: HistoryIndex | undefined;
  private seen = 0;
  private texts: string[] = [];
  private readonly allowed = new Map<number, { tool: string; labels: readonly string[] }>();
  private readonly outcomes = new Map<number, { outcome: string; result: unknown }>();
  /** by step, ascending (inference reads the latest first) */
  private results: RecordedResult[] = [];
  private index = new ResultIndex();

  constructor(private readonly catalogue: CompiledCatalogue, private readonly context: Readonly<Record<string, unknown>>) {}

  /** The view of `entries` (the history `index` was built over, `turns` its TurnIndex). */
  view(entries: readonly Entry[], index: HistoryIndex, turns: TurnIndex): FollowedView {
    if (index !== this.epoch || entries.length < this.seen) this.reset(index);
    for (let k = this.seen; k < entries.length; k++) this.add(entries[k]!);
    this.seen = entries.length;
    return { view: { turns, results: this.results, context: this.context, index: this.index }, turns: this.texts };
  }

  private add(e: Entry): void {
    switch (e.kind) {
      case "turn":
        this.texts.push(e.text);
        return;
      case "check":
        if (e.decision === "allow") this.allowed.set(e.step, { tool: e.tool, labels: e.labels });
        return this.settle(e.step);
      case "report":
        this.outcomes.set(e.of, { outcome: e.outcome, result: e.result });
        return this.settle(e.of);
      default:
        return;
    }
  }

  /** Step `step` is a result a `result:` origin may name exactly when it was allowed and last ran. */
  private settle(step: number): void {
    let at = this.results.length;
    while (at > 0 && this.results[at - 1]!.step >= step) at--;
    const present = at < this.results.length && this.results[at]!.step === step;
    const check = this.allowed.get(step);
    const report = this.outcomes.get(step);
    const tool = check ? this.catalogue.tools.get(check.tool) : undefined;
    if (!check || !tool || report?.outcome !== "ran") {
      if (present) this.index.remove(this.results.splice(at, 1)[0]!);
      return;
    }
    const r: RecordedResult = {
      step, tool: check.tool, labels: check.labels, result: report.result, readsOutside: tool.readsOutside,
      ...(tool.returnsSchema ? { returns: tool.returnsSchema } : {}),
    };
    if (present) {
      this.index.remove(this.results[at]!);
      this.results[at] = r;
    } else this.results.splice(at, 0, r);
    this.index.add(r);
  }

  private reset(index: HistoryIndex): void {
    this.epoch = index;
    this.seen = 0;
    this.texts = [];
    this.allowed.clear();
    this.outcomes.clear();
    this.results = [];
    this.index = new ResultIndex();
  }
}
