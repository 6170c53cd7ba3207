/**
 * The condition language's meaning (checks.md "Conditions, limits, spend, outcomes"), as
 * three-valued (Kleene) logic: every condition holds, fails, or is unknown (a value nobody could
 * read). Evaluation returns a small code and writes what decided into a `Trace`; the sentence is
 * built only when a caller wants one (wording.ts), so a filter over many records builds none.
 *
 * Subjects (what `field` / `total` / `count` read from `scope.subject`):
 *   - `field: path`: the value there. A `[]` path yields every item's value; the condition then
 *     holds when it holds for every value (Kleene AND: one value that fails makes it fail, else
 *     one unreadable value makes it unknown). An empty list holds vacuously (a job requiring no
 *     skills passes `required_skills[] one_of …`). `contains` instead reads the values as one list.
 *   - `total: path`: the sum of a list of numbers (`items[].price`, or a path to a list of
 *     numbers). Anything in it that is not a number, or absent, makes it unknown; an empty list
 *     totals 0; a path to something that is not a list is unknown. The sum is rounded to 15
 *     significant digits, so that 0.1 + 0.2 totals 0.3 (amounts, not floating-point noise).
 *   - `count: path`: the length of a list, or the number of values a `[]` path yields (an absent
 *     value among them is unknown); not a list: unknown.
 *
 * Operators (a subject value of the wrong type for the operator is unknown, never a pass):
 *   - `is`, `is_not`: JSON equality (values.ts: `5` is not `"5"`). A single value against a list or
 *     map (or the reverse) is a wrong type, unknown: `{field: tags, is_not: x}` on a list would
 *     otherwise hold silently; write `tags[]`.
 *   - `one_of`, `none_of`: the operand is a list (or a `from` / `from_row` yielding one); the
 *     subject is a single value (a list or map is unknown: write `path[]`).
 *   - `at_least` (≥), `at_most` (≤), `under` (<), `over` (>): finite numbers on both sides.
 *   - `between: [low, high]`: inclusive; two numbers (the subject a number) or two dates.
 *   - `before` (<), `after` (>): ISO 8601 dates or date-times compared as instants (values.ts
 *     `parseInstant`); a date alone is midnight UTC. Anything that is not such a date is unknown.
 *   - `contains`: a string contains a substring (the operand must be a string), or a list contains
 *     an element (JSON equality). With a `[]` subject the values are that list: found among the
 *     readable ones holds, else one unreadable makes it unknown. With a `from`/`from_row` whose
 *     path has `[]`, the subject must contain every one of those values.
 *
 * Operands: a value, a list, `{from: tool.path}` (`scope.from`; undefined: unknown), and
 * `{from_row: path}` (read from `scope.row`, or from `scope.subject` when no row is given). An
 * operand is read once per condition, after the subject (an empty `[]` subject holds without it).
 *
 * Combining: a list of conditions (checks, `keep`, `done_when`) holds when all hold (Kleene AND:
 * the first that fails decides, even after an unknown one; otherwise the first unknown one). `any:`
 * holds when one holds (Kleene OR); it is unknown only when none holds and one is unknown, and
 * fails when all fail (an empty `any` fails).
 */
import type { Condition } from "../catalogue/types.js";
import type { Scope } from "./types.js";
import { compilePath, MISSING, readMany, readOne, readValue, type CompiledPath } from "./read.js";
import { isStructured, jsonEqual, member, parseInstant, TooDeep } from "./values.js";

export type Compare = Extract<Condition, { kind: "compare" }>;

export const HOLDS = 0;
export const FAILS = 1;
const UNKNOWN = 2;
export type Code = typeof HOLDS | typeof FAILS | typeof UNKNOWN;

