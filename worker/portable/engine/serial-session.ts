/**
 * The session API of interfaces.md, one for both modes. A mode provides a `SessionCore` — the
 * in-process `Session` (under the client's licence) or the remote one that speaks to a check
 * worker — and `SerialSession` puts every operation of one session in one queue, so that calls
 * are answered one at a time, in the order they were asked, whichever mode answers them: each
 * answer is a link of one history, and `at_most: 1` means once even for calls made at once.
 */
import type { CallOptions, CheckResult } from "./check/types.js";
import type { Entry, Outcome } from "./history/entry.js";
import type { FollowPlan, Judged, UndoPlan } from "./plans.js";
import type { SavedSession } from "./saved-session.js";
import type { ReadAnswer } from "./session.js";
import { GuardedSteps, type DecideOptions, type Impl, type RollbackStep, type RunOptions, type RunResult } from "./guarded.js";
import type { ApprovalPort } from "./approvals/port.js";
import { InputError, StalwartError } from "./errors.js";
import type { SignedReceipt } from "./approvals/receipts.js";
import { approvalIdOf } from "./approvals/build.js";

/** What a mode answers; `SerialSession` calls it one operation at a time. */
export interface SessionCore {
  readonly id: string;
  readonly history: { entries: Entry[] };
  read(text: string): Promise<ReadAnswer>;
  checkToolCall(tool: string, args: unknown, options?: CallOptions): Promise<CheckResult>;
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }>;
  /** the records a read's `filter` passes on */
  filter(step: number, result: unknown): Promise<unknown>;
  planUndo(tool: string, args: Record<string, unknown>, result: unknown): Promise<UndoPlan | null> | UndoPlan | null;
  planFollow(tool: string, step: number, args: Record<string, unknown>, result: unknown): Promise<FollowPlan | null> | FollowPlan | null;
  judgeOutcome(tool: string, followResult: unknown): Promise<Judged> | Judged;
  now(): Date;
  toJSON(): SavedSession;
  /** record a person's signed decision on a confirmation (approvals) */
  receipt?(signed: SignedReceipt): Promise<{ step: number }>;
}

/** The session users program against (interfaces.md, "SDK"), the same in both modes. */
export interface SessionApi {
  readonly id: string;
  readonly history: { entries: Entry[] };
  read(text: string): Promise<ReadAnswer>;
  checkToolCall(tool: string, args: unknown, options?: CallOptions): Promise<CheckResult>;
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }>;
  filter(step: number, result: unknown): Promise<unknown>;
  run(tool: string, args: Record<string, unknown>, options: RunOptions, impl: Impl): Promise<RunResult>;
  approve(step: number, options?: DecideOptions): Promise<RunResult>;
  deny(step: number, options?: DecideOptions): Promise<RunResult>;
  rollback(): Promise<RollbackStep[]>;
  toJSON(): SavedSession;
  /** record a person's signed decision on a confirmation of this history (in-process sessions) */
  receipt?(signed: SignedReceipt): Promise<{ step: number }>;
}

