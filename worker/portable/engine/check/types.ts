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

/** Every reason code of checks.md, exact (the public contract). */
export type ReasonCode =
  | "unknown_tool" | "agent_required" | "licence_lapsed"
  | "history_invalid"
  | "argument_schema"
  | "undeclared_destination"
  | "order_rule"
  | "compensation_spent" | "compensation_mismatch"
  | "condition_failed" | "condition_unknown" | "usage_unknown" | "limit_reached" | "spend_unknown" | "spend_exceeded"
  | "tainted_call"
  | "confirmed"
  | "gate_clarify" | "argument_origin" | "irreversible_pivot" | "schema_partial" | "write"
  | "compensation"
  | "check_unavailable" | "quota_exhausted" | "internal_error" | "input_invalid";

/** Labels: `call` applies to the whole call; any other key is an argument name. */
export type Labels = Readonly<Record<string, readonly string[]>>;

export interface CallOptions {
  origins?: Readonly<Record<string, string>>;
  labels?: Labels;
  confirmation?: string;
  undoOf?: number;
  agent?: string;
  facts?: Readonly<Record<string, unknown>>;
}

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
  /** the arguments are not JSON data (or not an object): step 3 refuses with this detail */
  argsError?: { pointer: string; rule: string; message: string };
}

export interface LicenceGate {
  stage: "active" | "grace" | "lapsed";
  onLapse: "reads_only" | "refuse";
  lapsedAt?: string;
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

export interface CheckContext {
  catalogue: CompiledCatalogue;
  /** set by step 1 */
  tool?: CompiledTool;
  /** verified history (step 2 replaces an invalid one with []) */
  history: readonly Entry[];
  sessionId: string;
  turns: TurnIndex;
  context: Readonly<Record<string, unknown>>;
  now: number;
  licence?: LicenceGate;
  /** verifies a token's MAC; null when it is not ours or unreadable */
  openToken(token: string): TokenClaims | null;
  /** step 2's finding, for the orchestrator */
  historyInvalid?: string;
  /** confirm reasons gathered by steps 8 and 9 for step 11 */
  holds: Hold[];
  /** the ask entry a token was accepted for at step 10 */
  confirmedAsk?: number;
  /** why a presented token covered nothing (step 10), for the detail */
  tokenProblem?: string;
  /** the verified history, indexed for steps 5–11 */
  index: HistoryIndex;
  /** `{from: tool.path}`: what that tool last returned in this session */
  from: (tool: string, path: string) => unknown;
  /** the digest an argument value has in a check entry's `values` */
  valueDigest: (value: unknown) => string;
  /** counter items step 7 wants reserved if the call is allowed */
  counters: CounterNeed[];
  /** session option: `model` arguments after an untrusted read carry its label */
  taintModelAfterUntrusted: boolean;
  /** the session's compiled rulebook, read by step 8; absent: no rulebook, step 8 passes */
  rulebook?: CompiledRulebook;
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

export type StepResult =
  | { kind: "pass" }
  | { kind: "refuse"; reason: ReasonCode | string; detail?: Record<string, unknown> }
  | { kind: "allow"; reason?: ReasonCode; detail?: Record<string, unknown> }
  | { kind: "confirm"; reasons: ReasonCode[]; detail: Record<string, unknown> };

export const PASS: StepResult = Object.freeze({ kind: "pass" });

export type Step = (call: Call, ctx: CheckContext) => StepResult;

/** The answer the SDK returns. */
export interface CheckResult {
  decision: Decision;
  reasons: string[];
  detail: Record<string, unknown>;
  confirmation?: string;
  step: number;
}
