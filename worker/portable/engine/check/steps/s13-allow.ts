/** Step 13: anything nothing above held is allowed, with no reason. */
import type { Call, CheckContext, StepResult } from "../types.js";

export function allow(_call: Call, _ctx: CheckContext): StepResult {
  return { kind: "allow" };
}
