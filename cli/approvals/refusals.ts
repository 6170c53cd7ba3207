/**
 * A person's "no" kept where deleting a file cannot take it back. A receipt under
 * `approvals/receipts/` is a file the host may delete; the token it refuses would then cover its
 * call again. So a deny or an edit also spends `refused:<token MAC>` in the asking session's state
 * in the home's store (its deletion, rollback or damage is refused, never a reset: STORAGE.md),
 * and step 10 answers `denied` for a token named there.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { refusedName, type PendingRecord } from "../../worker/portable/engine/index.js";
import { nodeState } from "../sdk/state/index.js";

const TRIES = 16;

/**
 * Spend the refusal of `record`'s token in its session's state. A home without a store holds no
 * in-process session that could present the token (a gateway checking on a worker keeps none
 * here): nothing to write. Throws what the store throws (damaged, unreadable). `at`: the decision's
 * time, the store's clock for this write.
 */
export function keepRefusal(home: string, record: PendingRecord, at: number): void {
  if (!existsSync(join(home, "state.mdb"))) return;
  const store = nodeState(home, { now: () => at });
  const name = refusedName(record.token);
  for (let i = 0; i < TRIES; i++) {
    const head = store.load(record.session).head ?? { count: 0, link: "" };
    // the head stays where it is: only the name is added, or the session moved on meanwhile and
    // the compare-and-set is tried again on its new head
    const r = store.commit(record.session, { expect: head, next: head, spend: [name] });
    if (r.ok || r.why === "spent") return;
  }
  throw new Error(`the session \`${record.session}\` kept moving on: its refusal was not kept after ${TRIES} tries`);
}

/**
 * Whether the home's store holds a refusal of `record`'s token: a person denied or edited its
 * call, whatever the receipt files say now (a receipt deleted leaves its record undecided on
 * disk). A home without a store has none.
 */
export function refusalKept(home: string, record: PendingRecord): boolean {
  if (!existsSync(join(home, "state.mdb"))) return false;
  return nodeState(home).load(record.session).spent.has(refusedName(record.token));
}
