/**
 * A rulebook that linted clean becomes the deep-frozen `CompiledRulebook` (types.ts): conditions
 * compiled by the catalogue's own `compileCondition`, rules indexed by tool, the digest taken over
 * the registry form (so a YAML rulebook and the same rules as a spreadsheet have one digest).
 * Nothing here reports problems: lint already did.
 */
import { compileCondition } from "../catalogue/conditions.js";
import { jsonDigest, type Sha256 } from "../catalogue/digest.js";
import { deepFreeze } from "../catalogue/freeze.js";
import type { Condition } from "../catalogue/types.js";
import type { SourcePosition } from "../errors.js";
import { joinPointer } from "../schema/pointer.js";
import type { CompiledRule, CompiledRulebook, RegistryCondition, RegistryRule, RuleAction } from "./types.js";

type Obj = Record<string, unknown>;

export interface CompileRulesInput {
  data: Obj;
  /** the rulebook's file name: `CompiledRulebook.source` */
  file: string;
  position: (pointer: string) => SourcePosition;
  sha256?: (b: Uint8Array) => Uint8Array;
}

export function compileRules(input: CompileRulesInput): CompiledRulebook {
  const { position } = input;
  const rules: CompiledRule[] = (input.data.rules as Obj[]).map((r, i) => {
    const p = `/rules/${i}`;
    const when = Array.isArray(r.when) ? r.when.map((c, j) => compileCondition(c as Obj, joinPointer(p, "when", j), position)) : [];
    return {
      name: String(r.name),
      flow: String(r.flow),
      ...(Array.isArray(r.tools) ? { tools: r.tools.map(String) } : {}),
      when,
      then: r.then as RuleAction,
      ...(typeof r.question === "string" ? { question: r.question } : {}),
      ...(typeof r.because === "string" ? { because: r.because } : {}),
      source: position(p),
    };
  });
  return assemble(rules, input.file, input.sha256);
}

/** Indexes, digests and freezes a list of compiled rules. */
export function assemble(rules: CompiledRule[], source: string, hash?: Sha256): CompiledRulebook {
  const everyTool = rules.filter((r) => !r.tools);
  const named: string[] = [];
  for (const r of rules) for (const t of r.tools ?? []) if (!named.includes(t)) named.push(t);
  const byTool = new Map<string, readonly CompiledRule[]>(named.map((t) => [t, rules.filter((r) => !r.tools || r.tools.includes(t))]));
  const flows: string[] = [];
  for (const r of rules) if (!flows.includes(r.flow)) flows.push(r.flow);
  return deepFreeze({ v: 1 as const, digest: rulesDigest(rules.map(registryRule), hash), source, rules, flows, byTool, everyTool });
}

/** SHA-256 hex of the canonical JSON of `{v: 1, rules}` (registry form). */
export function rulesDigest(rules: readonly unknown[], hash?: Sha256): string {
  return jsonDigest({ v: 1, rules }, hash);
}

/** A compiled rule as the registry stores it: plain JSON, no source positions. */
export function registryRule(r: CompiledRule): RegistryRule {
  return {
    name: r.name,
    flow: r.flow,
    ...(r.tools ? { tools: [...r.tools] } : {}),
    when: r.when.map(registryCondition),
    then: r.then,
    ...(r.question !== undefined ? { question: r.question } : {}),
    ...(r.because !== undefined ? { because: r.because } : {}),
  };
}

function registryCondition(c: Condition): RegistryCondition {
  const because = c.because !== undefined ? { because: c.because } : {};
  if (c.kind === "any") return { kind: "any", conditions: c.conditions.map(registryCondition), ...because };
  const o = c.operand;
  // lint refuses `from_row` in a rulebook, so it never reaches here
  const operand =
    o.kind === "from" ? { kind: "from" as const, tool: o.tool, path: o.path }
    : o.kind === "list" ? { kind: "list" as const, values: [...o.values] as (string | number | boolean | null)[] }
    : { kind: "value" as const, value: (o as { value: unknown }).value as string | number | boolean | null };
  return { kind: "compare", subject: { kind: c.subject.kind, path: c.subject.path }, op: c.op, operand, ...because };
}

/** The rules that apply to a call of `tool`, in file order. */
export function rulesFor(rulebook: CompiledRulebook, tool: string): readonly CompiledRule[] {
  return rulebook.byTool.get(tool) ?? rulebook.everyTool;
}
