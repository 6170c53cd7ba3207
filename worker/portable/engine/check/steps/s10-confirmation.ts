/**
 * Step 10: a confirmation token that covers exactly this call — the tool, the agent, the digest
 * of its arguments, the session, the history entry at which it was asked — unexpired and not used
 * before. Reason `confirmed` (allow). A token that covers nothing is ignored: the call goes on to
 * step 11 and is asked about again (checks.md, "Confirmation tokens").
 */
import { PASS, type Call, type CheckContext, type StepResult } from "../types.js";

export type TokenProblem = "not_ours" | "expired" | "other_call" | "used" | "no_ask";

/** The ask entry the token covers, or why it covers nothing (the token's MAC is checked once). */
export function tokenProblem(call: Call, ctx: CheckContext): TokenProblem | { ask: number } {
  const claims = ctx.openToken(call.confirmation!);
  if (!claims || claims.session !== ctx.sessionId) return "not_ours";
  if (claims.tool !== call.tool || claims.agent !== call.agent || claims.digest !== call.digest) return "other_call";
  if (ctx.now >= claims.exp) return "expired";
  const ask = ctx.history[claims.ask];
  if (!ask || ask.kind !== "check" || ask.decision !== "confirm" || ask.tool !== call.tool || ask.args !== call.digest || ask.agent !== call.agent) return "no_ask";
  if (ctx.index.usedAsks.has(claims.ask)) return "used";
  return { ask: claims.ask };
}

export function confirmation(call: Call, ctx: CheckContext): StepResult {
  if (call.confirmation === undefined) return PASS;
  const covered = tokenProblem(call, ctx);
  if (typeof covered === "string") {
    ctx.tokenProblem = covered;
    return PASS;
  }
  ctx.confirmedAsk = covered.ask;
  return { kind: "allow", reason: "confirmed", detail: { asked_at: ctx.confirmedAsk } };
}
