/**
 * Argument origins (checks.md, "Argument origins"). Trusted: `typed` (only where a turn holds the
 * value as typed), `reply`, `context`, `computed`, and `result:<step>[.<path>]` (only where that
 * call ran in this session, its tool's `returns` schema declares the path, and the value equals
 * what was recorded). Anything else, `model` included, and a missing origin, is asked about.
 */
import { MISSING, readValue } from "../conditions/read.js";
import { jsonEqual } from "../conditions/values.js";
import type { Call, CheckFacts } from "../check/types.js";
import { own } from "../canonical/own.js";

/** What an origin is judged against: the verified turns, history and catalogue. */
export type OriginFacts = Pick<CheckFacts, "turns" | "index" | "catalogue">;

const TRUSTED = new Set(["reply", "context", "computed"]);

/** Names of the arguments whose origin is not trusted, in argument order. */
export function originProblems(call: Call, ctx: OriginFacts): string[] {
  const out: string[] = [];
  for (const name of Object.keys(call.args)) {
    if (!originTrusted(own(call.origins, name), own(call.args, name), ctx)) out.push(name);
  }
  return out;
}

export function originTrusted(origin: unknown, value: unknown, ctx: OriginFacts): boolean {
  if (typeof origin !== "string") return false;
  if (TRUSTED.has(origin)) return true;
  if (origin === "typed") return ctx.turns.has(value);
  if (origin.startsWith("result:")) return resultOriginHolds(origin.slice(7), value, ctx);
  return false;
}

export interface ResultRef {
  step: number;
  path: string;
}

/** `4` or `4.transactions[2].amount` → {step, path}; null when unreadable. */
export function parseResultRef(ref: string): ResultRef | null {
  const m = /^(0|[1-9][0-9]{0,8})(?:\.(.+))?$/.exec(ref);
  if (!m) return null;
  return { step: Number(m[1]), path: m[2] ?? "" };
}

function resultOriginHolds(ref: string, value: unknown, ctx: OriginFacts): boolean {
  const r = parseResultRef(ref);
  // That call was allowed and its caller reported it `ran` (the index keeps the last report).
  if (!r || !ctx.index.ran(r.step)) return false;
  const checked = ctx.index.check(r.step)!;
  const tool = ctx.catalogue.tools.get(checked.tool);
  if (!tool) return false;
  if (r.path !== "" && !tool.returnsDeclares(r.path)) return false;
  const result = ctx.index.lastReport.get(r.step)!.result;
  const recorded = r.path === "" ? result : readValue(result, r.path);
  if (recorded === MISSING) return false;
  return sameJson(recorded, value);
}

/** JSON equality that never throws (too deep to compare is not equal). */
export function sameJson(a: unknown, b: unknown): boolean {
  try {
    return jsonEqual(a, b);
  } catch {
    return false;
  }
}
