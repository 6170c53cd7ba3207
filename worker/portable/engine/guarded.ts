/**
 * The guarded step (interfaces.md): the SDK runs the tool for you. `run` checks, runs `impl`
 * once on allow, reports the outcome (an exception is `failed`), follows a write's `outcome` to
 * its end, and answers `ran | waiting | refused | failed`. `approve(step)` / `deny(step)` resume
 * a `waiting` step; `rollback()` sends, in reverse order, the declared undo of every write of the
 * run that ran — each checked at step 6, with arguments bound from the step it undoes.
 * Runtime-agnostic: it drives any session (in-process or over HTTP) through `SessionPort`.
 *
 * The tool runs with exactly what was checked: the caller's arguments are read once, into their
 * canonical JSON, and the check and every run of the tool (`impl`, `follow`, `undo`) get fresh
 * copies of that, never the caller's object — a getter that answered `4411` to the check cannot
 * answer `https://evil…` to the tool, and nothing the caller or a tool changes afterwards reaches
 * another run. Arguments that are not JSON data are refused, and nothing runs.
 */
import { CALL_OPTION_KEYS, type CallOptions, type CheckResult } from "./check/types.js";
import { jsonData } from "./canonical/json-data.js";
import { recordable } from "./canonical/recordable.js";
import { checkOptionKeys } from "./options.js";
import type { Outcome } from "./history/entry.js";
import type { FollowPlan, Judged, UndoPlan } from "./plans.js";
import { InputError } from "./errors.js";
import { canonicalize, canonicalizeTop } from "./canonical/jcs.js";
import type { ApprovalPort } from "./approvals/port.js";
import { editedOrigins } from "./approvals/port.js";
import { approvalIdOf, pendingFrom, toolAt } from "./approvals/build.js";
import { lastRun, withCounts } from "./approvals/counts.js";
import { standingOf, type Approval } from "./approvals/record.js";
import { waitForDecision } from "./approvals/decide.js";
import type { SignedReceipt } from "./approvals/receipts.js";

export type Impl = (args: Record<string, unknown>) => unknown;

export interface RunOptions extends CallOptions {
  /** runs the `follow` read of a write with `outcome` */
  follow?: Impl;
  /** runs this write's declared undo, for `rollback()` */
  undo?: Impl;
  /** how long to wait between follow reads (default 5 s); `sleep` is injectable for tests */
  pollMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** on `confirm`, wait this many ms for a person to decide in the approval store (page or CLI) */
  wait?: number;
  /** the name a receipt of the SDK's own `approve` / `deny` carries (default "sdk") */
  as?: string;
}

/** `approve(step, …)` / `deny(step, …)`: who decides, and why. */
export interface DecideOptions {
  as?: string;
  message?: string;
}

export interface RunResult {
  status: "ran" | "waiting" | "refused" | "failed";
  result?: unknown;
  check: CheckResult;
  /** for a write followed to its end: what the follow reads said */
  outcome?: Outcome;
  error?: string;
  /** the pending confirmation's id in the approval store, when there is one */
  approval?: string;
  /** the person's decision that settled it */
  receipt?: SignedReceipt;
}

export interface RollbackStep {
  undoes: number;
  tool: string;
  status: "ran" | "failed" | "refused" | "waiting" | "no_undo_impl";
  check?: CheckResult;
  error?: string;
}

export interface SessionPort {
  checkToolCall(tool: string, args: unknown, options?: CallOptions): Promise<CheckResult>;
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }>;
  planUndo(tool: string, args: Record<string, unknown>, result: unknown): Promise<UndoPlan | null> | UndoPlan | null;
  planFollow(tool: string, step: number, args: Record<string, unknown>, result: unknown): Promise<FollowPlan | null> | FollowPlan | null;
  judgeOutcome(tool: string, followResult: unknown): Promise<Judged> | Judged;
  now(): Date;
  /** record a person's signed decision in the history (sessions that keep receipts) */
  receipt?(signed: SignedReceipt): Promise<{ step: number }>;
  /** the session's id as it is now (a remote session's is known only once the worker made it) */
  sessionId?(): string;
}

