/** What `Calls` (calls.ts) is given: the session it checks on, the upstream it forwards to, and the rest. */
import type { CheckResult, CompiledCatalogue, Entry, Language, Outcome, Approval, ApprovalStore, PendingRecord, SignedReceipt } from "../../worker/portable/engine/index.js";
import type { Upstream } from "./upstream.js";
import type { Relay } from "./relay.js";
import type { Pins } from "./pins.js";
import type { TraceFile } from "./trace-file.js";
import type { TaskTools } from "./task-tools.js";
import type { FilteringSession } from "./result-filter.js";
import type { GonePosts } from "./gone-posts.js";

/** The part of the SDK's session the gateway uses (in-process and remote alike). */
export interface GatewaySession extends FilteringSession {
  readonly id: string;
  readonly history: { entries: Entry[] };
  checkToolCall(tool: string, args: unknown, options?: { origins?: Record<string, string>; confirmation?: string }): Promise<CheckResult>;
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }>;
  /** record a person's decision in the history (in-process sessions) */
  receipt?(signed: SignedReceipt): Promise<{ step: number }>;
}

export interface CallsOptions {
  catalogue: CompiledCatalogue;
  session: GatewaySession;
  upstream: Upstream;
  /** where the tool server's own requests go while a call is forwarded (relay.ts) */
  relay?: Relay;
  pending: ApprovalStore;
  /** for a client without elicitation: how long to wait for a person in the approval store (0: answer at once) */
  approvalWaitMs?: number;
  now?: () => Date;
  language: Language;
  context: Record<string, unknown>;
  /** how long a forwarded call may take, progress or not */
  callTimeoutMs: number;
  /** how long a 2026-07-28 client's call is held for its answer to the tool server (default a day) */
  askTimeoutMs?: number;
  /** where the gateway says what it did, one line per call (stderr by default) */
  log?: (line: string) => void;
  /** pinned tool definitions (pins.ts); a changed one is refused before the check */
  pins?: Pins;
  /** which tools the upstream runs only as tasks (task-tools.ts) */
  tasks?: TaskTools;
  /** catalogue entries the gateway added itself (outside.ts): never callable as tools */
  hidden?: ReadonlySet<string>;
  /** a new pending record covered by a standing approval ("always for this session"), decided so with its own receipt (index.ts) */
  standing?: (record: PendingRecord) => Promise<Approval | undefined>;
  /**
   * the pending records are this process's own (its session, in-process or carried to the check
   * worker, ends with it): a retry waits on its open record, and the open ones are withdrawn as
   * it stops (asked.ts). `recorded`: the check worker's, put in `pending` as it answered.
   */
  ownRecords?: boolean | "recorded";
  /** `--trace FILE`: each call, the person's answers and the outcomes, as `stalwart replay` reads them */
  trace?: TraceFile;
  /** requests whose POST the client closed (http.ts): a call waiting for a person there stops waiting */
  gone?: GonePosts;
}
