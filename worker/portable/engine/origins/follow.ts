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
import type { PreparedView } from "./infer.js";
import { RecordedResults } from "./recorded-results.js";

export interface FollowedView {
  view: PreparedView;
  /** the person's turns, as they typed them, in order */
  turns: readonly string[];
}

export class ViewFollower {
  private epoch: HistoryIndex | undefined;
  private seen = 0;
  private texts: string[] = [];
  private readonly recorded: RecordedResults;

  constructor(catalogue: CompiledCatalogue, private readonly context: Readonly<Record<string, unknown>>) {
    this.recorded = new RecordedResults(() => catalogue);
  }

  /** The view of `entries` (the history `index` was built over, `turns` its TurnIndex). */
  view(entries: readonly Entry[], index: HistoryIndex, turns: TurnIndex): FollowedView {
    if (index !== this.epoch || entries.length < this.seen) this.reset(index);
    for (let k = this.seen; k < entries.length; k++) this.add(entries[k]!);
    this.seen = entries.length;
    return { view: { turns, results: this.recorded.results, context: this.context, index: this.recorded.index }, turns: this.texts };
  }

  private add(e: Entry): void {
    switch (e.kind) {
      case "turn":
        this.texts.push(e.text);
        return;
      case "check":
        return this.recorded.check(e.step, e.tool, e.decision, e.labels);
      case "report":
        return this.recorded.report(e.of, e.outcome, e.result);
      default:
        return;
    }
  }

  private reset(index: HistoryIndex): void {
    this.epoch = index;
    this.seen = 0;
    this.texts = [];
    this.recorded.clear();
  }
}
