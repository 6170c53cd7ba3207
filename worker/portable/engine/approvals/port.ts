/**
 * What a session's guarded steps need of the approvals (issue 12): the store where every
 * `confirm` of `run()` becomes a pending record, a way to decide one (signing its receipt under
 * the installation or tenant key) and, for counters, the catalogue. The SDK gives one per session;
 * without it `run()` waits in memory only, as before.
 */
import type { CompiledCatalogue } from "../catalogue/types.js";
import type { DecisionInput } from "./receipts.js";
import type { Approval, ApprovalStore } from "./record.js";

export interface ApprovalPort {
  store: ApprovalStore;
  /** decide a record (the SDK's own `approve(step)` / `deny(step)`, and standing approvals) */
  decide(id: string, d: DecisionInput): Promise<Approval>;
  catalogue?: CompiledCatalogue | undefined;
  /** how often `run(…, {wait})` reads the store (default 100 ms) */
  pollMs?: number;
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
    out[k] = same && was !== undefined ? was : "reply";
  }
  return out;
}