interface Waiting {
  tool: string;
  /** the canonical JSON of the checked arguments */
  args: string;
  options: RunOptions;
  impl: Impl;
  check: CheckResult;
  /** its record in the approval store */
  approval?: string;
}

interface Ran {
  step: number;
  tool: string;
  args: string;
  result: unknown;
  undo?: Impl;
}

const RUN_KEYS = [...CALL_OPTION_KEYS, "follow", "undo", "pollMs", "sleep", "wait", "as"] as const;
const DECIDE_KEYS = ["as", "message"] as const;
function callOptions(o: RunOptions): CallOptions {
  const out: Record<string, unknown> = {};
  for (const k of CALL_OPTION_KEYS) if (o[k] !== undefined) out[k] = o[k];
  return out as CallOptions;
}

export class GuardedSteps {
  private readonly waiting = new Map<number, Waiting>();
  private ran: Ran[] = [];

  constructor(private readonly session: SessionPort, private readonly approvals?: ApprovalPort) {}

  /** A person's turn starts a new run: rollback covers the writes after it. */
  newRun(): void {
    this.ran = [];
  }

  async run(tool: string, args: Record<string, unknown>, options: RunOptions | undefined, impl: Impl): Promise<RunResult> {
    checkOptionKeys(options, RUN_KEYS, "the run options", { base: "/options" });
    options ??= {};
    if (typeof impl !== "function") throw new InputError("`run` needs the tool's implementation as its fourth argument", "/impl");
    const text = canonicalText(args);
    if (text === undefined) {
      // not JSON data (or it throws when read): the check refuses it; nothing runs whatever it says
      const check = await this.session.checkToolCall(tool, args, callOptions(options));
      return { status: "refused", check };
    }
    const check = await this.session.checkToolCall(tool, copy(text), callOptions(options));
    return this.settle(check, tool, text, options, impl);
  }

  /** The person approved the waiting step: present its token, run it if allowed. */
  async approve(step: number, o: DecideOptions = {}): Promise<RunResult> {
    checkOptionKeys(o, DECIDE_KEYS, "the approve options", { base: "/options" });
    const w = this.waiting.get(step);
    if (w?.approval && this.approvals) return this.decided(step, await this.decideHere(w, "approve", o));
    const t = this.take(step);
    const check = await this.session.checkToolCall(t.tool, copy(t.args), { ...callOptions(t.options), confirmation: t.check.confirmation! });
    return this.settle(check, t.tool, t.args, t.options, t.impl);
  }

  /** The person said no: nothing runs. */
  async deny(step: number, o: DecideOptions = {}): Promise<RunResult> {
    checkOptionKeys(o, DECIDE_KEYS, "the deny options", { base: "/options" });
    const w = this.waiting.get(step);
    if (w?.approval && this.approvals) return this.decided(step, await this.decideHere(w, "deny", o));
    const t = this.take(step);
    return { status: "refused", check: t.check };
  }

  /** Wait up to `ms` for a person to decide the waiting step in the approval store. */
  async await(step: number, ms: number): Promise<RunResult> {
    const w = this.waiting.get(step);
    if (!w) throw new InputError(`step ${String(step)} is not waiting for a person`, "/step");
    if (!w.approval || !this.approvals) return { status: "waiting", check: w.check };
    const a = await waitForDecision(this.approvals.store, w.approval, { ms, ...(this.approvals.pollMs ? { pollMs: this.approvals.pollMs } : {}), ...(w.options.sleep ? { sleep: w.options.sleep } : {}) });
    if (!a?.receipt) return { status: "waiting", check: w.check, approval: w.approval };
    return this.decided(step, a);
  }

  /** The SDK's own decision, stored like the page's; one already made elsewhere stands. */
  private async decideHere(w: Waiting, decision: "approve" | "deny", o: DecideOptions): Promise<Approval> {
    const port = this.approvals!;
    try {
      return await port.decide(w.approval!, { decision, by: o.as ?? w.options.as ?? "sdk", at: this.session.now().getTime(), message: o.message });
    } catch (err) {
      const a = await port.store.get(w.approval!);
      if (a?.receipt) return a;
      throw err;
    }
  }

