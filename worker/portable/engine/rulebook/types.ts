/**
 * The compiled rulebook (checks.md "Rulebook gate"): what a YAML rulebook or a rules spreadsheet
 * becomes after parse → lint → compile, and what a registry folder holds. Deep-frozen and built
 * once; step 8 only looks rules up by tool and evaluates their conditions.
 */
import type { Condition } from "../catalogue/types.js";
import type { SourcePosition } from "../errors.js";

/** What a rule does when its `when` holds: refuse the call, or ask a person (`gate_clarify`). */
export type RuleAction = "refuse" | "ask";

export interface CompiledRule {
  /** snake_case; the reason code when it refuses */
  readonly name: string;
  /** the business flow it belongs to: `detail.flow` */
  readonly flow: string;
  /** the tools it applies to, in the order written; undefined: every tool */
  readonly tools?: readonly string[];
  /** all must hold for the rule to apply; empty: it always applies */
  readonly when: readonly Condition[];
  readonly then: RuleAction;
  /** `then: ask` only: the question (gate_clarify wording) */
  readonly question?: string;
  /** `then: refuse` only: the refusal's wording */
  readonly because?: string;
  /** where the rule was written (a registry's own file for a loaded registry) */
  readonly source: SourcePosition;
}

export interface CompiledRulebook {
  readonly v: 1;
  /** SHA-256 hex of the canonical JSON of `{v, rules}` in registry form: names the rules, not the file */
  readonly digest: string;
  /** the rulebook file it was compiled from (a label; not covered by the digest) */
  readonly source: string;
  /** every rule, in file order */
  readonly rules: readonly CompiledRule[];
  /** the distinct flows, in order of first appearance */
  readonly flows: readonly string[];
  /** for each tool some rule names: the rules that apply to it (named or every-tool), in file order */
  readonly byTool: ReadonlyMap<string, readonly CompiledRule[]>;
  /** the rules without `tools`: all that applies to a tool no rule names */
  readonly everyTool: readonly CompiledRule[];
}

/** A condition as the registry stores it: the compiled `Condition` without its source position. */
export type RegistryCondition =
  | { kind: "compare"; subject: { kind: "field" | "total" | "count"; path: string }; op: string; operand: RegistryOperand; because?: string }
  | { kind: "any"; conditions: RegistryCondition[]; because?: string };

type RegistryOperand =
  | { kind: "value"; value: string | number | boolean | null }
  | { kind: "list"; values: (string | number | boolean | null)[] }
  | { kind: "from"; tool: string; path: string };

export interface RegistryRule {
  name: string;
  flow: string;
  tools?: string[];
  when: RegistryCondition[];
  then: RuleAction;
  question?: string;
  because?: string;
}

/** `DIR/registry.json`, written by `stalwart rules compile`. */
export interface Registry {
  v: 1;
  digest: string;
  source: string;
  rules: RegistryRule[];
}
