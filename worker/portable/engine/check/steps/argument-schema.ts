/**
 * Step 3: arguments against the tool's JSON schema; an undeclared argument is refused.
 * Reason `argument_schema`, detail `pointer` (JSON pointer of the offending value) and `rule`
 * (the schema keyword that failed) of the first failure, and `failures`: the first failure of
 * every argument that fails, each with what its schema expected, so one answer says all there
 * is to fix (`{order_id: 4411, amount: "40"}` names both).
 */
import { PASS, type Call, type StepInput, type StepResult } from "../types.js";
import { expectedAt, kindOf } from "../../schema/expected.js";
import { getAt, splitPointer } from "../../schema/pointer.js";
import type { SchemaFailure } from "../../catalogue/types.js";

export function argumentSchema(call: Call, input: StepInput): StepResult {
  if (call.argsError) return { kind: "refuse", reason: "argument_schema", detail: { ...call.argsError } };
  const verdict = input.tool.validateArgs(call.args);
  if (verdict.ok) return PASS;
  const failures = (verdict.failures ?? [verdict]).map((f) => explain(f, call.args, input.tool.argsSchema));
  return {
    kind: "refuse",
    reason: "argument_schema",
    detail: { pointer: verdict.pointer, rule: verdict.rule, message: failures.map((f) => f.message).join("; "), failures },
  };
}

/** The keywords `describeSchema` puts into words: for them, "must be <expected>" says what failed. */
const SAID = new Set(["type", "enum", "const", "pattern", "format", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems"]);

interface Explained extends SchemaFailure {
  expected?: string;
  hint?: string;
}

function explain(f: SchemaFailure, args: unknown, schema: object | undefined): Explained {
  const { expected, hint } = schema ? expectedAt(schema, f.pointer, f.rule) : expectedAt({ type: "object", additionalProperties: false }, f.pointer, f.rule);
  const name = `\`${splitPointer(f.pointer).join(".") || "the arguments"}\``;
  let message = f.message;
  if (expected !== undefined) {
    if (f.rule === "required") message = `${name} is required: ${expected}`;
    else if (f.rule === "additionalProperties") message = `${name} is not declared (the arguments are ${expected})${hint ? `: ${hint}` : ""}`;
    else if (SAID.has(f.rule)) message = `${name} must be ${expected}, not ${kindOf(getAt(args, f.pointer))}`;
  }
  return { pointer: f.pointer, rule: f.rule, message, ...(expected !== undefined ? { expected } : {}), ...(hint ? { hint } : {}) };
}
