/**
 * What a rulebook must say, and every problem with file:line:column and a hint (the catalogue's
 * habit, errors.ts `CatalogueProblem`). Runs on any data (every access guarded), so one run reports
 * everything:
 *   - shape: `rules:` a list of maps; only the words `name`, `flow`, `tools`, `when`, `then`,
 *     `question`, `because` ("did you mean" by edit distance); `name` snake_case and not one of
 *     the check's own reason codes; `then` `refuse` or `ask`; `question` exactly on asking rules;
 *   - conditions: the same language as a tool's `checks`, validated by the catalogue's own
 *     (ahead-of-time) validator and condition linter, so the two can never disagree; a rule reads
 *     `args.<name>` or `facts.<name>`, or `{from: tool.field}`;
 *   - with a catalogue: `tools` and `from` name its tools, and `args.<name>` is an argument every
 *     tool the rule applies to takes (a value no call can carry is unknown, and unknown refuses).
 */
import { REASON_CODES } from "../check/types.js";
import type { CompiledCatalogue } from "../catalogue/types.js";
import { sortProblems, type CatalogueProblem } from "../errors.js";
import { lintCondition, type ConditionScope } from "../catalogue/conditions.js";
import { lintFormat } from "../catalogue/lint-format.js";
import { declares, parsePath } from "../catalogue/paths.js";
import { positionOf, type Located, type Source } from "../catalogue/source.js";
import { describeValue } from "../catalogue/describe.js";
import { joinPointer, splitPointer } from "../schema/pointer.js";
import { closest, unknownWordHint } from "../schema/suggest.js";

const TOP_WORDS = ["rules"] as const;
const RULE_WORDS = ["name", "flow", "tools", "when", "then", "question", "because"] as const;
const ACTIONS = ["refuse", "ask"] as const;
const RULE_NAME = /^[a-z][a-z0-9_]*$/;
const FLOW_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;
const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;
/** A rule reads the call's arguments or the facts sent with the check. */
const ROOTS = ["args", "facts"] as const;

/** checks.md reason codes: a rule named like one would make an answer ambiguous. */
const RESERVED_NAMES: readonly string[] = REASON_CODES;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const has = (o: Obj, k: string) => Object.prototype.hasOwnProperty.call(o, k);

export interface LintSource extends Source {
  /** a spreadsheet's row for a pointer (CSV only) */
  rowOf?(pointer: string): number | undefined;
}

export interface RulebookLintOptions {
  /** when given: tool names, `from` fields and `args.<name>` are checked against it */
  catalogue?: CompiledCatalogue;
}

