/**
 * Step 10: a confirmation token that covers exactly this call — the tool, the agent, the digest
 * of its arguments, the session, the history entry at which it was asked — unexpired and not used
 * before, and not denied or edited by a person (a receipt in the history). Reason `confirmed` (allow). A token that covers nothing is ignored: the call goes on to
 * step 11 and is asked about again (checks.md, "Confirmation tokens").
 */
import { askName, refusedName } from "../../state/changes.js";
import { PASS, type Call, type StepInput, type StepResult } from "../types.js";

type TokenProblem = "not_ours" | "expired" | "other_call" | "used" | "no_ask" | "denied";

/** The ask entry the token covers, or why it covers nothing (the token's MAC is checked once). */
function tokenProblem(token: string, call: Call, input: StepInput): TokenProblem | { ask: number } {
  const claims = input.openToken(token);
  if (!claims || claims.session !== input.sessionId) return "not_ours";
  if (claims.tool !== call.tool || claims.agent !== call.agent || claims.digest !== call.digest) return "other_call";
  if (input.now >= claims.exp) return "expired";
  const ask = input.history[claims.ask];
  if (!ask || ask.kind !== "check" || ask.decision !== "confirm" || ask.tool !== call.tool || ask.args !== call.digest || ask.agent !== call.agent) return "no_ask";
  // The ask entry itself, not only its step: a token's expiry is its ask's time plus the TTL
  // (session.ts). A history restarted since (history_invalid) can ask the same call at the same
  // step again, a different entry, whose link no spent name covers: the old token, used or not,
  // covers nothing there.
  if (claims.exp !== ask.at + input.catalogue.settings.confirmationTtlMs) return "no_ask";
  // A person said no (or changed the call): a host that kept the token cannot use it anyway, nor
  // one that deleted the receipt (the approval store keeps the refusal in the session's state).
  if (input.index.refusedAsks.has(claims.ask) || input.kept.spent.has(refusedName(token))) return "denied";
  // Used in this history, or in any other copy of it (the runtime keeps spent tokens).
  if (input.index.usedAsks.has(claims.ask) || input.kept.spent.has(askName(ask.link))) return "used";
  return { ask: claims.ask };
}

export function confirmation(call: Call, input: StepInput): StepResult {
  if (call.confirmation === undefined) return PASS;
  const covered = tokenProblem(call.confirmation, call, input);
  // A token that covers nothing is ignored, but the answer says why.
  if (typeof covered === "string") return { kind: "pass", note: { confirmation: covered } };
  return { kind: "allow", reason: "confirmed", detail: { asked_at: covered.ask }, confirmedAsk: covered.ask };
}
