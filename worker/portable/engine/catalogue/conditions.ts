/**
 * Conditions (checks.md "Conditions, limits, spend, outcomes"): the meaning the JSON Schema cannot
 * say — exactly one subject (`field` / `total` / `count`) and one operator, `{from: tool.field}`
 * naming a tool that declares that field in `returns`, `{from_row}` only in a filter, paths that
 * parse, dates that are dates — and the compiled `Condition`.
 * `{from: tool.field}` splits at the first dot: `read_resume.skills[]` → tool `read_resume`,
 * path `skills[]`. `{from: check_stock.in_stock, same: sku}` (a tool's `checks` only) reads the
 * result of the `check_stock` call whose `sku` is this call's `sku`: `same` must be an argument
 * both tools declare. Without `same`, when both tools take an argument of one name, the `from`
 * reads the last result whatever that argument was: a warning.
 */
import { parseInstant } from "../conditions/values.js";
import type { SourcePosition } from "../errors.js";
import { joinPointer } from "../schema/pointer.js";
import { OPERATORS, SUBJECTS } from "./schema.js";
import { declares, parsePath } from "./paths.js";
import type { Condition, Operand, Operator } from "./types.js";

export interface ConditionScope {
  /** every declared tool's `returns` schema (undefined: declares none) */
  returnsOf: (tool: string) => { exists: boolean; returns?: object };
  /** inside `filter.keep`: `{from_row}` allowed */
  inFilter: boolean;
  position: (pointer: string, atKey?: boolean) => SourcePosition;
  report: (pointer: string, message: string, hint?: string, atKey?: boolean) => void;
  /** in a tool's `checks` (absent elsewhere, where `same` is refused): its arguments and another tool's */
  join?: {
    tool: string;
    own: readonly string[] | undefined;
    argsOf: (tool: string) => readonly string[] | undefined;
    warn: (pointer: string, message: string, hint?: string, atKey?: boolean) => void;
  };
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

export function checkPath(path: unknown, pointer: string, scope: ConditionScope, word: string): void {
  if (typeof path === "string" && parsePath(path) === undefined) {
    scope.report(pointer, `\`${word}\` path \`${path}\` does not parse`, 'write field names joined by `.`, with `[]` for every item or `[2]` for one: `"items[].price"`');
  }
}

function checkFrom(raw: Record<string, unknown>, pointer: string, scope: ConditionScope): void {
  if (typeof raw.from_row === "string") {
    if (!scope.inFilter) scope.report(joinPointer(pointer, "from_row"), "`from_row` compares with a field of the same record, so it only works in a `filter`", "use `{from: tool.field}` here", true);
    checkPath(raw.from_row, joinPointer(pointer, "from_row"), scope, "from_row");
  }
  if (typeof raw.from === "string") {
    const dot = raw.from.indexOf(".");
    if (dot <= 0) return; // the schema's pattern already said so
    const tool = raw.from.slice(0, dot);
    const path = raw.from.slice(dot + 1);
    const p = joinPointer(pointer, "from");
    const found = scope.returnsOf(tool);
    if (!found.exists) {
      scope.report(p, `\`from\` names \`${tool}\`, which is not a tool in this catalogue`, "name a tool declared under `tools:`, `http:` or `code:`");
      return;
    }
    if (parsePath(path) === undefined) {
      checkPath(path, p, scope, "from");
      return;
    }
    if (!found.returns) {
      scope.report(p, `\`from\` reads \`${raw.from}\`, but \`${tool}\` declares no \`returns\``, `declare the field in \`${tool}\`'s \`returns\` schema`);
    } else if (!declares(found.returns, path)) {
      scope.report(p, `\`from\` reads \`${raw.from}\`, but \`${tool}\`'s \`returns\` does not declare \`${path}\``, `add \`${path}\` to the \`properties\` (or \`items\`) of \`${tool}\`'s \`returns\``);
    }
    checkJoin(raw, pointer, tool, scope);
  }
}

/** `same` joins a `from` on an argument both tools take; a `from` without one where it could have one warns. */
function checkJoin(raw: Record<string, unknown>, pointer: string, tool: string, scope: ConditionScope): void {
  const join = scope.join;
  const sp = joinPointer(pointer, "same");
  if (raw.same !== undefined) {
    if (!join) {
      scope.report(sp, "`same` joins on an argument of the call being checked, so it only works in a tool's `checks`", "remove `same` here", true);
      return;
    }
    if (typeof raw.same !== "string") return; // the schema already said so
    const missing = [join.own === undefined || !join.own.includes(raw.same) ? join.tool : undefined, (join.argsOf(tool) ?? []).includes(raw.same) ? undefined : tool].filter((t) => t !== undefined);
    if (missing.length > 0) {
      scope.report(sp, `\`same: ${raw.same}\` joins on an argument both tools take, but ${missing.map((t) => `\`${t}\``).join(" and ")} ${missing.length > 1 ? "do" : "does"} not declare \`${raw.same}\``, `declare \`${raw.same}\` in the \`args\` of ${missing.map((t) => `\`${t}\``).join(" and ")}, or join on another argument`);
    }
    return;
  }
  if (!join || join.own === undefined) return;
  const theirs = join.argsOf(tool) ?? [];
  const shared = join.own.filter((a) => theirs.includes(a));
  if (shared.length === 0) return;
  const list = shared.map((a) => `\`${a}\``).join(", ");
  join.warn(joinPointer(pointer, "from"), `\`{from: ${String(raw.from)}}\` reads the last result of \`${tool}\` whatever its ${list}, though both tools take ${shared.length > 1 ? "these arguments" : "this argument"}`, `to read the result of the \`${tool}\` call for this call's \`${shared[0]}\`, write \`{from: ${String(raw.from)}, same: ${shared[0]}}\``);
}

