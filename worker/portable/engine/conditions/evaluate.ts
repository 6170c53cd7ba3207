/**
 * Evaluating conditions (checks.md "Conditions, limits, spend, outcomes"): a tool's `checks`
 * (step 7), `filter.keep`, `done_when` / `failed_when`, and the rulebook's rules all use this one
 * language. The meaning of each word is written down in compare.ts; this file is the public face.
 *
 * Three answers, never a bare boolean: `holds`, `fails`, or `unknown` when a value could not be
 * read (a missing field, a wrong type for the operator, a `from` tool that never returned). The
 * check turns `unknown` into `condition_unknown`: fail closed, never a silent pass.
 *
 * Pure and synchronous: no I/O, no clock; `scope.from` is the caller's (reading recorded results).
 * Nothing is allocated on the way to `holds` beyond what a `[]` path needs; sentences are built
 * only for a verdict that does not hold. Never throws.
 */
import type { Condition } from "../catalogue/types.js";
import { FAILS, HOLDS, newTrace, run, runAll, type Trace } from "./compare.js";
import { sentence, unreadablePath } from "./wording.js";

export type Truth = "holds" | "fails" | "unknown";

export interface Scope {
  /** the record `field` / `total` / `count` paths read from: a call's arguments (checks), a row (filter), a result (done_when), {args, facts} (rulebook) */
  subject: unknown;
  /**
   * `{from: tool.path}`: the values that tool last returned in this session at that path (a list
   * for a `[]` path); `undefined` when the tool never returned / the path is absent. With `same`
   * (`{from: tool.path, same: arg}`): what the last call of that tool whose argument `arg` equals
   * this call's returned. `fromResults` builds one.
   */
  from(tool: string, path: string, same?: string): unknown;
  /** the row for `{from_row: path}` (filter); when absent, `subject` is the row */
  row?: unknown;
}

export interface Verdict {
  truth: Truth;
  /** the condition that failed or could not be read, for the detail (inside an `any:`: the unreadable one; a failing `any:` itself) */
  condition?: Condition;
  /** a sentence saying why, using `because` when the condition has one and fails */
  wording?: string;
  /** the path that could not be read: the subject's, or the operand's `tool.path` / row field */
  unknown?: string;
}

const HOLDS_VERDICT: Verdict = Object.freeze({ truth: "holds" });

function verdict(code: number, t: Trace, scope: Scope): Verdict {
  if (code === HOLDS) return HOLDS_VERDICT;
  const wording = sentence(t, scope);
  const out: Verdict = { truth: code === FAILS ? "fails" : "unknown", wording };
  if (t.node !== undefined) out.condition = t.node;
  if (code !== FAILS) {
    const path = unreadablePath(t);
    if (path !== undefined) out.unknown = path;
  }
  return out;
}

// One trace kept for reuse: evaluation is synchronous, so it is free again once a verdict is
// built; a `from` that evaluates conditions itself (re-entry) finds it taken and gets its own.
let spare: Trace | undefined = newTrace();

function take(): Trace {
  const t = spare ?? newTrace();
  spare = undefined;
  return t;
}

function release(t: Trace): void {
  t.node = t.value = t.operand = t.item = undefined; // hold nothing of this call
  spare = t;
}

/** One condition. */
export function evaluate(c: Condition, scope: Scope): Verdict {
  const t = take();
  try {
    return verdict(run(c, scope, t), t, scope);
  } finally {
    release(t);
  }
}

/**
 * All of them must hold (three-valued AND, deterministic): the first condition, in order, that
 * fails decides — even when an earlier one was unknown, because a definite failure is the stronger
 * answer (and a filter with `unknown: pass` must still drop a record that fails another
 * condition); when none fails, the first unknown one decides; an empty list holds. Evaluation
 * stops at the first failure.
 */
export function evaluateAll(cs: readonly Condition[], scope: Scope): Verdict {
  const t = take();
  try {
    return verdict(runAll(cs, scope, t), t, scope);
  } finally {
    release(t);
  }
}