/** Why a condition did not hold. */
type Why =
  | "fails" //            the comparison is false
  | "none" //             `any:`: no alternative holds
  | "missing" //          the subject's path is absent
  | "item_missing" //     one value of a `[]` subject is absent
  | "bad_path" //         the subject's path does not parse
  | "not_list" //         `total` / `count` of something that is not a list
  | "type" //             the subject value is the wrong type for the operator
  | "item_type" //        `total`: a value in the list is not a number
  | "operand_missing" //  `from` / `from_row` absent
  | "operand_type" //     the operand is the wrong type for the operator
  | "error"; //           the evaluator could not finish (data nested past any JSON's depth)

/** What decided the last condition that did not hold. Mutable, one per evaluation. */
export interface Trace {
  node: Condition | undefined;
  why: Why;
  /** the subject value (for a `[]` subject: the value that decided) */
  value: unknown;
  /** the operand as read */
  operand: unknown;
  /** `contains` with several values: the one not contained; `total`: the item that is not a number */
  item: unknown;
  /** the subject yields several values (`[]`) */
  multi: boolean;
}

export const newTrace = (): Trace => ({ node: undefined, why: "fails", value: undefined, operand: undefined, item: undefined, multi: false });

function set(t: Trace, c: Condition, why: Why, value: unknown, operand: unknown, multi: boolean, item?: unknown): void {
  t.node = c;
  t.why = why;
  t.value = value;
  t.operand = operand;
  t.item = item;
  t.multi = multi;
}

/** One condition, never throwing: an exception (too deep to compare, a throwing `from`) is unknown. */
export function run(c: Condition, scope: Scope, t: Trace): Code {
  try {
    return evalCond(c, scope, t);
  } catch (err) {
    set(t, c, "error", err instanceof TooDeep ? "too_deep" : String((err as Error)?.message ?? err).slice(0, 200), undefined, false);
    return UNKNOWN;
  }
}

/** Kleene AND over a list: the first that fails decides; else the first unknown; else holds. */
export function runAll(cs: readonly Condition[], scope: Scope, t: Trace): Code {
  let saved: Trace | undefined;
  for (let i = 0; i < cs.length; i++) {
    const r = run(cs[i]!, scope, t);
    if (r === FAILS) return FAILS;
    if (r === UNKNOWN && saved === undefined) saved = { ...t };
  }
  if (saved === undefined) return HOLDS;
  Object.assign(t, saved);
  return UNKNOWN;
}

function evalCond(c: Condition, scope: Scope, t: Trace): Code {
  if (c.kind === "compare") return evalCompare(c, scope, t);
  if (c.kind === "any") return evalAny(c, scope, t);
  set(t, c, "error", "not a condition", undefined, false);
  return UNKNOWN;
}

function evalAny(c: Extract<Condition, { kind: "any" }>, scope: Scope, t: Trace): Code {
  let saved: Trace | undefined;
  for (let i = 0; i < c.conditions.length; i++) {
    const r = evalCond(c.conditions[i]!, scope, t);
    if (r === HOLDS) return HOLDS;
    if (r === UNKNOWN && saved === undefined) saved = { ...t };
  }
  if (saved !== undefined) {
    Object.assign(t, saved);
    return UNKNOWN;
  }
  set(t, c, "none", undefined, undefined, false);
  return FAILS;
}

/** The operand as read; MISSING (with the trace set) when a `from` / `from_row` is absent. */
function operandOf(c: Compare, scope: Scope, t: Trace, value: unknown, multi: boolean): unknown {
  const o = c.operand;
  let r: unknown;
  switch (o.kind) {
    case "value":
      r = o.value;
      break;
    case "list":
      return o.values;
    case "from":
      r = scope.from(o.tool, o.path, o.same);
      break;
    case "from_row":
      r = readValue(scope.row !== undefined ? scope.row : scope.subject, o.path);
      break;
    default:
      r = undefined;
  }
  if (r === undefined || r === MISSING) {
    set(t, c, "operand_missing", value, undefined, multi);
    return MISSING;
  }
  return r;
}

/** Does the operand read several values (a `from` / `from_row` path with `[]`)? */
function operandMulti(c: Compare): boolean {
  const o = c.operand;
  if (o.kind !== "from" && o.kind !== "from_row") return false;
  const p = compilePath(o.path);
  return p !== null && p.multi;
}

