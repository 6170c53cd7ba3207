/**
 * The sentence a verdict carries (checks.md: `because:` wording in the detail). A condition that
 * fails says its `because:` when it has one; otherwise, and always for a value that could not be
 * read, a plain sentence: "`quantity` is 7, more than `check_stock.in_stock` 5."
 * Built only on the way out of `evaluate` / `evaluateAll`, never per record of a filter.
 */
import type { Condition } from "../catalogue/types.js";
import { newTrace, run, HOLDS, type Compare, type Trace } from "./compare.js";
import type { Scope } from "./types.js";
import { MISSING } from "./read.js";
import { cutText } from "../canonical/cut.js";

const MAX_TEXT = 60;
const MAX_ITEMS = 5;

/** A value in a sentence: strings quoted, long ones and long lists cut short. */
function show(v: unknown, depth = 0): string {
  if (v === MISSING || v === undefined) return "nothing";
  if (typeof v === "string") return JSON.stringify(v.length > MAX_TEXT ? cutText(v, MAX_TEXT - 1) + "…" : v);
  if (v === null || typeof v !== "object") return String(v);
  if (Array.isArray(v)) {
    if (depth > 1) return "[…]";
    const shown = v.slice(0, MAX_ITEMS).map((x) => show(x, depth + 1));
    if (v.length > MAX_ITEMS) shown.push(`… (${v.length} in all)`);
    return `[${shown.join(", ")}]`;
  }
  try {
    const s = JSON.stringify(v);
    return s.length > MAX_TEXT ? cutText(s, MAX_TEXT - 1) + "…" : s;
  } catch {
    return "{…}";
  }
}

const code = (s: string) => "`" + s + "`";

function subjectOf(c: Compare): string {
  const p = code(c.subject.path);
  return c.subject.kind === "total" ? `the total of ${p}` : c.subject.kind === "count" ? `the number of ${p}` : p;
}

/** Where the operand came from, for "could not be read" and for the path a verdict names. */
function operandPath(c: Compare): string | undefined {
  const o = c.operand;
  return o.kind === "from" ? `${o.tool}.${o.path}` : o.kind === "from_row" ? o.path : undefined;
}

function operandOf(c: Compare, o: unknown): string {
  if (c.operand.kind === "list") return (o as unknown[]).length === 0 ? "no values" : (o as unknown[]).slice(0, MAX_ITEMS).map((x) => show(x)).join(", ") + ((o as unknown[]).length > MAX_ITEMS ? ", …" : "");
  const from = operandPath(c);
  return from === undefined ? show(o) : `${code(from)} ${show(o)}`;
}

const DATE_OPS = new Set(["before", "after"]);

function expected(c: Compare, v: unknown, o: unknown, forOperand: boolean): string {
  switch (c.op) {
    case "is":
    case "is_not":
      return forOperand ? "a single value" : "a single value (to compare every item, write `path[]`)";
    case "one_of":
    case "none_of":
      return forOperand ? "a list" : "a single value (to compare every item, write `path[]`)";
    case "between":
      if (forOperand) return "a two-item list `[low, high]` of numbers or dates";
      return Array.isArray(o) && typeof o[0] === "number" ? "a number" : "an ISO 8601 date";
    case "contains":
      return forOperand ? (typeof v === "string" ? "a string" : "a list") : "a string or a list";
    default:
      return DATE_OPS.has(c.op) ? "an ISO 8601 date" : "a number";
  }
}