/** Lints one condition (already shape-checked or not: every access is guarded). */
export function lintCondition(raw: unknown, pointer: string, scope: ConditionScope, depth = 0): void {
  if (!isObj(raw) || depth > 20) return;
  if (Array.isArray(raw.any)) {
    raw.any.forEach((c, i) => lintCondition(c, joinPointer(pointer, "any", i), scope, depth + 1));
    return;
  }
  const subjects = SUBJECTS.filter((s) => s in raw);
  const ops = OPERATORS.filter((o) => o in raw);
  // an unknown word is already a problem (with "did you mean"); "no operator" would repeat it
  const unknownWords = Object.keys(raw).some((k) => !(SUBJECTS as readonly string[]).includes(k) && !(OPERATORS as readonly string[]).includes(k) && k !== "because");
  if (subjects.length === 0 && !unknownWords) {
    scope.report(pointer, "this condition names no `field` (nor `total` / `count`)", "write `{field: quantity, at_most: 5}`; `total:` sums a list, `count:` counts it");
  } else if (subjects.length > 1) {
    scope.report(joinPointer(pointer, subjects[1]!), `a condition names one subject, not both \`${subjects[0]}\` and \`${subjects[1]}\``, "split it into two conditions", true);
  } else {
    checkPath(raw[subjects[0]!], joinPointer(pointer, subjects[0]!), scope, subjects[0]!);
  }
  if (ops.length === 0 && !unknownWords) {
    scope.report(pointer, "this condition names no operator", `use one of ${OPERATORS.map((o) => `\`${o}\``).join(", ")}`);
  } else if (ops.length > 1) {
    scope.report(joinPointer(pointer, ops[1]!), `a condition has one operator, not both \`${ops[0]}\` and \`${ops[1]}\``, "write two conditions: all of a tool's `checks` must hold", true);
  }
  for (const op of ops) {
    const v = raw[op];
    const p = joinPointer(pointer, op);
    if (isObj(v)) checkFrom(v, p, scope);
    if ((op === "before" || op === "after") && typeof v === "string" && Number.isNaN(parseInstant(v))) {
      scope.report(p, `\`${op}\` \`${v}\` is not a date`, 'write an ISO 8601 date: `"2025-01-31"` or `"2025-01-31T12:00:00Z"`');
    }
    if (op === "between" && Array.isArray(v) && v.length === 2) {
      const [lo, hi] = v;
      if (typeof lo !== typeof hi) scope.report(p, "`between` compares two numbers or two dates, not one of each");
      else if (typeof lo === "number" && typeof hi === "number" && lo > hi) scope.report(p, `\`between\` goes from low to high: \`${lo}\` is more than \`${hi}\``, `write \`[${hi}, ${lo}]\``);
      else if (typeof lo === "string" && (Number.isNaN(parseInstant(lo)) || Number.isNaN(parseInstant(hi)))) scope.report(p, "`between` strings must be dates", 'write `["2025-01-01", "2025-12-31"]`');
    }
  }
}

function operand(v: unknown): Operand {
  if (isObj(v)) {
    if (typeof v.from === "string") {
      const dot = v.from.indexOf(".");
      return { kind: "from", tool: v.from.slice(0, dot), path: v.from.slice(dot + 1), ...(typeof v.same === "string" ? { same: v.same } : {}) };
    }
    return { kind: "from_row", path: String(v.from_row) };
  }
  if (Array.isArray(v)) return { kind: "list", values: v.slice() };
  return { kind: "value", value: v };
}

/** The compiled condition; only called on a catalogue that linted clean. */
export function compileCondition(raw: Record<string, unknown>, pointer: string, position: (p: string) => SourcePosition): Condition {
  const source = position(pointer);
  const because = typeof raw.because === "string" ? { because: raw.because } : {};
  if (Array.isArray(raw.any)) {
    return { kind: "any", conditions: raw.any.map((c, i) => compileCondition(c as Record<string, unknown>, joinPointer(pointer, "any", i), position)), ...because, source };
  }
  const subject = SUBJECTS.find((s) => s in raw)!;
  const op = OPERATORS.find((o) => o in raw)! as Operator;
  return { kind: "compare", subject: { kind: subject, path: String(raw[subject]) }, op, operand: operand(raw[op]), ...because, source };
}
