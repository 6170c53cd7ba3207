/**
 * Step 8: the rulebook gate (checks.md "Rulebook gate"; "Undo bound to what it undoes").
 * The compiled rulebook (`input.rulebook`; none: pass) decides the call. For each rule that applies
 * to the call's tool, in file order, whose `when` holds:
 *   - `then: refuse` refuses with the rule's name as the reason, `detail: {flow, rule, wording}`;
 *     the first refusing rule wins;
 *   - `then: ask` holds the call for a person: one `gate_clarify` hold `{question, flow}` (the
 *     questions of every asking rule, in file order) that step 11 turns into a confirmation.
 * A `when` that could not be read (`unknown`) fails closed: a refusing rule refuses anyway
 * (`detail.unknown` names the value), an asking rule asks.
 * An undo (`undoOf`) is never refused by the rulebook — it undoes a write this check allowed — but
 * asking rules still ask. Reads are gated like writes.
 * Pure: no I/O, no clock. Rules read `{args, facts}` (the facts come with the check) and
 * `{from: tool.field}` through `input.from` (absent: nothing was returned, so unknown).
 */
import { evaluateAll, type Scope } from "../../conditions/index.js";
import { rulesFor } from "../../rulebook/compile.js";
import type { CompiledRule } from "../../rulebook/types.js";
import { PASS, type Call, type StepInput, type Hold, type StepResult } from "../types.js";

const nothing = () => undefined;

export function rulebookGate(call: Call, input: StepInput): StepResult {
  const rulebook = input.rulebook;
  if (!rulebook) return PASS;
  const rules = rulesFor(rulebook, call.tool);
  if (rules.length === 0) return PASS;
  const undo = call.undoOf !== undefined;
  // no joins in a rulebook (lint refuses `same` there)
  const scope: Scope = { subject: { args: call.args, facts: call.facts }, from: input.from ? (t, p) => input.from(t, p) : nothing };
  const asks: Ask[] = [];
  for (const rule of rules) {
    if (rule.then === "refuse" && undo) continue; // the rulebook cannot refuse an undo
    const r = rule.when.length === 0 ? undefined : evaluateAll(rule.when, scope);
    if (r?.truth === "fails") continue;
    // anything but a clear `holds` is unknown: fail closed
    const unknown = r === undefined || r.truth === "holds" ? undefined : { path: r.unknown ?? "a value of its conditions", wording: r.wording };
    if (rule.then === "refuse") {
      const base = rule.because ?? `The ${rule.flow} flow does not allow this ${call.tool} call (rule ${rule.name}).`;
      const detail: Record<string, unknown> = { flow: rule.flow, rule: rule.name, wording: unknown ? `${base} ${unknown.wording ?? `\`${unknown.path}\` could not be read.`}` : base };
      if (unknown) detail.unknown = unknown.path;
      return { kind: "refuse", reason: rule.name, detail };
    }
    asks.push(unknown ? { rule, unknown: unknown.path } : { rule });
  }
  return asks.length > 0 ? { kind: "pass", holds: [clarify(asks)] } : PASS;
}

interface Ask {
  rule: CompiledRule;
  unknown?: string;
}

/** One `gate_clarify` hold for every asking rule that applies; `{question, flow}` as for one. */
function clarify(asks: readonly [Ask, ...Ask[]] | Ask[]): Hold {
  const questions = asks.map((a) => a.rule.question ?? `Rule ${a.rule.name} of the ${a.rule.flow} flow asks about this call: go ahead?`);
  const question = questions.join(" ");
  const detail: Record<string, unknown> = { question, flow: asks[0]?.rule.flow };
  if (asks.length > 1) {
    detail.questions = questions;
    detail.flows = asks.map((a) => a.rule.flow);
  }
  const unknown = asks.flatMap((a) => (a.unknown !== undefined ? [a.unknown] : []));
  if (unknown.length > 0) detail.unknown = unknown.length === 1 ? unknown[0] : unknown;
  return { reason: "gate_clarify", detail, wording: question };
}