/** `rule \`refund_only_paid_orders\` (row 3): ` for a pointer inside a rule; "" at the top. */
function contextOf(source: LintSource, pointer: string): string {
  const segs = splitPointer(pointer);
  if (segs[0] !== "rules" || segs.length < 2 || !/^\d+$/.test(segs[1]!)) return "";
  const rules = (source.data as Obj | null)?.rules;
  const rule = Array.isArray(rules) ? rules[Number(segs[1])] : undefined;
  const name = isObj(rule) && typeof rule.name === "string" && rule.name.length <= 80 ? rule.name : undefined;
  const row = source.rowOf?.(pointer);
  const where = row !== undefined ? ` (row ${row})` : "";
  if (segs.length === 2 && name === undefined) return where ? `row ${row}: ` : "";
  return `${name !== undefined ? `rule \`${name}\`` : `rules[${segs[1]}]`}${where}: `;
}

export function lintRulebookData(source: LintSource, options: RulebookLintOptions = {}): CatalogueProblem[] {
  const problems: CatalogueProblem[] = [];
  const data = source.data;
  const report = (pointer: string, message: string, hint?: string, atKey = false) => {
    const where = source.fromObject ? ` (at \`${pointer || "/"}\`)` : "";
    problems.push({ ...positionOf(source, pointer, atKey), pointer, message: contextOf(source, pointer) + message + where, ...(hint ? { hint } : {}) });
  };
  if (!isObj(data)) {
    report("", "the rulebook must be a map with `rules:`", "start with `rules:` and a list of rules");
    return problems;
  }
  for (const k of Object.keys(data)) if (!(TOP_WORDS as readonly string[]).includes(k)) report(joinPointer("", k), `unknown word \`${k}\``, unknownWordHint(k, TOP_WORDS), true);
  if (!has(data, "rules")) {
    report("", "the rulebook is missing `rules`", "add `rules:` and a list of rules");
    return problems;
  }
  const rules = data.rules;
  if (!Array.isArray(rules)) {
    report("/rules", `\`rules\` must be a list, not ${describeValue(rules)}`, "expected a list of rules: `- {name: refund_only_paid_orders, flow: refunds, then: refuse, …}`");
    return problems;
  }

  const catalogue = options.catalogue;
  const toolNames = catalogue ? [...catalogue.tools.keys()] : [];
  const firstByName = new Map<string, number>();
  const conditionLists: { index: number; when: unknown[] }[] = [];

  rules.forEach((rule, i) => {
    const rp = `/rules/${i}`;
    const at = (k: string) => joinPointer(rp, k);
    if (!isObj(rule)) {
      report(rp, `\`rules[${i}]\` must be a map, not ${describeValue(rule)}`, "expected a rule: `{name: refund_only_paid_orders, flow: refunds, then: refuse}`");
      return;
    }
    for (const k of Object.keys(rule)) if (!(RULE_WORDS as readonly string[]).includes(k)) report(at(k), `unknown word \`${k}\``, unknownWordHint(k, RULE_WORDS), true);
    for (const need of ["name", "flow", "then"] as const) {
      if (!has(rule, need)) report(rp, `\`rules[${i}]\` is missing \`${need}\``, `add \`${need}\`: ${NEED_HINT[need]}`);
    }

    // name: snake_case, unique, not a reason code of the check itself
    if (has(rule, "name")) {
      const name = rule.name;
      if (typeof name !== "string" || !RULE_NAME.test(name) || name.length > 64) {
        const snake = typeof name === "string" ? toSnake(name) : "";
        report(at("name"), `${describeValue(name)} is not a valid rule \`name\``, `a rule's name is the reason code it refuses with: snake_case, at most 64 characters${snake && RULE_NAME.test(snake) ? `, e.g. \`${snake}\`` : ", e.g. `refund_only_paid_orders`"}`);
      } else if (RESERVED_NAMES.includes(name)) {
        report(at("name"), `\`${name}\` is a reason code of the check itself, so it cannot name a rule`, "name the rule for what it protects, e.g. `refund_only_paid_orders`");
      } else if (firstByName.has(name)) {
        const line = positionOf(source, `/rules/${firstByName.get(name)}/name`).line;
        report(at("name"), `rule \`${name}\` is written twice`, `the first is at line ${line}; give each rule its own name (its conditions all go under one \`when\`)`);
      } else firstByName.set(name, i);
    }
    if (has(rule, "flow") && (typeof rule.flow !== "string" || !FLOW_NAME.test(rule.flow) || rule.flow.length > 64)) {
      report(at("flow"), `${describeValue(rule.flow)} is not a valid \`flow\``, "a flow's name: letters, digits, `_` and `-`, e.g. `refunds`");
    }

    // then / question / because
    const then = rule.then;
    if (has(rule, "then") && !(ACTIONS as readonly unknown[]).includes(then)) {
      const near = typeof then === "string" ? closest(then, ACTIONS) : undefined;
      report(at("then"), `\`then\` must be one of \`refuse\`, \`ask\`, not ${describeValue(then)}`, near ? `did you mean \`${near}\`?` : "`refuse` refuses the call naming the rule; `ask` asks a person (gate_clarify)");
    }
    if (has(rule, "question") && (typeof rule.question !== "string" || rule.question.trim() === "")) {
      report(at("question"), `\`question\` must be the words a person is asked, not ${describeValue(rule.question)}`, 'e.g. `question: "Refunds over 500 need a second look: go ahead?"`');
    }
    if (has(rule, "because") && (typeof rule.because !== "string" || rule.because.trim() === "")) {
      report(at("because"), `\`because\` must be the words of the refusal, not ${describeValue(rule.because)}`, 'e.g. `because: "Only paid orders can be refunded."`');
    }
    if (then === "ask" && !has(rule, "question")) report(at("then"), "an asking rule needs a `question`", 'add `question:` — what the person is asked, e.g. "Refunds over 500 need a second look: go ahead?"');
    if (then === "refuse" && has(rule, "question")) report(at("question"), "`question` is for `then: ask`", "a refusal is not asked; its words go in `because`", true);
    if (then === "ask" && has(rule, "because")) report(at("because"), "`because` words a refusal", "an asking rule's words are its `question`", true);

    // tools
    let applies: string[] | undefined; // the catalogue tools the rule applies to, for the `args` check
    if (has(rule, "tools")) {
      const tools = rule.tools;
      if (!Array.isArray(tools)) {
        report(at("tools"), `\`tools\` must be a list, not ${describeValue(tools)}`, "expected a list of tool names, e.g. `[refund_card]`; leave it out for every tool");
      } else if (tools.length === 0) {
        report(at("tools"), "`tools` is empty, so the rule applies to nothing", "name the tools it applies to, or leave `tools` out for every tool");
      } else {
        const seen = new Set<string>();
        applies = [];
        tools.forEach((t, k) => {
          const p = joinPointer(at("tools"), k);
          if (typeof t !== "string" || !TOOL_NAME.test(t)) return report(p, `${describeValue(t)} is not a valid tool name`, "a tool name: letters, digits, `_` and `-` (no dots), at most 128 characters");
          if (seen.has(t)) return report(p, `\`tools\` names \`${t}\` twice`, "remove one of them");
          seen.add(t);
          if (catalogue && !catalogue.tools.has(t)) {
            const near = closest(t, toolNames);
            return report(p, `\`tools\` names \`${t}\`, which is not a tool in the catalogue`, near ? `did you mean \`${near}\`?` : "name a tool declared in the catalogue's `tools:`, `http:` or `code:`");
          }
          applies!.push(t);
        });
      }
    } else if (catalogue) applies = toolNames;

    // when
    if (has(rule, "when")) {
      const when = rule.when;
      if (!Array.isArray(when)) {
        report(at("when"), `\`when\` must be a list of conditions, not ${describeValue(when)}`, "e.g. `when: [{field: facts.order_status, is_not: paid}]`; leave it out and the rule always applies");
      } else {
        conditionList({ source, report, catalogue, applies, then: typeof then === "string" ? then : "refuse", rulePointer: rp, hasTools: has(rule, "tools") }, when);
        conditionLists.push({ index: i, when });
      }
    }
  });

  problems.push(...conditionFormat(source, conditionLists));
  return sortProblems(problems);
}

