/**
 * The compiled catalogue: what `agent.yaml` becomes after parse → lint → compile. Immutable
 * (deep-frozen) and built once; every check reuses it (compile once, check many).
 * Field meanings: ../shared/spec/checks.md and interfaces.md ("Tool words").
 */
import type { CatalogueProblem, SourcePosition } from "../errors.js";

export type Language = "en" | "pt-BR";
export type Period = "call" | "run" | "session" | "minute" | "hour" | "day" | "week" | "month";

/**
 * Result of validating a value against a JSON Schema: the first failure, as a pointer + keyword,
 * and `failures`, the first failure of each argument (the first of them is the one above).
 */
export type SchemaVerdict = { ok: true } | { ok: false; pointer: string; rule: string; message: string; failures?: readonly SchemaFailure[] };
export interface SchemaFailure {
  pointer: string;
  rule: string;
  message: string;
}
export type SchemaCheck = (value: unknown) => SchemaVerdict;
/** Builds a validator for one schema; Node uses compiled ajv, workerd an eval-free validator. */
export type SchemaCompiler = (schema: object) => SchemaCheck;

/** What a condition compares with. */
export type Operand =
  | { kind: "value"; value: unknown }
  | { kind: "list"; values: readonly unknown[] }
  | { kind: "from"; tool: string; path: string; same?: string } // {from: tool.field[, same: arg]} — what that tool last returned (for this call's `arg`)
  | { kind: "from_row"; path: string };               // filter only: another field of the same record

export type Operator =
  | "is" | "is_not" | "one_of" | "none_of" | "at_least" | "at_most" | "under" | "over"
  | "between" | "before" | "after" | "contains";

/** One condition of `checks`, `filter.keep`, `done_when`/`failed_when` or a rulebook rule. */
export type Condition =
  | {
      kind: "compare";
      /** `field: path`, `total: path` (sum over a list) or `count: path` (length of a list). */
      subject: { kind: "field" | "total" | "count"; path: string };
      op: Operator;
      operand: Operand;
      because?: string;
      source: SourcePosition;
    }
  | { kind: "any"; conditions: readonly Condition[]; because?: string; source: SourcePosition };

export interface AfterRule {
  tool: string;
  /** argument name → field of that call's result the argument must come from */
  bind?: Readonly<Record<string, string>>;
}

export interface RateLimit { count: number; per: Period }

export interface SpendRule {
  field: string;
  atMost: number;
  per: Period;
  /** tools sharing a pool share one counter; default: the tool's own name */
  pool?: string;
}

/**
 * What a tool's call adds to one period's count of a spend pool. A pool is one count (checks.md):
 * a call on any tool naming it is counted in every period any tool declares for it, and checked
 * against this tool's own ceilings for that period (the smallest, if it declares several).
 */
export interface SpendCount {
  pool: string;
  per: Exclude<Period, "call">;
  /** the tool's distinct `spend` fields on this pool: their amounts add up */
  fields: readonly string[];
  /** this tool's ceiling for the period; null: counted here, limited by other tools' ceilings */
  atMost: number | null;
}

export interface Outcome {
  follow: string;
  same: string;
  doneWhen: readonly Condition[];
  failedWhen: readonly Condition[];
  giveUpAfterMinutes: number;
}

export interface Filter {
  each: string;
  keep: readonly Condition[];
  unknown: "pass" | "drop";
}

/** A parsed egress allow-list entry of `sends_out`. */
export type DestinationPattern =
  | { kind: "any" }                               // "*"
  | { kind: "host"; glob: string }                // "*.example.com", "api.example.com", "10.0.0.1"
  | { kind: "address"; address: string }          // "receipts@example.com" (lowercased)
  | { kind: "address_domain"; glob: string };     // "*@example.com"

export interface CompiledTool {
  readonly name: string;
  readonly writes: boolean;
  readonly irreversible: boolean;
  readonly money: boolean;
  readonly undo?: string;
  /** undefined: the tool sends nothing out; otherwise its allow-list */
  readonly sendsOut?: readonly DestinationPattern[];
  /** arguments step 4 does not scan (`lookup_args`); always empty on a tool that declares `sends_out`, whose allow-list covers every argument */
  readonly lookupArgs: ReadonlySet<string>;
  readonly readsOutside: boolean;
  /** required trust of a write's values; `trusted` by default */
  readonly trust: string;
  /** `always` (default for writes) or `when_held` */
  readonly confirm: "always" | "when_held";
  readonly after: readonly AfterRule[];
  /** tool names, or the word `untrusted` */
  readonly notAfter: readonly string[];
  /** `at_most: N` per session (step 5) */
  readonly atMostPerSession?: number;
  /** `at_most: [{count, per}]` (step 7) */
  readonly rateLimits: readonly RateLimit[];
  readonly checks: readonly Condition[];
  readonly filter?: Filter;
  readonly spend: readonly SpendRule[];
  /** the period counts `spend` adds to (step 7), every period of each pool it names */
  readonly spendCounts: readonly SpendCount[];
  readonly currency?: string;
  readonly outcome?: Outcome;
  /** the raw `args` JSON Schema, if declared */
  readonly argsSchema?: object;
  /** its check entries keep per-argument digests (`values`): it has an `undo`, or a `{from, same}` joins on it */
  readonly keepValues: boolean;
  /** validates arguments; a tool without `args` accepts only an empty object */
  readonly validateArgs: SchemaCheck;
  /** true when the args schema closes the argument set (additionalProperties false at the top) */
  readonly argsClosed: boolean;
  readonly returnsSchema?: object;
  /** does the `returns` schema declare this dot/[i] path (e.g. `transactions[2].amount`)? */
  readonly returnsDeclares: (path: string) => boolean;
  /** keeps only the declared fields of a reported result (for the history) */
  readonly keepDeclared: (result: unknown) => unknown;
  /** where the tool was declared */
  readonly source: SourcePosition;
  /** `http:` entries: method and path; `code:` entries: the function name */
  readonly http?: { method: string; path: string };
  readonly code?: { function: string };
}

export interface CompiledAgent {
  readonly name: string;
  readonly tools: ReadonlySet<string>;
  readonly trust: string;
}

export interface CompiledTask {
  readonly name: string;
  readonly steps: "in_order" | "all_at_once";
  readonly tools: readonly string[];
}

export interface Settings {
  readonly language: Language;
  readonly taintPolicy: "confirm" | "refuse";
  readonly onLicenceLapse: "reads_only" | "refuse";
  /** milliseconds */
  readonly confirmationTtlMs: number;
}

export interface CompiledCatalogue {
  readonly settings: Settings;
  readonly tools: ReadonlyMap<string, CompiledTool>;
  /** empty when the catalogue names no agents */
  readonly agents: ReadonlyMap<string, CompiledAgent>;
  readonly tasks: readonly CompiledTask[];
  /** SHA-256 hex of the canonical JSON of the parsed catalogue: names the catalogue in caches */
  readonly digest: string;
  readonly file: string;
  /** what lint warned about (the catalogue loads): `stalwart check` prints them */
  readonly warnings: readonly CatalogueProblem[];
}
