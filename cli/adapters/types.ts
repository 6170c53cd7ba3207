/** What the adapters' guard takes and answers (guard.ts). */
import type { CallOptions, CheckResult, Entry, InferredOrigin, Language, Outcome } from "../../worker/portable/engine/index.js";
import type { ApprovalStore } from "./approvals.js";

/** The part of a session (`client.session(...)`, in-process or remote) an adapter uses. */
export interface GuardSession {
  readonly id: string;
  readonly history: { entries: Entry[] };
  read(text: string): Promise<{ step: number }>;
  checkToolCall(tool: string, args: unknown, options?: CallOptions): Promise<CheckResult>;
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }>;
  /** a `Client` session's: what a read's `filter` keeps of its result (filter.ts) */
  filter?(step: number, result: unknown): Promise<unknown>;
  /** a `Client` session's: its history as plain data, read when a long one is new to the guard */
  toJSON?(): { entries: Entry[] };
}

export interface GuardOptions {
  /**
   * The catalogue the session was started with (path, YAML text or object). Only needed for a
   * session that did not come from `Client` (which remembers its own).
   */
  catalogue?: string | object;
  /** with `catalogue`: the session's language (default: the catalogue's) and context */
  language?: Language;
  context?: Record<string, unknown>;
  /** where tokens of calls waiting for a person are kept (default: in memory) */
  approvals?: ApprovalStore;
  /**
   * `messages` (default): the person's messages in the conversation become turns. `host`: the
   * host calls `session.read` itself (when its user messages carry text the person did not type).
   */
  turns?: "messages" | "host";
  /** every check the guard makes, with the origins it inferred (for logs and audits) */
  onCheck?: (event: CheckEvent) => void;
  /** a line for each report that could not be recorded (default: dropped) */
  log?: (line: string) => void;
  /**
   * How many calls the guard keeps while they are unsettled, and the default store's approval
   * records (default 1000). Past it the oldest go: such a call is checked again, and one that was
   * waiting for a person is refused when the answer comes — never run on a record that went.
   */
  limit?: number;
}

export interface CheckEvent {
  callId: string;
  tool: string;
  args: unknown;
  origins: Record<string, InferredOrigin>;
  check: CheckResult;
  /** this check presented a person's approval (the token of an earlier confirm) */
  approval: boolean;
}

export type Verdict =
  | { decision: "allow"; check: CheckResult }
  | { decision: "confirm"; check: CheckResult; question: string }
  | { decision: "refuse"; check: CheckResult; message: string };
