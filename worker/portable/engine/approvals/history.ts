/**
 * When a receipt may enter a session's history (pure): it verifies under this key, it is this
 * session's, and it names an ask entry of this history — a `confirm` of the same tool, agent and
 * argument digest. Then the history records who decided which exact call (entry kind `receipt`).
 */
import { InputError } from "../errors.js";
import type { Entry, ReceiptEntry } from "../history/entry.js";
import { tokenOf, tokenV1Of, type BytesMac } from "../tokens/confirmation.js";
import { approvalIdOf } from "./build.js";
import { receiptDigest, receiptProblem, type Mac, type SignedReceipt } from "./receipts.js";

/** `ttlMs`: the session catalogue's `confirmationTtlMs`, which made the ask's token expire at its time plus it. */
export function receiptEntry(mac: Mac, macBytes: BytesMac, receipt: unknown, session: string, history: readonly Entry[], now: number, ttlMs: number): ReceiptEntry {
  const problem = receiptProblem(mac, receipt);
  if (problem) throw new InputError(problem, "/receipt");
  const r = receipt as SignedReceipt;
  if (r.session !== session) throw new InputError("the receipt is for another session", "/receipt/session");
  const ask = history[r.ask];
  if (!ask || ask.kind !== "check" || ask.decision !== "confirm" || ask.tool !== r.tool || ask.agent !== r.agent || ask.args !== r.args) {
    throw new InputError(`step ${r.ask} of this history is not the confirmation the receipt decides`, "/receipt/ask");
  }
  // The ask entry itself, not only its step (as step 10 binds a token): a history restarted since
  // (history_invalid) can ask the same call at the same step again, which no person has seen. The
  // receipt's id is that of the token its ask had; the entry here would have had this token (or,
  // asked before tokens were `st2`, its `st1` one).
  const claims = { tool: ask.tool, agent: ask.agent, digest: ask.args, session, ask: r.ask, exp: ask.at + ttlMs };
  if (r.id !== approvalIdOf(tokenOf(macBytes, claims)) && r.id !== approvalIdOf(tokenV1Of(macBytes, claims))) throw new InputError(`the receipt decides another ask at step ${r.ask} (one of a history restarted since), not this one`, "/receipt/ask");
  if (history.some((e) => e.kind === "receipt" && e.of === r.ask)) throw new InputError(`step ${r.ask} was decided already`, "/receipt/ask");
  return { v: 1, step: 0, at: now, kind: "receipt", of: r.ask, decision: r.decision, by: r.by, receipt: receiptDigest(r), link: "" };
}
