/**
 * Step 6: an undo names the step it undoes (`undoOf`); that step ran; the undo is the tool that
 * step's tool declares as `undo`; each argument comes from that step's arguments or result (the
 * same name, the same value); the step is undone at most once.
 * Reasons `compensation_mismatch`, `compensation_spent`.
 */
import { sameJson } from "../../origins/origins.js";
import { MISSING, readValue } from "../../conditions/read.js";
import { tally, undoName } from "../../state/changes.js";
import { own } from "../../canonical/own.js";
import { PASS, argNamesOf, type Call, type StepInput, type StepResult } from "../types.js";

export function undoBound(call: Call, input: StepInput): StepResult {
  if (call.undoOf === undefined) return PASS;
  const index = input.index;
  const step = call.undoOf;
  const undone = index.check(step);
  // a step its caller reported `compensated` ran and was undone already (outside the history)
  if (undone?.decision === "allow" && index.lastReport.get(step)?.outcome === "compensated") return { kind: "refuse", reason: "compensation_spent", detail: { undo_of: step, undone_by: null } };
  if (!undone || !index.ran(step)) return mismatch(step, "that step did not run in this session");
  if (undone.undo_of !== null) return mismatch(step, "that step is itself an undo");
  const undoneTool = input.catalogue.tools.get(undone.tool);
  if (!undoneTool || undoneTool.undo !== call.tool) {
    return mismatch(step, `${undone.tool} declares ${undoneTool?.undo ? `\`${undoneTool.undo}\`` : "no undo"}, not \`${call.tool}\``);
  }
  const earlier = (index.undosOf.get(step) ?? []).filter((s) => index.counts(s));
  if (earlier.length > 0) return { kind: "refuse", reason: "compensation_spent", detail: { undo_of: step, undone_by: earlier[0] } };
  // Undone in another copy of this history (a fork, an older snapshot): once per session.
  if (tally(input.kept, undoName(undone.link)) > 0) return { kind: "refuse", reason: "compensation_spent", detail: { undo_of: step, undone_by: null } };

  const result = index.lastReport.get(step)?.result;
  for (const name of argNamesOf(call)) {
    const value = own(call.args, name);
    // `values` comes from the history the caller carries: only its own entries are digests
    const recorded = own(undone.values, name);
    const fromArgs = typeof recorded === "string" && recorded === input.valueDigest(value);
    const declared = undoneTool.returnsDeclares(name);
    const fromResult = declared && result !== undefined && (() => {
      const r = readValue(result, name);
      return r !== MISSING && sameJson(r, value);
    })();
    if (!fromArgs && !fromResult) return mismatch(step, `\`${name}\` is not the value step ${step} was called with or returned`, name);
  }
  return PASS;
}

function mismatch(step: number, why: string, argument?: string): StepResult {
  return { kind: "refuse", reason: "compensation_mismatch", detail: { undo_of: step, why, ...(argument ? { argument } : {}) } };
}

