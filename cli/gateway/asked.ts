/**
 * The pending confirmations this gateway put in the approval store and has not seen settled. The
 * gateway's session lives in its memory only: once the process stops, no later process can spend
 * a token of it (a new gateway is a new session, with a history of its own). A record left
 * pending would ask a person to decide a call that can no longer run, and their approval would
 * let nothing through: the same call, made again, is asked again under a new id. So as the
 * gateway stops, each such record is withdrawn (record.ts `withdraw`); a record already used,
 * denied, edited or expired is left as it is. A gateway that is killed withdraws nothing: its
 * records expire with their tokens.
 */
import type { ApprovalStore } from "../../worker/portable/engine/index.js";

export class AskedRecords {
  private readonly open = new Set<string>();

  /** `store` undefined: the session outlives this gateway (the caller's own, or the check worker's), nothing is withdrawn */
  constructor(private readonly store: ApprovalStore | undefined) {}

  asked(id: string): void {
    if (this.store?.withdraw) this.open.add(id);
  }

  /** The record was used, denied or edited: nothing to withdraw. */
  settled(id: string): void {
    this.open.delete(id);
  }

  /** Every record still open, withdrawn; never throws (the gateway is stopping). Returns how many were. */
  async withdrawAll(now: number, log: (line: string) => void): Promise<number> {
    const store = this.store;
    let n = 0;
    for (const id of this.open) {
      try {
        const a = await store?.get(id);
        // an expired record is closed by the clock already, and says so
        if (a && now < a.record.expires && (await store?.withdraw?.(id))) n++;
      } catch (err) {
        log(`pending ${id} not withdrawn: ${(err as Error).message}`);
      }
    }
    this.open.clear();
    if (n > 0) log(`withdrew ${n} pending confirmation${n === 1 ? "" : "s"}: this gateway's session ends as it stops, so no later call can use them`);
    return n;
  }
}
