/**
 * Argument origins (checks.md, "Argument origins"). Trusted: `typed` (only where a turn holds the
 * value as typed), `reply`, `context`, `computed`, and `result:<step>[.<path>]` (only where that
 * call ran in this session, its tool's `returns` schema declares the path, and the value equals
 * what was recorded). Anything else, `model` included, and a missing origin, is asked about.
 */
import { MISSING, readValue } from "../conditions/read.js";
import { jsonEqual } from "../conditions/values.js";
import { argNamesOf, type Call, type CheckFacts } from "../check/types.js";
import { own } from "../canonical/own.js";
import { didYouMean } from "../schema/suggest.js";
import { declaredKeys } from "./declared-keys.js";

/** What an origin is judged against: the verified turns, history and catalogue. */
export type OriginFacts = Pick<CheckFacts, "turns" | "index" | "catalogue">;

const TRUSTED = new Set(["reply", "context", "computed"]);

/** The step a `result:<step>[.<path>]` origin names, or -1. */
export function stepOf(origin: string): number {
  const m = /^result:(\d+)(?:\.|$)/.exec(origin);
  return m ? Number(m[1]) : -1;
}

/** A trusted origin word: `typed`, `reply`, `context`, `computed` (not `result:`, whose trust depends on the call's labels). */
export function isTrustedWord(origin: string): boolean {
  return origin === "typed" || TRUSTED.has(origin);
}

/** The origin words a caller may write (checks.md, "Argument origins"), besides `result:<step>[.<path>]`. */
const ORIGIN_WORDS = ["typed", "reply", "context", "computed", "model"] as const;

/**
 * Why `origin` is no origin at all (a typo such as `typd`, an unreadable `result:` reference), or
 * undefined when it is one of the words above or a readable `result:` reference.
 */
/** One of the plain origin words (`result:` references are not: originWordProblem reads those). */
export function isOriginWord(origin: string): boolean {
  return (ORIGIN_WORDS as readonly string[]).includes(origin);
}

export function originWordProblem(origin: string): { message: string; hint: string } | undefined {
  if ((ORIGIN_WORDS as readonly string[]).includes(origin)) return undefined;
  const shown = `\`${origin.slice(0, 100)}\``;
  if (origin.startsWith("result:")) {
    if (parseResultRef(origin.slice(7))) return undefined;
    return { message: `${shown} is not \`result:<step>\` or \`result:<step>.<path>\``, hint: "e.g. `result:4.order_id`: the `order_id` field of what step 4 returned" };
  }
  const words = [...ORIGIN_WORDS, "result"];
  const near = didYouMean(origin, words);
  return {
    message: `unknown origin ${shown}`,
    hint: `${near ? `${near} ` : ""}origins are ${ORIGIN_WORDS.map((w) => `\`${w}\``).join(", ")} and \`result:<step>[.<path>]\``,
  };
}

/** Names of the arguments whose origin is not trusted, in argument order. */
export function originProblems(call: Call, ctx: OriginFacts): string[] {
  const out: string[] = [];
  for (const name of argNamesOf(call)) {
    if (!originTrusted(own(call.origins, name), own(call.args, name), ctx, call.tool, name)) out.push(name);
  }
  return out;
}

/** `tool` and `arg`: where the value is an argument, so a typed object's declared keys are known. */
export function originTrusted(origin: unknown, value: unknown, ctx: OriginFacts, tool?: string, arg?: string): boolean {
  if (typeof origin !== "string") return false;
  if (TRUSTED.has(origin)) return true;
  if (origin === "typed") return ctx.turns.has(value, typeof value === "object" && value !== null && arg !== undefined ? declaredKeys(ctx.catalogue.tools.get(tool!)?.argsSchema, arg) : undefined);
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