const NEED_HINT = {
  name: "the rule's reason code, in snake_case, e.g. `refund_only_paid_orders`",
  flow: "the business flow the rule belongs to, e.g. `refunds`",
  then: "`refuse` or `ask`",
} as const;

function toSnake(s: string): string {
  return s
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase()
    .replace(/^[0-9_]+/, "");
}

interface ConditionContext {
  source: LintSource;
  report: (pointer: string, message: string, hint?: string, atKey?: boolean) => void;
  catalogue?: CompiledCatalogue | undefined;
  applies?: string[] | undefined;
  then: string;
  rulePointer: string;
  hasTools: boolean;
}

/** The meaning of a rule's conditions: the catalogue's condition linter, then the rulebook's roots. */
function conditionList(c: ConditionContext, when: unknown[]): void {
  const { catalogue, report } = c;
  const scope: ConditionScope = {
    returnsOf: (tool) => {
      if (!catalogue) return { exists: true }; // no catalogue given: `from` is checked once it is
      const t = catalogue.tools.get(tool);
      return t ? { exists: true, ...(t.returnsSchema ? { returns: t.returnsSchema } : {}) } : { exists: false };
    },
    inFilter: false,
    position: (p, atKey) => positionOf(c.source, p, atKey),
    report: (p, message, hint, atKey) => {
      if (!catalogue && message.includes("declares no `returns`")) return;
      const words = (t: string) => t.replace("which is not a tool in this catalogue", "which is not a tool in the catalogue").replace("all of a tool's `checks` must hold", "all of a rule's `when` must hold");
      report(p, words(message), hint === undefined ? undefined : words(hint), atKey);
    },
  };
  when.forEach((cond, j) => {
    const p = joinPointer(c.rulePointer, "when", j);
    lintCondition(cond, p, scope);
    subjects(cond, p, 0, (path, sp) => checkRoot(c, path, sp));
  });
}

/** Calls `visit` with every subject path (`field` / `total` / `count`) of a condition, `any` included. */
function subjects(cond: unknown, pointer: string, depth: number, visit: (path: string, pointer: string) => void): void {
  if (!isObj(cond) || depth > 20) return;
  if (Array.isArray(cond.any)) {
    cond.any.forEach((x, k) => subjects(x, joinPointer(pointer, "any", k), depth + 1, visit));
    return;
  }
  for (const s of ["field", "total", "count"]) if (typeof cond[s] === "string") visit(cond[s] as string, joinPointer(pointer, s));
}