  /**
   * A decision came: it enters the history (or nothing runs), then an approval presents the
   * record's token, a denial runs nothing, and an edit is a new call with the person's values,
   * checked from step 1 — never run on the old approval.
   */
  private async decided(step: number, a: Approval): Promise<RunResult> {
    const w = this.take(step);
    const receipt = a.receipt!;
    const base = { check: w.check, approval: a.record.id, receipt };
    if (this.session.receipt) {
      try {
        await this.session.receipt(receipt);
      } catch (err) {
        return { status: "refused", ...base, error: `the decision could not be recorded in the history (${message(err)}); nothing ran` };
      }
    }
    if (receipt.decision === "deny") return { status: "refused", ...base };
    if (receipt.decision === "edit") {
      const edited = receipt.edited ?? {};
      const origins = editedOrigins(copy(w.args), edited, w.options.origins, canonicalize);
      return this.run(w.tool, edited, { ...w.options, origins }, w.impl);
    }
    const check = await this.session.checkToolCall(w.tool, copy(w.args), { ...callOptions(w.options), confirmation: a.record.token });
    if (check.decision === "allow") await this.approvals?.store.markUsed(a.record.id);
    return { ...(await this.settle(check, w.tool, w.args, w.options, w.impl)), approval: a.record.id, receipt };
  }

  /** Every `confirm` of `run()` becomes a pending record; a standing approval decides it at once. */
  private async hold(tool: string, args: string, options: RunOptions, check: CheckResult): Promise<string | undefined> {
    const port = this.approvals;
    const session = this.session.sessionId?.();
    if (!port || session === undefined) return undefined;
    if (port.recordedByChecker) return check.confirmation ? approvalIdOf(check.confirmation) : undefined;
    const built = pendingFrom({ session, tool, args: copy(args), check, origins: options.origins, labels: options.labels, catalogue: port.catalogue, now: this.session.now().getTime(), resultTool: (n) => toolAt(port.entries?.() ?? [], n) });
    if (!built) return undefined;
    const record = port.catalogue ? await withCounts(built, port.counters, port.catalogue, lastRun(port.entries?.() ?? [])) : built;
    await port.store.add(record);
    const standing = await standingOf(port.store, record);
    // a standing approval is the person's only while its receipt verifies: one edited by hand signs nothing new
    if (standing?.receipt && port.receiptProblem(standing.receipt) === null) {
      await port.decide(record.id, { decision: "approve", by: standing.receipt.by, at: record.created, message: `always for this session (${standing.record.id})` }).catch(() => undefined);
    }
    return record.id;
  }

  async rollback(): Promise<RollbackStep[]> {
    const out: RollbackStep[] = [];
    for (const r of [...this.ran].reverse()) {
      const plan = await this.session.planUndo(r.tool, copy(r.args), r.result);
      if (!plan) continue;
      const origins = Object.fromEntries(Object.keys(plan.args).map((k) => [k, "computed"]));
      const planned = canonicalText(plan.args);
      if (planned === undefined) continue;
      const check = await this.session.checkToolCall(plan.tool, copy(planned), { undoOf: r.step, origins });
      if (check.decision !== "allow") {
        out.push({ undoes: r.step, tool: plan.tool, status: check.decision === "confirm" ? "waiting" : "refused", check });
        continue;
      }
      if (!r.undo) {
        // Allowed, but nothing here can run it: say so, and report nothing as done.
        out.push({ undoes: r.step, tool: plan.tool, status: "no_undo_impl", check });
        continue;
      }
      // Only the undo's own exception is `failed`: once it ran, a report that cannot be recorded
      // is an error of the history, not an undo to try again (a refund sent twice), as in `settle`.
      let result: unknown;
      try {
        result = await r.undo(copy(planned));
      } catch (err) {
        await this.session.report(check.step, "failed");
        out.push({ undoes: r.step, tool: plan.tool, status: "failed", check, error: message(err) });
        continue;
      }
      await this.session.report(check.step, "ran", jsonOrUndefined(result));
      await this.session.report(r.step, "compensated");
      out.push({ undoes: r.step, tool: plan.tool, status: "ran", check });
    }
    this.ran = this.ran.filter((r) => !out.some((o) => o.undoes === r.step && o.status === "ran"));
    return out;
  }

