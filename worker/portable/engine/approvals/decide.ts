/**
 * Deciding and waiting, over any approval store: the page, the CLI and the worker decide through
 * `decide` (a signed receipt stored once, or a typed error saying why not); the SDK and the
 * gateway wait through `waitForDecision` (polling: a store shared by processes has no push).
 */
import { StalwartError } from "../errors.js";
import { makeReceipt, signReceipt, type DecisionInput, type Mac } from "./receipts.js";
import type { Approval, ApprovalStore } from "./record.js";

export async function decide(store: ApprovalStore, mac: Mac, id: string, d: DecisionInput): Promise<Approval> {
  const a = await store.get(id);
  if (!a) throw new StalwartError("ApprovalNotFound", `no pending confirmation \`${id}\``, { hint: "`stalwart approvals list` shows what waits" });
  const receipt = signReceipt(mac, makeReceipt(a.record, d));
  const answer = await store.decide(id, receipt, d.at);
  if (answer.ok) return answer.approval;
  const was = answer.approval?.receipt;
  const why = answer.why === "decided" && was ? `${was.decision === "approve" ? "approved" : was.decision === "deny" ? "denied" : "edited"} by ${was.by}` : answer.why === "expired" ? "expired" : answer.why === "withdrawn" ? "withdrawn: the gateway that asked stopped, and the session its call belonged to ended with it (the same call made again is asked again)" : answer.why === "decided" ? "spent" : "not this call";
  throw new StalwartError("ApprovalDecided", `confirmation \`${id}\` cannot be decided: it is ${why}`);
}

export interface WaitOptions {
  /** how long to wait at most, in ms */
  ms: number;
  /** between reads of the store (default 100 ms) */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  signal?: AbortSignal;
}

/** The approval once someone decided it, or as it stands when the wait ends (undecided). */
export async function waitForDecision(store: ApprovalStore, id: string, o: WaitOptions): Promise<Approval | undefined> {
  const poll = Math.max(10, o.pollMs ?? 100);
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let waited = 0;
  for (;;) {
    const a = await store.get(id);
    if (!a || a.receipt || a.used || waited >= o.ms || o.signal?.aborted) return a;
    const step = Math.min(poll, o.ms - waited);
    await sleep(step);
    waited += step;
  }
}
