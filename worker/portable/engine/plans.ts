/**
 * What the guarded step asks of the engine besides checks (interfaces.md, "Guarded step"):
 *   - filter: which records a read passes on (`filter`: each, keep, from_row, unknown: pass);
 *   - undo plan: the declared undo of a write, with its arguments bound from the step it undoes
 *     (same names, from that call's arguments, else from its result);
 *   - outcome: the read that follows a write to its end (`follow`, `same`), and whether a
 *     result of it says done (`done_when`), failed (`failed_when`) or not yet.
 * Pure functions of the compiled catalogue and plain data.
 */
import type { CompiledCatalogue, CompiledTool } from "./catalogue/types.js";
import { applyFilter, type FilterOutcome } from "./conditions/filter.js";
import { evaluateAll } from "./conditions/index.js";
import type { Scope } from "./conditions/evaluate.js";
import { MISSING, readValue } from "./conditions/read.js";
import { defineOwn, own, owns } from "./canonical/own.js";
import { InputError } from "./errors.js";
import { cutText } from "./canonical/cut.js";
import { checkJsonAt } from "./canonical/jcs.js";

export function filterResult(tool: CompiledTool, result: unknown, from: Scope["from"]): FilterOutcome {
  if (!tool.filter) return { kept: result, dropped: 0, unknown: 0 };
  return applyFilter(tool.filter, result, from);
}

export interface UndoPlan {
  tool: string;
  args: Record<string, unknown>;
}

/**
 * The undo of `tool` called with `args` that returned `result`: every argument the undo's schema
 * names, taken by the same name from the arguments, else from the result. Null when the tool
 * declares no undo.
 */
export function planUndo(catalogue: CompiledCatalogue, tool: string, args: Record<string, unknown>, result: unknown): UndoPlan | null {
  planInput(args, result);
  const t = known(catalogue, tool);
  if (!t.undo) return null;
  const undo = catalogue.tools.get(t.undo);
  if (!undo) return null;
  const props = own(undo.argsSchema, "properties");
  // names come from the catalogue and the caller's arguments: own properties, set as data
  const out: Record<string, unknown> = {};
  for (const name of props !== null && typeof props === "object" ? Object.keys(props) : []) {
    if (owns(args, name)) defineOwn(out, name, own(args, name));
    else if (t.returnsDeclares(name)) {
      const v = readValue(result, name);
      if (v !== MISSING) defineOwn(out, name, v);
    }
  }
  return { tool: undo.name, args: out };
}

export interface FollowPlan {
  tool: string;
  args: Record<string, unknown>;
  /** where the joining value came from, as an origin */
  origin: string;
  giveUpAfterMs: number;
}

export function planFollow(catalogue: CompiledCatalogue, tool: string, step: number, args: Record<string, unknown>, result: unknown): FollowPlan | null {
  planInput(args, result);
  const outcome = known(catalogue, tool).outcome;
  if (!outcome) return null;
  const fromResult = readValue(result, outcome.same);
  const value = fromResult !== MISSING ? fromResult : own(args, outcome.same);
  if (value === undefined) return null;
  const followArgs: Record<string, unknown> = {};
  defineOwn(followArgs, outcome.same, value);
  return {
    tool: outcome.follow,
    args: followArgs,
    origin: fromResult !== MISSING ? `result:${step}.${outcome.same}` : "computed",
    giveUpAfterMs: outcome.giveUpAfterMinutes * 60_000,
  };
}

export type Judged = "done" | "failed" | "pending";

/**
 * Does the follow read's result say the write is done, failed, or not yet? Unknown is not yet. A
 * tool that declares no `outcome` has nothing to judge by: a typed error, never "done" (a host
 * reading "done" would take a write nobody followed for finished).
 */
export function judgeOutcome(catalogue: CompiledCatalogue, tool: string, followResult: unknown, from: Scope["from"]): Judged {
  planInput(undefined, followResult);
  const outcome = known(catalogue, tool).outcome;
  if (!outcome) throw new InputError(`\`${tool}\` declares no \`outcome\`: there is nothing to judge its follow read by`, "/tool", "judge a write whose catalogue entry has `outcome: {follow, same, done_when}`");
  const scope = { subject: followResult, row: followResult, from };
  if (outcome.failedWhen.length > 0 && evaluateAll(outcome.failedWhen, scope).truth === "holds") return "failed";
  if (outcome.doneWhen.length > 0 && evaluateAll(outcome.doneWhen, scope).truth === "holds") return "done";
  return "pending";
}

/** A plan names a tool of the catalogue: an unknown one is the caller's mistake, not "nothing to plan". */
function known(catalogue: CompiledCatalogue, tool: string): CompiledTool {
  const t = typeof tool === "string" ? catalogue.tools.get(tool) : undefined;
  if (!t) throw new InputError(`\`${cutText(String(tool), 100)}\` is not a tool of this catalogue`, "/tool");
  return t;
}

/**
 * A plan is made from JSON data only: a value that is not (1e400 read as Infinity, a lone
 * surrogate) would come back changed (Infinity as null) in an undo or follow bound from it.
 */
function planInput(args: unknown, result: unknown): void {
  if (args !== undefined) checkJsonAt(args, "args");
  if (result !== undefined) checkJsonAt(result, "result");
}
