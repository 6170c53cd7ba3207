/**
 * The guard's per-call records in the host's approvals store (approvals.ts). A store that throws
 * is an answer here (the error), never a throw into the framework's loop: the guard decides what a
 * record it cannot read or keep means (nothing runs on it).
 */
import type { ApprovalStore, PendingApproval } from "./approvals.js";
import { isThenable } from "./data.js";

export class CallRecords {
  constructor(readonly store: ApprovalStore) {}

  /** The record kept for a call id, or the error the host's store answered with. */
  async get(callId: string): Promise<PendingApproval | undefined | Error> {
    try {
      return await this.store.get(callId);
    } catch (err) {
      return asError(err);
    }
  }

  /** Keep a record: undefined, or the error the host's store answered with. */
  async set(callId: string, record: PendingApproval): Promise<Error | undefined> {
    try {
      await this.store.set(callId, record);
      return undefined;
    } catch (err) {
      return asError(err);
    }
  }

  /** A record whose id now names another call: dropped where the store can (else it is stale anyway). */
  async delete(callId: string): Promise<Error | undefined> {
    try {
      await this.store.delete?.(callId);
      return undefined;
    } catch (err) {
      return asError(err);
    }
  }
}

/**
 * Mark the record of `callId` used and rejected, when `covers` says it is of the rejected call and
 * it is unspent. A store that answers at once is written at once (an async function runs up to its
 * first `await`): a host that saves the store right after `state.reject(item)` keeps the rejection.
 */
export async function denyRecord(records: CallRecords, callId: string, covers: (p: PendingApproval) => boolean): Promise<Error | undefined> {
  let p: PendingApproval | undefined;
  try {
    const got = records.store.get(callId);
    p = isThenable(got) ? await got : got;
  } catch (err) {
    return asError(err);
  }
  if (!p || p.waits !== undefined || p.used || !covers(p)) return undefined;
  return records.set(callId, { ...p, used: true, denied: true });
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