/** The values a `[]` path yields (the list itself when `[]` is last: no copy), or MISSING. */
function valuesOf(root: unknown, p: CompiledPath): readonly unknown[] | typeof MISSING {
  if (p.eachLast) {
    const list = readOne(root, p.segs, 0, p.segs.length - 1);
    return Array.isArray(list) ? list : MISSING;
  }
  const out: unknown[] = [];
  return readMany(root, p.segs, 0, out) ? out : MISSING;
}

const absent = (v: unknown) => v === MISSING || v === undefined;

function evalCompare(c: Compare, scope: Scope, t: Trace): Code {
  const p = compilePath(c.subject.path);
  if (p === null) {
    set(t, c, "bad_path", undefined, undefined, false);
    return UNKNOWN;
  }
  const root = scope.subject;
  const kind = c.subject.kind;

  if (kind === "field" && !p.multi) {
    const v = readOne(root, p.segs);
    if (v === MISSING) return set(t, c, "missing", undefined, undefined, false), UNKNOWN;
    const o = operandOf(c, scope, t, v, false);
    return o === MISSING ? UNKNOWN : compareOne(c, v, o, t, false);
  }

  // a list: the values of a `[]` path, or (total / count without `[]`) the list at the path
  let list: readonly unknown[];
  if (p.multi) {
    const vs = valuesOf(root, p);
    if (vs === MISSING) return set(t, c, "missing", undefined, undefined, true), UNKNOWN;
    list = vs;
  } else {
    const v = readOne(root, p.segs);
    if (v === MISSING) return set(t, c, "missing", undefined, undefined, false), UNKNOWN;
    if (!Array.isArray(v)) return set(t, c, "not_list", v, undefined, false), UNKNOWN;
    list = v;
  }

  if (kind === "count") {
    for (let i = 0; i < list.length; i++) if (absent(list[i])) return set(t, c, "item_missing", undefined, undefined, true), UNKNOWN;
    const o = operandOf(c, scope, t, list.length, false);
    return o === MISSING ? UNKNOWN : compareOne(c, list.length, o, t, false);
  }
  if (kind === "total") {
    let sum = 0;
    for (let i = 0; i < list.length; i++) {
      const v = list[i];
      if (absent(v)) return set(t, c, "item_missing", undefined, undefined, true), UNKNOWN;
      if (typeof v !== "number" || !Number.isFinite(v)) return set(t, c, "item_type", undefined, undefined, true, v), UNKNOWN;
      sum += v;
    }
    if (!Number.isInteger(sum)) sum = Number(sum.toPrecision(15));
    const o = operandOf(c, scope, t, sum, false);
    return o === MISSING ? UNKNOWN : compareOne(c, sum, o, t, false);
  }

  // `field` with `[]`
  if (c.op === "contains") {
    const o = operandOf(c, scope, t, list, true);
    return o === MISSING ? UNKNOWN : contains(c, list, o, t, true);
  }
  if (list.length === 0) return HOLDS; // vacuously: every one of no values
  const o = operandOf(c, scope, t, undefined, true);
  if (o === MISSING) return UNKNOWN;
  let unknownWhy: Why | undefined;
  let unknownValue: unknown;
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    let r: Code;
    if (absent(v)) {
      set(t, c, "item_missing", undefined, o, true);
      r = UNKNOWN;
    } else r = compareOne(c, v, o, t, true);
    if (r === FAILS) return FAILS;
    if (r === UNKNOWN && unknownWhy === undefined) {
      unknownWhy = t.why;
      unknownValue = t.value;
    }
  }
  if (unknownWhy === undefined) return HOLDS;
  set(t, c, unknownWhy, unknownValue, o, true);
  return UNKNOWN;
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** One subject value against the operand. */
function compareOne(c: Compare, v: unknown, o: unknown, t: Trace, multi: boolean): Code {
  let ok: boolean;
  switch (c.op) {
    case "is":
    case "is_not": {
      const sv = isStructured(v);
      if (sv !== isStructured(o)) return set(t, c, sv ? "type" : "operand_type", v, o, multi), UNKNOWN;
      ok = jsonEqual(v, o) === (c.op === "is");
      break;
    }
    case "one_of":
    case "none_of":
      if (!Array.isArray(o)) return set(t, c, "operand_type", v, o, multi), UNKNOWN;
      if (isStructured(v)) return set(t, c, "type", v, o, multi), UNKNOWN;
      ok = o.includes(v) === (c.op === "one_of");
      break;
    case "at_least":
    case "at_most":
    case "under":
    case "over":
      if (!finite(v)) return set(t, c, "type", v, o, multi), UNKNOWN;
      if (!finite(o)) return set(t, c, "operand_type", v, o, multi), UNKNOWN;
      ok = c.op === "at_least" ? v >= o : c.op === "at_most" ? v <= o : c.op === "under" ? v < o : v > o;
      break;
    case "between": {
      if (!Array.isArray(o) || o.length !== 2) return set(t, c, "operand_type", v, o, multi), UNKNOWN;
      const lo = o[0];
      const hi = o[1];
      if (finite(lo) && finite(hi)) {
        if (!finite(v)) return set(t, c, "type", v, o, multi), UNKNOWN;
        ok = lo <= v && v <= hi;
      } else {
        const l = parseInstant(lo);
        const h = parseInstant(hi);
        if (Number.isNaN(l) || Number.isNaN(h)) return set(t, c, "operand_type", v, o, multi), UNKNOWN;
        const x = parseInstant(v);
        if (Number.isNaN(x)) return set(t, c, "type", v, o, multi), UNKNOWN;
        ok = l <= x && x <= h;
      }
      break;
    }
    case "before":
    case "after": {
      const x = parseInstant(v);
      if (Number.isNaN(x)) return set(t, c, "type", v, o, multi), UNKNOWN;
      const y = parseInstant(o);
      if (Number.isNaN(y)) return set(t, c, "operand_type", v, o, multi), UNKNOWN;
      ok = c.op === "before" ? x < y : x > y;
      break;
    }
    case "contains":
      return contains(c, v, o, t, multi);
    default:
      return set(t, c, "error", "unknown operator", o, multi), UNKNOWN;
  }
  if (ok) return HOLDS;
  set(t, c, "fails", v, o, multi);
  return FAILS;
}