function checkRoot(c: ConditionContext, path: string, pointer: string): void {
  const segs = parsePath(path);
  if (!segs) return; // lintCondition said it does not parse
  const head = segs[0]!;
  const root = head.kind === "field" ? head.name : "";
  if (!(ROOTS as readonly string[]).includes(root)) {
    const near = root ? closest(root, ROOTS) : undefined;
    const hint = near && segs.length > 1
      ? `did you mean \`${near}${path.slice(root.length)}\`?`
      : `write \`facts.${path}\` or \`args.${path}\`; \`{from: tool.field}\` reads what a tool returned`;
    c.report(pointer, `a rule reads \`args.<name>\` (the call's arguments) or \`facts.<name>\` (facts sent with the check), not \`${path}\``, hint);
    return;
  }
  if (segs.length < 2 || segs[1]!.kind !== "field") {
    c.report(pointer, `\`${root}\` alone is not a value a rule can compare`, `name a field: \`${root}.${root === "args" ? "amount" : "order_status"}\``);
    return;
  }
  if (root !== "args" || !c.catalogue || !c.applies || c.applies.length === 0) return;
  const argPath = path.slice(path.indexOf(".") + 1);
  const missing = c.applies.filter((t) => {
    const schema = c.catalogue!.tools.get(t)?.argsSchema;
    return !schema || !declares(schema, argPath);
  });
  if (missing.length === 0) return;
  const shown = missing.slice(0, 3).map((t) => `\`${t}\``).join(", ") + (missing.length > 3 ? ` and ${missing.length - 3} more` : "");
  const consequence = `a call to ${missing.length === 1 ? "it" : "them"} never carries it, so the rule would always ${c.then === "ask" ? "ask" : "refuse"} (an unknown value never passes)`;
  let hint: string;
  if (missing.length === c.applies.length && !c.hasTools) {
    hint = `no tool in the catalogue takes it, so ${consequence.replace(/^a call to (it|them) never carries it, so /, "")}: check the name`;
  } else if (!c.hasTools) {
    hint = `a rule without \`tools\` applies to every call, and ${consequence}: name the tools it is for, e.g. \`tools: [${c.applies.find((t) => !missing.includes(t)) ?? "refund_card"}]\``;
  } else {
    const schema = c.catalogue.tools.get(missing[0]!)?.argsSchema as Obj | undefined;
    const props = isObj(schema?.properties) ? Object.keys(schema!.properties as Obj) : [];
    const first = (segs[1] as { name: string }).name;
    const near = closest(first, props);
    hint = near ? `did you mean \`args.${near}\`? ${consequence}` : `check the name against the tool's \`args\`: ${consequence}`;
  }
  c.report(pointer, `\`${path}\` is not an argument of ${shown}`, hint);
}

/**
 * The conditions' shape, by the catalogue's own validator: every rule's `when` is checked as the
 * `checks` of a stand-in tool, and the problems are moved back to the rule (pointer, words).
 */
function conditionFormat(source: LintSource, lists: { index: number; when: unknown[] }[]): CatalogueProblem[] {
  if (lists.length === 0) return [];
  const STAND_IN = "r";
  const tools = lists.map((l) => ({ name: STAND_IN, checks: l.when }));
  const positions = new Map<string, Located>();
  const toSynthetic = new Map<number, number>();
  lists.forEach((l, k) => toSynthetic.set(l.index, k));
  const fromSynthetic = (pointer: string): string => {
    const m = /^\/tools\/(\d+)(?:\/checks(\/.*)?)?$/.exec(pointer);
    if (!m) return "/rules";
    return `/rules/${lists[Number(m[1])]!.index}/when${m[2] ?? ""}`;
  };
  for (const [p, located] of source.positions) {
    const m = /^\/rules\/(\d+)\/when(\/.*)?$/.exec(p);
    if (!m) continue;
    const k = toSynthetic.get(Number(m[1]));
    if (k !== undefined) positions.set(`/tools/${k}/checks${m[2] ?? ""}`, located);
  }
  const synthetic: Source = { file: source.file, data: { tools }, positions, problems: [], fromObject: false };
  const prefix = `tool \`${STAND_IN}\`: `;
  const out: CatalogueProblem[] = [];
  for (const p of lintFormat(synthetic)) {
    const pointer = fromSynthetic(p.pointer);
    const body = (p.message.startsWith(prefix) ? p.message.slice(prefix.length) : p.message).replace(/`checks(\[\d+\])?`/g, (_, ix: string | undefined) => `\`when${ix ?? ""}\``);
    const where = source.fromObject ? ` (at \`${pointer || "/"}\`)` : "";
    const position = source.fromObject ? positionOf(source, pointer) : { file: p.file, line: p.line, column: p.column };
    out.push({ ...position, pointer, message: contextOf(source, pointer) + body + where, ...(p.hint ? { hint: p.hint } : {}) });
  }
  return out;
}

export { sortProblems };