export class SerialSession implements SessionApi {
  private readonly guarded: GuardedSteps;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly core: SessionCore, private readonly approvals?: ApprovalPort) {
    // The guarded step's own calls go through the queue one by one; the tool itself runs outside
    // it, so a slow tool does not hold the session's other calls.
    this.guarded = new GuardedSteps({
      checkToolCall: (t, a, o) => this.checkToolCall(t, a, o),
      report: (s, o, r) => this.report(s, o, r),
      planUndo: (t, a, r) => this.serial(() => core.planUndo(t, a, r)),
      planFollow: (t, s, a, r) => this.serial(() => core.planFollow(t, s, a, r)),
      judgeOutcome: (t, r) => this.serial(() => core.judgeOutcome(t, r)),
      now: () => core.now(),
      // a function, not a `get id()`: V8 keeps a literal's accessors in an old-generation map, and
      // the young collector then takes the session they close over as live (history/caller-history.ts)
      sessionId: () => core.id,
      ...(core.receipt ? { receipt: (r: SignedReceipt) => this.serial(() => core.receipt!(r)) } : {}),
    }, approvals);
  }

  /** Run `work` after everything asked before it has been answered (or has failed). */
  private serial<T>(work: () => Promise<T> | T): Promise<T> {
    // Idle: start now (no extra turn of the microtask queue); busy: after what is in flight.
    let next: Promise<T>;
    if (this.pending === 0) {
      try {
        next = Promise.resolve(work());
      } catch (err) {
        next = Promise.reject(err);
      }
    } else {
      next = this.queue.then(work, work);
    }
    this.pending++;
    this.queue = next.then(this.done, this.done);
    return next;
  }
  private pending = 0;
  private readonly done = () => void this.pending--;

  get id(): string {
    return this.core.id;
  }
  get history(): { entries: Entry[] } {
    return this.core.history;
  }
  /** A person's turn, recorded in the history; it starts a new run for `rollback`. */
  read(text: string): Promise<ReadAnswer> {
    this.guarded.newRun();
    return this.serial(() => this.core.read(text));
  }
  checkToolCall(tool: string, args: unknown, options?: CallOptions): Promise<CheckResult> {
    const token = tokenOf(options);
    // a check worker reads its own records when a token is presented (routes/checks.ts)
    if (typeof token !== "string" || !this.approvals || this.approvals.recordedByChecker) return this.serial(() => this.core.checkToolCall(tool, args, options));
    return this.serial(async () => {
      const open = await this.recordRefusal(token);
      const check = await this.core.checkToolCall(tool, args, options);
      // The token of an undecided or approved record spent: the record is `used`, so no person
      // is asked about a call that ran, and the page does not show it as still to run. (Whoever
      // ran an approval — the gateway, `run` — marks it too; the second mark changes nothing.)
      // After the answer is committed, so a store that fails here cannot take it back: the record
      // then stays as it was, and an approval of it spends nothing.
      if (open && check.decision === "allow" && check.reasons.includes("confirmed")) {
        try {
          await this.approvals!.store.markUsed(approvalIdOf(token));
        } catch {
          // the answer stands
        }
      }
      return check;
    });
  }

  /**
   * A person who denied or edited the call a presented token covers said so in the approval store
   * (the page, the CLI): the receipt enters the history first, so the token covers nothing (step
   * 10, `denied`) even for a host that kept it and never recorded the decision. Only when a token
   * is presented. A receipt recorded already, or one of another session or call, leaves it to
   * step 10. A store that cannot be read, or a receipt whose MAC does not verify, cannot say
   * whether a person denied the call: its error reaches the host and the token is not used.
   * True when the token's record is there, undecided or approved.
   */
  private async recordRefusal(token: string): Promise<boolean> {
    const core = this.core;
    if (!core.receipt) return false;
    const a = await this.approvals!.store.get(approvalIdOf(token));
    const receipt = a?.receipt;
    if (!receipt) return a !== undefined; // undecided: the caller marks it used if the token is spent
    if (receipt.decision === "approve") return true; // likewise
    try {
      await core.receipt(receipt);
    } catch (err) {
      // receiptEntry names the receipt itself ("/receipt") when its shape or MAC is wrong
      if (err instanceof StalwartError && err.code === "InputError" && err.pointer === "/receipt") {
        throw new StalwartError("ApprovalUnreadable", `the approval store's receipt of \`${approvalIdOf(token)}\` is unusable: ${err.message}`, {
          hint: "if it is damaged, restore it from a backup or move it aside (the confirmation it held is then gone: its call must be checked again)",
        });
      }
    }
    return false;
  }
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    return this.serial(() => this.core.report(step, outcome, result));
  }
  filter(step: number, result: unknown): Promise<unknown> {
    return this.serial(() => this.core.filter(step, result));
  }
  /** The guarded step: check, run `impl` once on allow, report what happened. */
  run(tool: string, args: Record<string, unknown>, options: RunOptions, impl: Impl): Promise<RunResult> {
    return this.guarded.run(tool, args, options ?? {}, impl);
  }
  approve(step: number, options?: DecideOptions): Promise<RunResult> {
    return this.guarded.approve(step, options);
  }
  deny(step: number, options?: DecideOptions): Promise<RunResult> {
    return this.guarded.deny(step, options);
  }
  rollback(): Promise<RollbackStep[]> {
    return this.guarded.rollback();
  }
  receipt(signed: SignedReceipt): Promise<{ step: number }> {
    const core = this.core;
    if (!core.receipt) return Promise.reject(new InputError("this session cannot record receipts"));
    return this.serial(() => core.receipt!(signed));
  }
  toJSON(): SavedSession {
    return this.core.toJSON();
  }
}

/** The presented token, read without trusting the options (a throwing getter is the check's to refuse, as a typed error). */
function tokenOf(options: CallOptions | undefined): unknown {
  try {
    return options?.confirmation;
  } catch {
    return undefined;
  }
}