/** `contains`: a string holds a substring, or a list an element; every one of a `[]` operand's values. */
function contains(c: Compare, v: unknown, o: unknown, t: Trace, multi: boolean): Code {
  const isText = typeof v === "string";
  if (!isText && !Array.isArray(v)) return set(t, c, "type", v, o, multi), UNKNOWN;
  const several = operandMulti(c);
  if (several && !Array.isArray(o)) return set(t, c, "operand_type", v, o, multi), UNKNOWN;
  const n = several ? (o as unknown[]).length : 1;
  let unknownNeedle: unknown = MISSING;
  for (let i = 0; i < n; i++) {
    const needle = several ? (o as unknown[])[i] : o;
    if (isText) {
      if (typeof needle !== "string") return set(t, c, "operand_type", v, o, multi), UNKNOWN;
      if (!(v as string).includes(needle)) return set(t, c, "fails", v, o, multi, needle), FAILS;
      continue;
    }
    const list = v as readonly unknown[];
    if (member(list, needle)) continue;
    // not among the readable values: unknown if one could not be read, else it fails
    if (multi && (list.includes(MISSING) || list.includes(undefined))) {
      if (unknownNeedle === MISSING) unknownNeedle = needle;
      continue;
    }
    return set(t, c, "fails", v, o, multi, needle), FAILS;
  }
  if (unknownNeedle === MISSING) return HOLDS;
  set(t, c, "item_missing", v, o, multi, unknownNeedle);
  return UNKNOWN;
}
