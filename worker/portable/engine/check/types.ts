/**
 * The shapes a check passes between its steps. A step is a pure function
 * `(call, ctx) => StepResult`: no I/O, no clock (`ctx.now` is passed in), no `this`.
 */
import type { CompiledCatalogue, CompiledTool } from "../catalogue/types.js";
import type { Decision, Entry } from "../history/entry.js";
import type { TurnIndex } from "../origins/typed.js";
import type { HistoryIndex } from "../history/index.js";
import type { CounterItem } from "../counters/store.js";
import type { CompiledRulebook } from "../rulebook/types.js";
import type { KeptState } from "../state/changes.js";
import type { Join } from "../conditions/read.js";

/** Every reason code of checks.md, exact (the public contract); the rulebook's reserved names and the OpenAPI enums read this list. */
export const REASON_CODES = [
  "unknown_tool", "agent_required", "licence_lapsed",
  "history_invalid",
  "argument_schema",
  "undeclared_destination",
  "order_rule",
  "compensation_spent", "compensation_mismatch",
  "condition_failed", "condition_unknown", "usage_unknown", "limit_reached", "spend_unknown", "spend_exceeded",
  "tainted_call",
  "confirmed",
  "gate_clarify", "argument_origin", "irreversible_pivot", "schema_partial", "write",
  "compensation",
  "check_unavailable", "quota_exhausted", "internal_error",
] as const;

export type ReasonCode = (typeof REASON_CODES)[number];

/** Labels: `call` applies to the whole call; any other key is an argument name. */
export type Labels = Readonly<Record<string, readonly string[]>>;

export interface CallOptions {
  origins?: Readonly<Record<string, string>>;
  labels?: Labels;
  confirmation?: string;
  undoOf?: number;
  agent?: string;
  facts?: Readonly<Record<string, unknown>>;
  /** also answer what the decision was made with: `detail.bundles`, the licence's bundle digests */
  explain?: boolean;
}

/** The call's argument names in `Object.keys` order: the list normaliseCall kept, or read now. */
export function argNamesOf(call: Call): readonly string[] {
  return call.argNames ?? Object.keys(call.args);
}

/** Every key `CallOptions` has: any other is an `InputError` (options.ts). */
export const CALL_OPTION_KEYS = ["origins", "labels", "confirmation", "undoOf", "agent", "facts", "explain"] as const;

/** The call under check, normalised once by the orchestrator. */
export interface Call {
  tool: string;
  args: Readonly<Record<string, unknown>>;
  /** hex SHA-256 of the canonical arguments */
  digest: string;
  originsDigest: string;
  origins: Readonly<Record<string, string>>;
  /** every label, sorted and unique */
  labels: readonly string[];
  labelsByArg: Labels;
  confirmation?: string;
  undoOf?: number;
  agent: string | null;
  facts: Readonly<Record<string, unknown>>;
  /** the canonical JSON of each argument (from the same serialisation as `digest`) */
  argParts?: Readonly<Record<string, string>>;
  /** `Object.keys(args)`, read once by normaliseCall (five steps walk the names; each walk was an array) */
  argNames?: readonly string[];
  /** the arguments are not JSON data (or not an object): step 3 refuses with this detail */
  argsError?: { pointer: string; rule: string; message: string };
}

export interface LicenceGate {
  stage: "active" | "grace" | "lapsed";
  onLapse: "reads_only" | "refuse";
  lapsedAt?: string;
  /** the licence could not be read (an injected one that throws or answers nonsense): why */
  unreadable?: string;
}

/** What a verified token says (tokens/confirmation.ts). */
export interface TokenClaims {
  tool: string;
  agent: string | null;
  digest: string;
  session: string;
  ask: number;
  exp: number;
}

/**
 * What every step reads: plain data, never written by a step. The tool is resolved before the
 * steps run; `reach` is the one step that sees it possibly missing.
 */
export interface CheckFacts {
  catalogue: CompiledCatalogue;
  /** verified history ([] when step 2 found it invalid) */
  history: readonly Entry[];
  sessionId: string;
  turns: TurnIndex;
  context: Readonly<Record<string, unknown>>;
  now: number;
  licence?: LicenceGate | undefined;
  /** verifies a token's MAC; null when it is not ours or unreadable */
  openToken(token: string): TokenClaims | null;
  /** why the history did not verify (step 2 refuses with it) */
  historyInvalid?: string | undefined;
  /** the verified history, indexed for steps 5–11 */
  index: HistoryIndex;
  /** `{from: tool.path}`: what that tool last returned in this session; with a join, what its call with that argument value returned */
  from: (tool: string, path: string, join?: Join) => unknown;
  /** the digest an argument value has in a check entry's `values` */
  valueDigest: (value: unknown) => string;
  /** session option: `model` arguments after an untrusted read carry its label */
  taintModelAfterUntrusted: boolean;
  /** the session's compiled rulebook, read by step 8; absent: no rulebook, step 8 passes */
  rulebook?: CompiledRulebook | undefined;
  /** what the runtime keeps for this session whatever history is carried: spent tokens and
   *  undos, `at_most` counts, whether anything untrusted was read (state/changes.ts) */
  kept: KeptState;
}

/** The input of every step after `reach`: the facts, the resolved tool, and what earlier steps contributed. */
export interface StepInput extends CheckFacts {
  tool: CompiledTool;
  /** confirm reasons held by earlier steps (rulebook, labels) for `confirm` */
  holds: readonly Hold[];
}

export interface CounterNeed {
  kind: "rate" | "spend";
  item: CounterItem;
  /** in words, e.g. `3 per day` */
  describe: string;
  pool?: string;
  per?: string;
}

export interface Hold {
  reason: ReasonCode;
  detail?: Record<string, unknown>;
  wording: string;
}

/** A step that lets the call go on, with what it adds for later steps and for the answer. */
export interface Pass {
  kind: "pass";
  /** confirm reasons for the `confirm` step */
  holds?: readonly Hold[];
  /** counters `limits` wants reserved if the call is allowed */
  counters?: readonly CounterNeed[];
  /** detail for the answer, whatever decides (e.g. why a presented token covered nothing) */
  note?: Readonly<Record<string, unknown>>;
}

export type Verdict =
  | {
      kind: "refuse";
      reason: ReasonCode | string;
      detail?: Record<string, unknown>;
      /** step 7's rate limits, settled before its spend refusal stands: a limit reached is named first */
      rateFirst?: readonly CounterNeed[];
    }
  | { kind: "allow"; reason?: ReasonCode; detail?: Record<string, unknown>; /** the ask entry a token was accepted for */ confirmedAsk?: number }
  | { kind: "confirm"; reasons: ReasonCode[]; detail: Record<string, unknown> };

export type StepResult = Pass | Verdict;

export const PASS: Pass = Object.freeze({ kind: "pass" });

export type Step = (call: Call, input: StepInput) => StepResult;

/** The answer the SDK returns. */
export interface CheckResult {
  decision: Decision;
  reasons: string[];
  detail: Record<string, unknown>;
  confirmation?: string;
  step: number;
}
