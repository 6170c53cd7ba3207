/**
 * The results a `result:` origin may name, kept entry by entry: a step's result counts exactly
 * while its check was allowed and its last report is `ran`. One ledger for the two views that
 * follow a history as it grows (follow.ts over the engine's own entries, the adapters' mirror over
 * the caller's copy), so both settle a step the same way.
 */
import type { CompiledCatalogue } from "../catalogue/types.js";
import { ResultIndex, type RecordedResult } from "./infer.js";

export class RecordedResults {
  private readonly allowed = new Map<number, { tool: string; labels: readonly string[] }>();
  private readonly outcomes = new Map<number, { outcome: string; result: unknown }>();
  /** by step, ascending (inference reads the latest first); replaced, not emptied, by clear() */
  results: RecordedResult[] = [];
  index = new ResultIndex();

  constructor(private readonly catalogue: () => CompiledCatalogue) {}

  check(step: number, tool: string, decision: string, labels: readonly string[]): void {
    if (decision === "allow") this.allowed.set(step, { tool, labels: [...labels] });
    this.settle(step);
  }

  report(of: number, outcome: string, result: unknown): void {
    this.outcomes.set(of, { outcome, result });
    this.settle(of);
  }

  clear(): void {
    this.allowed.clear();
    this.outcomes.clear();
    this.results = [];
    this.index = new ResultIndex();
  }

  private settle(step: number): void {
    const at = this.indexOf(step);
    const present = at < this.results.length && this.results[at]!.step === step;
    const check = this.allowed.get(step);
    const report = this.outcomes.get(step);
    const tool = check ? this.catalogue().tools.get(check.tool) : undefined;
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

  /** Where `step` is or would go in `results` (reports come for recent steps: search from the end). */
  private indexOf(step: number): number {
    let i = this.results.length;
    while (i > 0 && this.results[i - 1]!.step >= step) i--;
    return i;
  }
}
