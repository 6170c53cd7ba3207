/**
 * The check, in the order of checks.md; the first step that answers ends it (step 11 collects
 * every confirm reason at once):
 *
 *   1 catalogue, agent reach, licence     (s01-reach)
 *   2 history verifies                    (s02-history; the MACs are checked before the steps)
 *   3 arguments against the schema        (s03-schema)
 *   4 destinations / egress allow-list    (s04-destinations)
 *   5 order rules                         (s05-order)
 *   6 undo bound to its step              (s06-undo)
 *   7 checks, rate limits, spend          (s07-limits; counters settled by the session after 13)
 *   8 rulebook gate                       (s08-rulebook)
 *   9 labels                              (s09-labels)
 *  10 confirmation token                  (s10-confirmation)
 *  11 confirm reasons                     (s11-confirm)
 *  12 compensation                        (s12-compensation)
 *  13 allow                               (s13-allow)
 *
 * Fail closed: a step that throws is a refusal (`internal_error`), never an allow.
 */
import type { Call, CheckContext, Step, StepResult } from "./types.js";
import { reach } from "./steps/s01-reach.js";
import { historyVerified } from "./steps/s02-history.js";
import { argumentSchema } from "./steps/s03-schema.js";
import { destinations } from "./steps/s04-destinations.js";
import { orderRules } from "./steps/s05-order.js";
import { undoBound } from "./steps/s06-undo.js";
import { limits } from "./steps/s07-limits.js";
import { rulebookGate } from "./steps/s08-rulebook.js";
import { labels } from "./steps/s09-labels.js";
import { compensation } from "./steps/s12-compensation.js";
import { confirmation } from "./steps/s10-confirmation.js";
import { confirmReasons } from "./steps/s11-confirm.js";
import { allow } from "./steps/s13-allow.js";

export interface NumberedStep {
  readonly number: number;
  readonly name: string;
  readonly run: Step;
}

export const STEPS: readonly NumberedStep[] = Object.freeze([
  { number: 1, name: "reach", run: reach },
  { number: 2, name: "history", run: historyVerified },
  { number: 3, name: "argument_schema", run: argumentSchema },
  { number: 4, name: "destinations", run: destinations },
  { number: 5, name: "order", run: orderRules },
  { number: 6, name: "undo", run: undoBound },
  { number: 7, name: "limits", run: limits },
  { number: 8, name: "rulebook", run: rulebookGate },
  { number: 9, name: "labels", run: labels },
  { number: 10, name: "confirmation", run: confirmation },
  { number: 11, name: "confirm", run: confirmReasons },
  { number: 12, name: "compensation", run: compensation },
  { number: 13, name: "allow", run: allow },
]);

export interface Answer {
  result: StepResult;
  /** the number of the step that answered */
  at: number;
}

export function runSteps(call: Call, ctx: CheckContext, steps: readonly NumberedStep[] = STEPS): Answer {
  for (const step of steps) {
    let result: StepResult;
    try {
      result = step.run(call, ctx);
    } catch (err) {
      return {
        result: { kind: "refuse", reason: "internal_error", detail: { step: step.number, message: (err as Error)?.message ?? String(err) } },
        at: step.number,
      };
    }
    if (result.kind !== "pass") return { result, at: step.number };
  }
  // Unreachable with step 13 in the list; fail closed if a list omits it.
  return { result: { kind: "refuse", reason: "internal_error", detail: { message: "no step answered" } }, at: 0 };
}