  private take(step: number): Waiting {
    const w = this.waiting.get(step);
    if (!w) throw new InputError(`step ${String(step)} is not waiting for a person`, "/step");
    this.waiting.delete(step);
    return w;
  }

  private async settle(check: CheckResult, tool: string, args: string, options: RunOptions, impl: Impl): Promise<RunResult> {
    if (check.decision === "refuse") return { status: "refused", check };
    if (check.decision === "confirm") {
      const approval = await this.hold(tool, args, options, check);
      this.waiting.set(check.step, { tool, args, options, impl, check, ...(approval ? { approval } : {}) });
      // one read at least: a standing approval has decided it already
      if (approval) return this.await(check.step, options.wait !== undefined && options.wait > 0 ? options.wait : 0);
      return { status: "waiting", check };
    }
    let result: unknown;
    try {
      result = await impl(copy(args));
    } catch (err) {
      await this.session.report(check.step, "failed");
      return { status: "failed", check, error: message(err) };
    }
    const recorded = jsonOrUndefined(result);
    await this.session.report(check.step, "ran", recorded);
    this.ran.push({ step: check.step, tool, args, result: recorded, ...(options.undo ? { undo: options.undo } : {}) });
    const plan = await this.session.planFollow(tool, check.step, copy(args), recorded);
    if (!plan) return { status: "ran", result, check };
    const outcome = await this.follow(tool, check.step, plan, options);
    if (outcome === "failed") return { status: "failed", result, check, outcome };
    return { status: "ran", result, check, outcome };
  }

  /** Follow a write with `outcome` until done, failed, or `give_up_after` (then outcome_unknown). */
  private async follow(tool: string, step: number, plan: FollowPlan, options: RunOptions): Promise<Outcome> {
    const start = this.session.now().getTime();
    const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    for (;;) {
      if (!options.follow) break;
      const planned = canonicalText(plan.args);
      if (planned === undefined) break;
      const origins = Object.fromEntries(Object.keys(plan.args).map((k) => [k, plan.origin]));
      const check = await this.session.checkToolCall(plan.tool, copy(planned), { origins });
      if (check.decision !== "allow") break;
      let read: unknown;
      try {
        read = jsonOrUndefined(await options.follow(copy(planned)));
        await this.session.report(check.step, "ran", read);
      } catch {
        await this.session.report(check.step, "failed");
        read = undefined;
      }
      if (read !== undefined) {
        const judged = await this.session.judgeOutcome(tool, read);
        if (judged === "done") return "ran";
        if (judged === "failed") {
          await this.session.report(step, "failed");
          return "failed";
        }
      }
      if (this.session.now().getTime() - start >= plan.giveUpAfterMs) break;
      await sleep(options.pollMs ?? 5000);
      if (this.session.now().getTime() - start >= plan.giveUpAfterMs) break;
    }
    await this.session.report(step, "outcome_unknown");
    return "outcome_unknown";
  }
}

/**
 * The checked arguments as JSON text, read once (the check digests the same values); the caller's
 * order of the top-level keys is kept. Undefined when they are not JSON data.
 */
function canonicalText(args: unknown): string | undefined {
  try {
    if (args === null || typeof args !== "object" || Array.isArray(args)) return canonicalize(args);
    const top = canonicalizeTop(args as Record<string, unknown>);
    return `{${top.order.map((k) => `${JSON.stringify(k)}:${top.parts[k]!}`).join(",")}}`;
  } catch {
    return undefined;
  }
}

/** A fresh copy of checked arguments, for one check or one run of a tool. */
function copy(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * What is recorded of what an impl returned: its JSON reading (`toJSON` applied, `undefined` members
 * gone), made data the history holds (canonical/recordable.ts: a lone surrogate as U+FFFD, what
 * canonical JSON cannot carry left out). The impl has run by then: a result the report would refuse
 * must not turn a step that ran into a throw, nor drop it from what rollback undoes.
 */
function jsonOrUndefined(v: unknown): unknown {
  if (v === undefined) return undefined;
  try {
    return recordable(jsonData(v));
  } catch {
    return undefined;
  }
}

function message(err: unknown): string {
  return (err as Error)?.message ?? String(err);
}
