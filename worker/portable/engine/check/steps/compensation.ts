/**
 * Step 12: an undo that passed every step above is allowed, `compensation`: the person approved
 * the write it undoes (checks.md, "Undo bound to what it undoes"). Only a rulebook question
 * (`gate_clarify`, step 8) still turns it into a confirmation, which step 11 already answered.
 */
import { PASS, type Call, type StepInput, type StepResult } from "../types.js";

export function compensation(call: Call, _input: StepInput): StepResult {
  if (call.undoOf === undefined) return PASS;
  return { kind: "allow", reason: "compensation", detail: { undo_of: call.undoOf } };
}
