/**
 * The first verdict of each call not settled yet, by the framework's call id (between "needs
 * approval?" and "run"), with the tool and input it judged (`key`): a call id that comes back with
 * another input is checked anew. One allowed verdict runs one call: a run takes it, and the same
 * id and input again is checked afresh (a model that sends one call twice, a framework that runs
 * it twice). An allowed verdict let go before any run took it (another call came under its id, or
 * more than `limit` wait) is an orphan: the guard reports it `failed`, so that what it reserved is
 * not held for a call that will not run on it.
 */
import type { CheckResult } from "../../worker/portable/engine/index.js";
import type { Verdict } from "./types.js";

interface Kept {
  key: string | undefined;
  verdict: Verdict;
  /** a run of this call started on this verdict */
  taken?: boolean;
}

export class KeptVerdicts {
  private readonly kept = new Map<string, Kept>();
  private orphans: CheckResult[] = [];

  constructor(private readonly limit: number) {}

  /** how many calls' verdicts are kept (at most `limit`) */
  get size(): number {
    return this.kept.size;
  }

  /** The verdict kept for this id and input that no run has taken; one for another input is let go. */
  known(callId: string, key: string | undefined): Verdict | undefined {
    const k = this.kept.get(callId);
    if (!k) return undefined;
    if (k.key !== undefined && k.key === key) return k.taken ? undefined : k.verdict;
    this.letGo(k);
    this.kept.delete(callId);
    return undefined;
  }

  /** The same, without letting anything go. */
  peek(callId: string, key: string | undefined): Verdict | undefined {
    const k = this.kept.get(callId);
    return k && !k.taken && k.key !== undefined && k.key === key ? k.verdict : undefined;
  }

  /** Keep a call's verdict until it settles; past `limit` unsettled ones, the oldest is let go. */
  keep(callId: string, key: string | undefined, verdict: Verdict): void {
    const before = this.kept.get(callId);
    if (before) this.letGo(before);
    this.kept.delete(callId);
    this.kept.set(callId, { key, verdict });
    for (const [id, k] of this.kept) {
      if (this.kept.size <= this.limit) break;
      this.letGo(k);
      this.kept.delete(id);
    }
  }

  /** A run of this call starts on its verdict (`taken`), or — an agent tool whose nested run waits — has not (`false`). */
  take(callId: string, key: string | undefined, taken: boolean): void {
    const k = this.kept.get(callId);
    if (k && k.key !== undefined && k.key === key) k.taken = taken;
  }

  /** The call settled: its verdict is forgotten (its own outcome is reported by whoever ran it). */
  settle(callId: string): void {
    this.kept.delete(callId);
  }

  /** The allowed checks let go since the last call, to report `failed`; each handed out once. */
  drainOrphans(): CheckResult[] {
    const out = this.orphans;
    this.orphans = [];
    return out;
  }

  private letGo(k: Kept): void {
    if (k.verdict.decision === "allow" && !k.taken && k.verdict.check.step >= 0) this.orphans.push(k.verdict.check);
  }
}
