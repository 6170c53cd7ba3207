/**
 * What a session's guarded steps need of the approvals (issue 12): the store where every
 * `confirm` of `run()` becomes a pending record, a way to decide one (signing its receipt under
 * the installation or tenant key) and, for counters, the catalogue. The SDK gives one per session;
 * without it `run()` waits in memory only, as before.
 */
import type { CompiledCatalogue } from "../catalogue/types.js";
import type { DecisionInput, SignedReceipt } from "./receipts.js";
import type { Approval, ApprovalStore } from "./record.js";
import type { CounterStore } from "../counters/store.js";
import type { Entry } from "../history/entry.js";

export interface ApprovalPort {
  store: ApprovalStore;
  /** decide a record (the SDK's own `approve(step)` / `deny(step)`, and standing approvals) */
  decide(id: string, d: DecisionInput): Promise<Approval>;
  /**
   * What is wrong with a receipt read from the store under the key `decide` signs with (null: it
   * verifies). A standing approval approves later asks only when its receipt verifies: the store
   * may be files anyone with the home can edit.
   */
  receiptProblem(receipt: SignedReceipt): string | null;
  catalogue?: CompiledCatalogue | undefined;
  /** how often `run(…, {wait})` reads the store (default 100 ms) */
  pollMs?: number;
  /** the session's counters, for a record's before → after (counts.ts); without, they stay unknown */
  counters?: CounterStore | undefined;
  /** the session's entries (which run a `per: run` counter is in) */
  entries?: (() => readonly Entry[]) | undefined;
  /**
   * The store holds the record already (a check worker creates it as it answers `confirm`):
   * `run()` only waits for it, under the id the token names.
   */
  recordedByChecker?: boolean;
}

/**
 * The origins of an edited call: every argument the person changed or added is `reply` (they
 * wrote it); an unchanged one keeps the origin it had.
 */
export function editedOrigins(before: Record<string, unknown>, after: Record<string, unknown>, origins: Readonly<Record<string, string>> | undefined, canonical: (v: unknown) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of Object.keys(after)) {
    const same = Object.hasOwn(before, k) && canonical(before[k]) === canonical(after[k]);
    const was = origins && Object.hasOwn(origins, k) ? origins[k] : undefined;
    // an own key even when it is named `__proto__`
    Object.defineProperty(out, k, { value: same && was !== undefined ? was : "reply", enumerable: true, writable: true, configurable: true });
  }
  return out;
}
