/**
 * Step 2: the session history verifies entry by entry. The MAC work happens before the steps run
 * (history/verify.ts, one call into the WASM core); this step turns its finding into the answer.
 * Reason `history_invalid`: nothing else is read, and the answer starts a new history at step 0.
 */
import { PASS, type Call, type StepInput, type StepResult } from "../types.js";

export function historyVerified(_call: Call, input: StepInput): StepResult {
  if (input.historyInvalid === undefined) return PASS;
  return { kind: "refuse", reason: "history_invalid", detail: { why: input.historyInvalid } };
}
