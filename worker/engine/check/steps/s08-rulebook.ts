/**
 * Step 8: the rulebook gate (checks.md "Rulebook gate"; "Undo bound to what it undoes").
 * The compiled rulebook (`ctx.rulebook`) decides the call: the first refusing rule whose `when`
 * holds (or cannot be read) refuses with the rule's name as the reason and `{flow, rule, wording}`
 * in detail; asking rules add one `gate_clarify` hold for step 11. An undo is never refused here,
 * only asked about. No rulebook: pass. The logic lives in rulebook/gate.ts; this binds the
 * engine's condition evaluator.
 */
import { evaluateAll } from "../../conditions/index.js";
import { makeRulebookGate } from "../../rulebook/gate.js";
import type { Call, CheckContext, StepResult } from "../types.js";

const gate = makeRulebookGate(evaluateAll);

export function rulebookGate(call: Call, ctx: CheckContext): StepResult {
  return gate(call, ctx);
}
