/**
 * The check, in the order of checks.md; the first step that answers ends it (`confirm` collects
 * every confirm reason at once):
 *
 *   1 reach             catalogue, agent reach, licence           (steps/reach.ts)
 *   2 history           the history verifies                      (steps/history.ts; MACs checked before the steps)
 *   3 argument_schema   arguments against the schema              (steps/argument-schema.ts)
 *   4 destinations      destinations / egress allow-list          (steps/destinations.ts)
 *   5 order             order rules                               (steps/order.ts)
 *   6 undo              undo bound to its step                    (steps/undo.ts)
 *   7 limits            checks, rate limits, spend                (steps/limits.ts; its counters settled after 13)
 *   8 rulebook          rulebook gate                             (steps/rulebook.ts)
 *   9 labels            labels                                    (steps/labels.ts)
 *  10 confirmation      confirmation token                        (steps/confirmation.ts)
 *  11 confirm           confirm reasons                           (steps/confirm.ts)
 *  12 compensation      an undo that passed                       (steps/compensation.ts)
 *  13 allow             allow                                     (steps/allow.ts)
 *
 * Each step is a pure function of plain data that returns its contribution: a verdict, or a pass
 * with the holds / counter needs / notes later steps and the answer read. The tool is resolved
 * before the list; `reach` refuses when it is missing, and every later step gets it resolved.
 * Fail closed: a step that throws is a refusal (`internal_error`), never an allow.
 */
import type { CompiledTool } from "../catalogue/types.js";
import type { Call, CheckFacts, CounterNeed, Hold, Step, StepInput, StepResult, Verdict } from "./types.js";
import { reach } from "./steps/reach.js";
import { historyVerified } from "./steps/history.js";
import { argumentSchema } from "./steps/argument-schema.js";
import { destinations } from "./steps/destinations.js";
import { orderRules } from "./steps/order.js";
import { undoBound } from "./steps/undo.js";
import { limits } from "./steps/limits.js";
import { rulebookGate } from "./steps/rulebook.js";
import { labels } from "./steps/labels.js";
import { confirmation } from "./steps/confirmation.js";
import { confirmReasons } from "./steps/confirm.js";
import { compensation } from "./steps/compensation.js";
import { allow } from "./steps/allow.js";

export type StepName =
  | "reach" | "history" | "argument_schema" | "destinations" | "order" | "undo" | "limits"
  | "rulebook" | "labels" | "confirmation" | "confirm" | "compensation" | "allow";

export interface NamedStep {
  readonly name: StepName;
  /** its number in checks.md, for the detail of an internal error */
  readonly number: number;
  readonly run: Step;
}

/** Steps 2–13 (`reach` runs first, on the unresolved tool). */
export const STEPS: readonly NamedStep[] = Object.freeze([
  { name: "history", number: 2, run: historyVerified },
  { name: "argument_schema", number: 3, run: argumentSchema },
  { name: "destinations", number: 4, run: destinations },
  { name: "order", number: 5, run: orderRules },
  { name: "undo", number: 6, run: undoBound },
  { name: "limits", number: 7, run: limits },
  { name: "rulebook", number: 8, run: rulebookGate },
  { name: "labels", number: 9, run: labels },
  { name: "confirmation", number: 10, run: confirmation },
  { name: "confirm", number: 11, run: confirmReasons },
  { name: "compensation", number: 12, run: compensation },
  { name: "allow", number: 13, run: allow },
]);

const ORDER: readonly StepName[] = ["reach", ...STEPS.map((s) => s.name)];

/** Did step `a` come after step `b` in the order? */
export function after(a: StepName, b: StepName): boolean {
  return ORDER.indexOf(a) > ORDER.indexOf(b);
}

export interface Answer {
  verdict: Verdict;
  /** the step that answered */
  at: StepName;
  /** the resolved tool (absent when `reach` refused it) */
  tool?: CompiledTool;
  /** counters `limits` needs settled */
  counters: readonly CounterNeed[];
  /** detail every answer carries, whatever step decided */
  notes: Readonly<Record<string, unknown>>;
}

export function runSteps(call: Call, facts: CheckFacts, steps: readonly NamedStep[] = STEPS): Answer {
  const tool = facts.catalogue.tools.get(call.tool);
  const first = guarded(() => reach(call, facts, tool), 1);
  if (first.kind !== "pass") return { verdict: first, at: "reach", counters: [], notes: {} };
  if (!tool) return { verdict: internal(1, "reach passed an unknown tool"), at: "reach", counters: [], notes: {} };

  const holds: Hold[] = [];
  const counters: CounterNeed[] = [];
  const notes: Record<string, unknown> = {};
  // One input for every step; only the orchestrator adds to `holds`, steps read it.
  const input = stepInput(facts, tool, holds);
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    // inline rather than `guarded`: a closure per step per check was a visible share of a check
    let result: StepResult;
    try {
      result = step.run(call, input);
    } catch (err) {
      result = internal(step.number, (err as Error)?.message ?? String(err));
    }
    if (result.kind !== "pass") return { verdict: result, at: step.name, tool, counters: result.kind === "refuse" && result.rateFirst ? result.rateFirst : counters, notes };
    if (result.holds) for (const h of result.holds) holds.push(h);
    if (result.counters) for (const c of result.counters) counters.push(c);
    if (result.note) Object.assign(notes, result.note);
  }
  // Unreachable with `allow` in the list; fail closed if a list omits it.
  return { verdict: internal(0, "no step answered"), at: "allow", tool, counters, notes };
}

/**
 * The facts with the tool and the holds, written field by field rather than spread: one object
 * shape for every check, so the steps' property reads stay monomorphic (a spread of the facts,
 * whose optional fields come and go, was a visible share of `runSteps`).
 */
function stepInput(f: CheckFacts, tool: CompiledTool, holds: readonly Hold[]): StepInput {
  // every key of CheckFacts, optional ones too: a field added there and not here fails to compile
  const input: StepInput = {
    catalogue: f.catalogue, history: f.history, sessionId: f.sessionId, turns: f.turns, context: f.context, now: f.now,
    licence: f.licence, openToken: f.openToken, historyInvalid: f.historyInvalid, index: f.index, from: f.from,
    valueDigest: f.valueDigest, taintModelAfterUntrusted: f.taintModelAfterUntrusted, rulebook: f.rulebook, kept: f.kept,
    tool, holds,
  } satisfies Record<keyof StepInput, unknown>;
  return input;
}

function guarded(run: () => StepResult, number: number): StepResult {
  try {
    return run();
  } catch (err) {
    return internal(number, (err as Error)?.message ?? String(err));
  }
}

function internal(step: number, message: string): Verdict {
  return { kind: "refuse", reason: "internal_error", detail: { step, message } };
}
