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
}

export interface ApprovalStore {
  get(callId: string): PendingApproval | undefined | Promise<PendingApproval | undefined>;
  set(callId: string, record: PendingApproval): void | Promise<void>;
}

/** The default store: one process's memory; `toJSON()` and `new MemoryApprovals(saved)` carry it over. */
export class MemoryApprovals implements ApprovalStore {
  private readonly records = new Map<string, PendingApproval>();

  constructor(saved?: Readonly<Record<string, PendingApproval>>) {
    if (saved === undefined) return;
    if (typeof saved !== "object" || saved === null || Array.isArray(saved)) throw new InputError("saved approvals must be what `toJSON()` returned", "/");
    for (const id of Object.keys(saved)) {
      const r = saved[id];
      if (!isPending(r)) throw new InputError(`saved approval \`${id}\` is not one \`toJSON()\` wrote`, `/${id}`);
      this.records.set(id, { ...r, reasons: [...r.reasons] });
    }
  }

  get(callId: string): PendingApproval | undefined {
    const r = this.records.get(callId);
    return r ? { ...r } : undefined;
  }

  set(callId: string, record: PendingApproval): void {
    this.records.set(callId, { ...record });
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
    typeof o.question === "string" && Array.isArray(o.reasons) && o.reasons.every((x) => typeof x === "string");
}
