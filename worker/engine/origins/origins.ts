/**
 * Argument origins (checks.md, "Argument origins"). Trusted: `typed` (only where a turn holds the
 * value as typed), `reply`, `context`, `computed`, and `result:<step>[.<path>]` (only where that
 * call ran in this session, its tool's `returns` schema declares the path, and the value equals
 * what was recorded). Anything else, `model` included, and a missing origin, is asked about.
 */
import { canonicalize } from "../canonical/jcs.js";
import type { Entry, ReportEntry } from "../history/entry.js";
import type { Call, CheckContext } from "../check/types.js";

const TRUSTED = new Set(["reply", "context", "computed"]);

/** Names of the arguments whose origin is not trusted, in argument order. */
export function originProblems(call: Call, ctx: CheckContext): string[] {
  const out: string[] = [];
  for (const name of Object.keys(call.args)) {
    if (!originTrusted(call.origins[name], call.args[name], ctx)) out.push(name);
  }
  return out;
}

export function originTrusted(origin: string | undefined, value: unknown, ctx: CheckContext): boolean {
  if (origin === undefined) return false;
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

/** The last `ran` report on the check entry at `step`, if that call was allowed. */
export function ranReport(history: readonly Entry[], step: number): ReportEntry | undefined {
  const checked = history[step];
  if (!checked || checked.kind !== "check" || checked.decision !== "allow") return undefined;
  let found: ReportEntry | undefined;
  for (let i = step + 1; i < history.length; i++) {
    const e = history[i]!;
    if (e.kind === "report" && e.of === step) found = e;
  }
  return found && found.outcome === "ran" ? found : undefined;
}

function resultOriginHolds(ref: string, value: unknown, ctx: CheckContext): boolean {
  const r = parseResultRef(ref);
  if (!r) return false;
  const report = ranReport(ctx.history, r.step);
  if (!report) return false;
  const checked = ctx.history[r.step] as Extract<Entry, { kind: "check" }>;
  const tool = ctx.catalogue.tools.get(checked.tool);
  if (!tool) return false;
  if (r.path !== "" && !tool.returnsDeclares(r.path)) return false;
  const recorded = r.path === "" ? report.result : readPath(report.result, r.path);
  if (recorded === MISSING) return false;
  return sameJson(recorded, value);
}

export const MISSING: unique symbol = Symbol("missing");

/** Read `a.b[2].c` from JSON data; MISSING when any part is absent. */
export function readPath(root: unknown, path: string): unknown {
  let cur: unknown = root;
  for (const part of splitPath(path)) {
    if (cur === null || typeof cur !== "object") return MISSING;
    if (typeof part === "number") {
      if (!Array.isArray(cur) || part >= cur.length) return MISSING;
      cur = cur[part];
    } else {
      if (Array.isArray(cur) || !Object.prototype.hasOwnProperty.call(cur, part)) return MISSING;
      cur = (cur as Record<string, unknown>)[part];
    }
  }
  return cur;
}

export function splitPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const seg of path.split(".")) {
    const m = /^([^[\]]*)((?:\[\d+\])*)$/.exec(seg);
    if (!m) return [seg];
    if (m[1]) out.push(m[1]);
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return canonicalize(a) === canonicalize(b);
  } catch {
    return false;
  }
}
