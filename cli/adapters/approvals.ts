/**
 * Where an adapter keeps the confirmation token of a call that waits for a person, by the
 * framework's call id, until the person's answer comes back through the framework (an AI SDK
 * `tool-approval-response`, an Agents JS `state.approve(item)`). The token itself is the proof:
 * bound by the check to the tool, the agent, the argument digest, the session and the history
 * entry where it was asked, spent once. The store only remembers which token belongs to which
 * call id, so an approval given in another request or process can be matched to its token — keep
 * it wherever the conversation is kept (the in-memory store serialises with `toJSON()`).
 */
import { InputError } from "../../worker/portable/engine/index.js";

export interface PendingApproval {
  v: 1;
  tool: string;
  /** the history step of the `confirm` */
  step: number;
  /** the check's confirmation token */
  token: string;
  /** the confirm's reasons, and the question the person is asked (the tool, the arguments with
   * where each came from, each reason's wording) */
  reasons: string[];
  question: string;
  /** the approved call was allowed with this token: it covers nothing more */
  used: boolean;
  /**
   * the digest of the call's tool and input: another call under the same id (a provider that
   * reuses ids) is a new call. Absent in records written before it was kept: taken as this call.
   */
  call?: string;
  /**
   * the Agents JS namespace of the tool the person was asked about (`toolNamespace`): the check's
   * token binds the catalogue's tool, which is that name in every namespace, so the approval of
   * `sandbox.delete_file` must not run `prod.delete_file` (outside audit 7, F14). Absent: no namespace.
   */
  namespace?: string;
  /** a person rejected the call (Agents JS `state.reject(item)`): `used` too, so no approval of it runs it */
  denied?: boolean;
  /**
   * `"nested"`: not a confirm. The call (an agent run as a tool) was allowed at `step`, and its
   * nested run stopped for a person's answer, so it has not finished; `token` is empty. When it
   * resumes in another process, this record is what lets that be the same call — checked once —
   * once the session's signed history still shows the check allowed and unreported.
   */
  waits?: "nested";
}

export interface ApprovalStore {
  get(callId: string): PendingApproval | undefined | Promise<PendingApproval | undefined>;
  set(callId: string, record: PendingApproval): void | Promise<void>;
  /** the record can never be needed again (its id now names another call); optional */
  delete?(callId: string): void | Promise<void>;
}

/** How many records `MemoryApprovals` keeps unless told otherwise (docs/adapters.md). */
export const DEFAULT_APPROVALS_LIMIT = 1000;

/**
 * The default store: one process's memory; `toJSON()` and `new MemoryApprovals(saved)` carry it
 * over. It keeps at most `limit` records: past it the oldest spent one goes first (it only words
 * the refusal of a replayed approval), else the oldest waiting one — an approval request nobody
 * answered. A call whose record went is checked again when its answer comes, and refused: its
 * approval was not kept. Nothing runs on a record that is not there.
 */
export class MemoryApprovals implements ApprovalStore {
  private readonly records = new Map<string, PendingApproval>();
  readonly limit: number;

  constructor(saved?: Readonly<Record<string, PendingApproval>>, options: { limit?: number } = {}) {
    const limit = options?.limit ?? DEFAULT_APPROVALS_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1) throw new InputError("`limit` must be a whole number of records, at least 1", "/limit");
    this.limit = limit;
    if (saved === undefined) return;
    if (typeof saved !== "object" || saved === null || Array.isArray(saved)) throw new InputError("saved approvals must be what `toJSON()` returned", "/");
    for (const id of Object.keys(saved)) {
      const r = saved[id];
      if (!isPending(r)) throw new InputError(`saved approval \`${id}\` is not one \`toJSON()\` wrote`, `/${id}`);
      this.records.set(id, { ...r, reasons: [...r.reasons] });
    }
    this.trim();
  }

  get(callId: string): PendingApproval | undefined {
    const r = this.records.get(callId);
    return r ? { ...r } : undefined;
  }

  set(callId: string, record: PendingApproval): void {
    // Newest last: the order is the eviction order.
    this.records.delete(callId);
    this.records.set(callId, { ...record });
    this.trim();
  }

  delete(callId: string): void {
    this.records.delete(callId);
  }

  get size(): number {
    return this.records.size;
  }

  private trim(): void {
    while (this.records.size > this.limit) {
      let victim: string | undefined;
      for (const [id, r] of this.records) {
        if (r.used) {
          victim = id;
          break;
        }
      }
      this.records.delete(victim ?? this.records.keys().next().value!);
    }
  }

  toJSON(): Record<string, PendingApproval> {
    const out: Record<string, PendingApproval> = {};
    for (const [id, r] of this.records) Object.defineProperty(out, id, { value: { ...r }, enumerable: true, writable: true, configurable: true });
    return out;
  }
}

function isPending(r: unknown): r is PendingApproval {
  const o = r as Partial<PendingApproval> | null;
  return typeof o === "object" && o !== null && o.v === 1 && typeof o.tool === "string" && Number.isSafeInteger(o.step) && typeof o.token === "string" && typeof o.used === "boolean" &&
    typeof o.question === "string" && Array.isArray(o.reasons) && o.reasons.every((x) => typeof x === "string") && (o.call === undefined || typeof o.call === "string") &&
    (o.namespace === undefined || typeof o.namespace === "string") && (o.denied === undefined || typeof o.denied === "boolean") && (o.waits === undefined || o.waits === "nested");
}
