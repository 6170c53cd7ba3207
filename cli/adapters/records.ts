/**
 * The guard's per-call records in the host's approvals store (approvals.ts). A store that throws
 * is an answer here (the error), never a throw into the framework's loop: the guard decides what a
 * record it cannot read or keep means (nothing runs on it).
 *
 * A record is kept under its session and call id (`recordKey`): one store may serve many
 * conversations, and providers reuse call ids (`call_0` in each), so by call id alone one
 * conversation's call would take another's record and question (outside audit 7, F4).
 */
import type { ApprovalStore, PendingApproval } from "./approvals.js";
import { isThenable } from "./data.js";

export class CallRecords {
  constructor(readonly store: ApprovalStore, private readonly session: string) {}

  /** The store's key of a call's record: its session and call id, as JSON (`["billing-7","call_0"]`). */
  key(callId: string): string {
    return recordKey(this.session, callId);
  }

  /** The record kept for a call id, or the error the host's store answered with. */
  async get(callId: string): Promise<PendingApproval | undefined | Error> {
    try {
      return await this.store.get(this.key(callId));
    } catch (err) {
      return asError(err);
    }
  }

  /** Keep a record: undefined, or the error the host's store answered with. */
  async set(callId: string, record: PendingApproval): Promise<Error | undefined> {
    try {
      await this.store.set(this.key(callId), record);
      return undefined;
    } catch (err) {
      return asError(err);
    }
  }

  /** A record whose id now names another call: dropped where the store can (else it is stale anyway). */
  async delete(callId: string): Promise<Error | undefined> {
    try {
      await this.store.delete?.(this.key(callId));
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
    const got = records.store.get(records.key(callId));
    p = isThenable(got) ? await got : got;
  } catch (err) {
    return asError(err);
  }
  if (!p || p.waits !== undefined || p.used || !covers(p)) return undefined;
  return records.set(callId, { ...p, used: true, denied: true });
}

/** The approvals store's key of the record of call `callId` in session `session`. */
export function recordKey(session: string, callId: string): string {
  return JSON.stringify([session, callId]);
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
