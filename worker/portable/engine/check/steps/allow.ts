/** Step 13: anything nothing above held is allowed, with no reason. */
import type { Call, StepInput, StepResult } from "../types.js";

export function allow(_call: Call, _input: StepInput): StepResult {
  return { kind: "allow" };
}