function failSentence(c: Compare, t: Trace): string {
  const s = subjectOf(c);
  const verb = t.multi ? "has" : "is";
  const v = show(t.value);
  const o = operandOf(c, t.operand);
  switch (c.op) {
    case "is":
      return `${s} ${verb} ${v}, not ${o}.`;
    case "is_not":
      return c.operand.kind === "value" ? `${s} ${verb} ${v}, which it must not be.` : `${s} ${verb} ${v}, the same as ${o}, which it must not be.`;
    case "one_of":
      return `${s} ${verb} ${v}, not one of ${o}.`;
    case "none_of":
      return `${s} ${verb} ${v}, which is among ${o}.`;
    case "at_least":
      return `${s} ${verb} ${v}, less than ${o}.`;
    case "at_most":
      return `${s} ${verb} ${v}, more than ${o}.`;
    case "under":
      return `${s} ${verb} ${v}, not less than ${o}.`;
    case "over":
      return `${s} ${verb} ${v}, not more than ${o}.`;
    case "between": {
      const [lo, hi] = t.operand as unknown[];
      const from = operandPath(c);
      return `${s} ${verb} ${v}, not between ${show(lo)} and ${show(hi)}${from ? ` (${code(from)})` : ""}.`;
    }
    case "before":
      return `${s} ${verb} ${v}, not before ${o}.`;
    case "after":
      return `${s} ${verb} ${v}, not after ${o}.`;
    case "contains": {
      const from = operandPath(c);
      const needle = t.item === undefined ? o : show(t.item) + (from ? ` (from ${code(from)})` : "");
      return `${s} does not contain ${needle}.`;
    }
  }
}

function unknownSentence(c: Compare, t: Trace): string {
  const s = subjectOf(c);
  const path = code(c.subject.path);
  switch (t.why) {
    case "missing":
      return `${s} could not be read: ${path} is missing.`;
    case "item_missing":
      return t.item !== undefined
        ? `${s} could not be read: ${show(t.item)} is not among its readable values, and one of them is missing.`
        : `${s} could not be read: one of the values of ${path} is missing.`;
    case "bad_path":
      return `${s} could not be read: ${path} is not a path.`;
    case "not_list":
      return `${s} could not be read: ${path} is ${show(t.value)}, not a list.`;
    case "item_type":
      return `${s} could not be read: ${show(t.item)} in ${path} is not a number.`;
    case "type":
      return `${s} ${t.multi ? "has" : "is"} ${show(t.value)}, not ${expected(c, t.value, t.operand, false)}, so \`${c.op}\` cannot compare it.`;
    case "operand_missing": {
      const o = c.operand;
      if (o.kind === "from") return `${code(`${o.tool}.${o.path}`)} could not be read: \`${o.tool}\` has not returned it in this session.`;
      if (o.kind === "from_row") return `${code(o.path)} could not be read from the same record.`;
      return `the condition on ${s} has no value to compare with.`;
    }
    case "operand_type":
      return `${operandOf(c, t.operand)} is not ${expected(c, t.value, t.operand, true)}, so \`${c.op}\` cannot compare ${s} with it.`;
    case "error":
      return `the condition on ${s} could not be evaluated: ${t.value === "too_deep" ? "a value is nested too deeply" : String(t.value)}.`;
    default:
      return `the condition on ${s} could not be read.`;
  }
}

/**
 * The sentence for a condition that failed or could not be read (`t` as evaluation left it).
 * A failing `any:` without `because:` lists why each alternative fails (evaluated again here:
 * only on the way out, and conditions are pure).
 */
export function sentence(t: Trace, scope: Scope): string {
  const node = t.node as Condition | undefined;
  if (node === undefined) return "the condition could not be read.";
  if (t.why === "none" && node.kind === "any") {
    if (node.because) return node.because;
    const parts: string[] = [];
    node.conditions.forEach((child, i) => {
      const ct = newTrace();
      if (run(child, scope, ct) !== HOLDS) parts.push(`(${i + 1}) ${sentence(ct, scope)}`);
    });
    return `none of these holds: ${parts.join(" ")}`;
  }
  if (node.kind !== "compare") return "the condition could not be read.";
  if (t.why === "fails") return node.because ?? failSentence(node, t);
  return unknownSentence(node, t);
}

/** The path that could not be read: the subject's, or the operand's `tool.path` / row field. */
export function unreadablePath(t: Trace): string | undefined {
  const node = t.node;
  if (node === undefined || node.kind !== "compare") return undefined;
  // a literal operand of the wrong type is no path: name the subject it was compared with
  if (t.why === "operand_missing" || t.why === "operand_type") return operandPath(node) ?? node.subject.path;
  return node.subject.path;
}
