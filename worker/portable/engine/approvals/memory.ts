/**
 * The approval store in memory: tests, and the logic a Durable Object keeps in its storage. What
 * it is handed and what it hands out are copies (`cloneData`), as the Durable Object's storage
 * would make them: a caller that changes its object later changes nothing stored.
 */
import { decideProblem, newestFirst, standingKey, standingKeyOf, type Approval, type ApprovalStore, type DecideAnswer, type PendingRecord } from "./record.js";
import type { SignedReceipt } from "./receipts.js";
import { cloneData } from "../canonical/clone.js";

export class MemoryApprovalStore implements ApprovalStore {
  private readonly byId = new Map<string, Approval>();
  /** the newest standing approval of each call (record.ts `standingKey`): a confirm does not list the store */
  private readonly standingBy = new Map<string, Approval>();

  add(record: PendingRecord): void {
    if (this.byId.has(record.id)) throw new Error(`approval ${record.id} exists`);
    this.byId.set(record.id, { record: cloneData(record), receipt: null, used: false });
  }
  get(id: string): Approval | undefined {
    const a = this.byId.get(id);
    return a ? cloneData(a) : undefined;
  }
  list(): Approval[] {
    return [...this.byId.values()].map((a) => cloneData(a)).sort(newestFirst);
  }
  standing(session: string, tool: string, agent: string | null, digest: string): Approval | undefined {
    const a = this.standingBy.get(standingKey(session, tool, agent, digest));
    return a && !a.withdrawn ? cloneData(a) : undefined;
  }
  decide(id: string, receipt: SignedReceipt, now: number): DecideAnswer {
    const a = this.byId.get(id);
    const why = decideProblem(a, receipt, now);
    if (why || !a) return { ok: false, why: why ?? "unknown", ...(a ? { approval: cloneData(a) } : {}) };
    a.receipt = cloneData(receipt);
    const key = standingKeyOf(a);
    const was = key === null ? undefined : this.standingBy.get(key);
    if (key !== null && (!was || newestFirst(a, was) < 0)) this.standingBy.set(key, a);
    return { ok: true, approval: cloneData(a) };
  }
  markUsed(id: string): boolean {
    const a = this.byId.get(id);
    if (!a || a.used || a.withdrawn || (a.receipt && a.receipt.decision !== "approve")) return false;
    a.used = true;
    return true;
  }
  withdraw(id: string): boolean {
    const a = this.byId.get(id);
    if (!a || a.used || a.withdrawn || (a.receipt && a.receipt.decision !== "approve")) return false;
    a.withdrawn = true;
    return true;
  }
}
