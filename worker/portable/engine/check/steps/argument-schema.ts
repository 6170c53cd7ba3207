/**
 * Step 3: arguments against the tool's JSON schema; an undeclared argument is refused.
 * Reason `argument_schema`, detail `pointer` (JSON pointer of the offending value) and `rule`
 * (the schema keyword that failed).
 */
import { PASS, type Call, type StepInput, type StepResult } from "../types.js";

export function argumentSchema(call: Call, input: StepInput): StepResult {
  if (call.argsError) return { kind: "refuse", reason: "argument_schema", detail: { ...call.argsError } };
  const verdict = input.tool.validateArgs(call.args);
  if (verdict.ok) return PASS;
  return { kind: "refuse", reason: "argument_schema", detail: { pointer: verdict.pointer, rule: verdict.rule, message: verdict.message } };
}
