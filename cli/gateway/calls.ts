/**
 * Every `tools/call` through the gateway, in order (issue 11):
 *
 *   1. origins: inferred from the session's own history (engine origins/infer.ts) — MCP carries no
 *      person's turns, so in practice `result:<step>.<path>` of a call that ran here, `context`, or
 *      `model`;
 *   2. the check, all 13 steps (in-process, or the check worker with `--check-url`); an error in it
 *      is a refusal (fail closed);
 *   3. refuse → a tool result with `isError`, the reasons in its text, the decision in `_meta`;
 *      the upstream never sees the call;
 *   4. confirm → the person is asked through MCP: the handler returns `input_required` with the
 *      check's question as a form (a checkbox, and the arguments as prefilled fields: form.ts) and the
 *      check's token as `requestState`. A 2026-07-28 client retries with the answer; for a
 *      2025-era client the SDK's legacy shim pushes the same form as `elicitation/create` and
 *      re-enters this handler. A changed field is the person's `reply`: the changed call is checked
 *      again from step 1, never run on the old approval. An approval re-checks the call
 *      with the token (step 10: bound to tool, agent, argument digest, session and ask; spent
 *      once) and forwards it. A client without elicitation: the call becomes a pending record in
 *      the approval store (cli/approvals/); with `approvalWaitMs` the gateway waits there for a
 *      person (`stalwart approvals serve` or `approve`) and goes on as they decide — approved: the
 *      token is spent and the call forwarded; denied: nothing runs; edited: the edited call is
 *      checked again from step 1. Undecided, the client gets `isError` naming the pending id, and
 *      once a person approves it the identical call spends that token; each decision is a
 *      receipt in the session history;
 *   5. allow → forwarded as it came (forward.ts), and the gateway reports what it saw. A 2026-07-28
 *      client's retry that answers the tool server's own request resumes the held call
 *      (held-calls.ts), never checked again.
 */
import { inputRequired, inputResponse, type ServerContext } from "@modelcontextprotocol/server";
import type { CheckResult, FollowedView, InferredOrigin, Outcome } from "../../worker/portable/engine/index.js";
import { HistoryView } from "./view.js";
import { sessionInfo } from "../sdk/session-info.js";
import { CallInputs, defineOwn, inferenceOf, canonicalize, editedOrigins, inferOrigins, labelsOf, originsOf, pendingFrom, resultToolOf, waitForDecision, type Approval, type PendingRecord } from "../../worker/portable/engine/index.js";
import { errorResult, faultCheck, question, refusalText, tokenWords, type ToolResult } from "./words.js";
import { approvalForm, editsOf, FORM_KEY, misfit } from "./form.js";
import { RequestStates } from "./request-states.js";
import { gatewayRefusal } from "./refusals.js";
import { forward, resume, type ForwardOptions } from "./forward.js";
import { HeldCalls } from "./held-calls.js";
import { AskedRecords } from "./asked.js";
import { progressTokenOf, safeCanonical, safeDigest, summary } from "./call-parts.js";
import { reportOutcome } from "./result-value.js";
import { passedOn } from "./result-filter.js";
import type { CallsOptions, GatewaySession } from "./calls-options.js";

export type { CallsOptions, GatewaySession } from "./calls-options.js";

/** Whether the client can be asked (server.ts works it out for a call only when a person is to be asked). */
const ELICITS = () => true;
const NO_ELICITATION = () => false;
/** Why a token covered nothing when the question it answers is not in this session (tokenWords): another gateway's, session's or run's. */
const FOREIGN: ReadonlySet<string> = new Set(["not_ours", "no_ask"]);

export class Calls {
  private readonly history: HistoryView;
  /** the session's own inference view, when it is an in-process `Client` session */
  private readonly followed: (() => FollowedView) | undefined;
  private readonly receipted = new Set<number>(); // steps whose receipt this gateway entered
  private readonly spending = new Set<string>(); // approved records a call in flight is spending
  // what the model had a say in, sent to the tool server: a result's echo of it is no source (call-inputs.ts)
  private readonly inputs = new CallInputs(undefined, (why) => this.log(`warning: ${why}: from now on no result vouches for a value in this session, and every write that carries one is asked about (restart the gateway to start a new session)`));
  private readonly states = new RequestStates(); // the `requestState`s given, read back, and answered (request-states.ts)
  /**
   * The reports not yet made: a call's outcome is recorded just after its reply is sent, so the
   * reply does not wait for the store; everything that reads or extends the session waits here
   * first, so the next check (and its inferred origins) sees every earlier result.
   */
  private reporting: Promise<void> = Promise.resolve();
  private queued = 0; // reports queued and not yet made: none, and a call need not wait
  /** calls of 2026-07-28 clients held open while the client answers the tool server (held-calls.ts) */
  private readonly held: HeldCalls;
  private readonly forwarding: ForwardOptions;
  private readonly asked: AskedRecords;
  constructor(private readonly o: CallsOptions) {
    this.asked = new AskedRecords(o.ownRecords ? o.pending : undefined, { recorded: o.ownRecords === "recorded", log: (l) => this.log(l) });
    this.history = new HistoryView(o.catalogue, o.language, o.context);
    this.followed = sessionInfo(o.session)?.inference;
    this.held = new HeldCalls({ waitMs: o.askTimeoutMs ?? 86_400_000, log: (l) => this.log(l) });
    const report = (step: number, outcome: Outcome, result?: unknown) => this.reportAfter(step, outcome, result);
    const passed = (tool: string, step: number, r: Record<string, unknown>) => (this.inputs.answered(step), passedOn(o.session, o.catalogue, tool, step, r));
    this.forwarding = { upstream: o.upstream, held: this.held, callTimeoutMs: o.callTimeoutMs, report, passedOn: passed, log: (l) => this.log(l), ...(o.relay ? { relay: o.relay } : {}), ...(o.tasks ? { tasks: o.tasks } : {}) };
  }

  /** The gateway closes: held calls end (their tool servers' requests fail, their outcomes are reported); its open pending records are withdrawn. */
  async close(): Promise<void> {
    this.held.close();
    await this.o.trace?.decided(this.o.pending); // a "no" given in the store since the last call
    await this.asked.withdrawAll(this.nowMs(), (l) => this.log(l));
  }

  get session(): GatewaySession {
    return this.o.session;
  }

  /** Once every report of a call answered so far is recorded (it never rejects). */
  settled = (): Promise<void> => this.reporting;

  /**
   * Fail closed: a fault anywhere before the call is forwarded (the approval store, the clock, the
   * history) is a refusal with `internal_error`, and the next call is served as usual. Once
   * forwarded, `forward` answers for what happened.
   */
  async call(params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }, ctx: ServerContext, canElicit: () => boolean): Promise<ToolResult | ReturnType<typeof inputRequired>> {
    // the call's `_meta` goes to the tool server as it came: a read may hand it back too (outside audit 25, F3)
    if (params._meta !== undefined) this.inputs.note(undefined, params._meta);
    try {
      if (this.queued > 0) await this.reporting;
      return await this.checked(params, ctx, canElicit);
    } catch (err) {
      if (ctx.mcpReq.signal.aborted) throw err;
      const check = faultCheck(err);
      this.log(`refuse ${params.name} internal_error: ${String(check.detail.message)}`);
      return errorResult(refusalText(params.name, check), summary(check));
    }
  }

  private async checked(params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }, ctx: ServerContext, canElicit: () => boolean): Promise<ToolResult | ReturnType<typeof inputRequired>> {
    const tool = params.name;
    const args = params.arguments ?? {};
    if (this.o.hidden?.has(tool) || this.o.pins?.has(tool)) {
      const refused = await gatewayRefusal(tool, this.o.hidden, this.o.pins, (l) => this.log(l));
      if (refused) return refused;
    }
    const state = ctx.mcpReq.requestState();
    if (typeof state === "string") return HeldCalls.owns(state) ? resume(this.forwarding, params, state, ctx) : this.answered(params, args, state, ctx);

    const origins = this.infer(tool, args);
    const check = await this.check(tool, args, origins);
    // Only a call that needs a person can be covered by a person's approval in the store: the
    // store is read here, not on every call (its list grows with every record kept).
    const approved = check.decision === "confirm" ? await this.approvedNow(tool, args, origins, check).catch((err: unknown) => { this.o.trace?.call(tool, args, origins, check); throw err; }) : undefined;
    await this.o.trace?.proposed(tool, args, origins, check, this.o.pending, approved?.record.token);
    if (!approved) return this.decided(params, ctx, canElicit, tool, args, origins, check);
    // this call's until it is spent or not: identical calls in flight each take an approval of their own (outside audit 10, F2)
    this.spending.add(approved.record.id);
    try {
      if (!(await this.recorded(approved))) return errorResult(`${tool} was approved, but the decision could not be recorded in the history; it did not run.`, summary(check));
      const again = await this.check(tool, args, origins, approved.record.token);
      this.o.trace?.answer(approved.record.token, true, again);
      if (again.decision === "allow") {
        await this.o.pending.markUsed(approved.record.id);
        this.asked.settled(approved.record.id);
      }
      return this.decided(params, ctx, canElicit, tool, args, origins, again);
    } finally {
      this.spending.delete(approved.record.id);
    }
  }

  /**
   * The approved, unexpired, unspent record of exactly this call in this session, if the store
   * holds one, asked for the same holds as this check's: an approval of the arguments as the
   * model's own covers nothing of them copied since out of an untrusted read (outside audit 10, F5).
   */
  private async approvedNow(tool: string, args: Record<string, unknown>, origins: Record<string, InferredOrigin>, check: CheckResult): Promise<Approval | undefined> {
    const digest = safeDigest(args);
    const ask = this.askOf(tool, args, origins, check);
    if (!digest || !ask) return undefined;
    for (;;) {
      const a = await this.asked.approvedIn(this.o.pending, this.o.session.id, tool, digest, this.nowMs(), ask, this.spending);
      // another call may have taken it while this one read the store
      if (!a || !this.spending.has(a.record.id)) return a;
    }
  }

  /** The pending record of a confirm, as the person would be shown it (null: it has no token). */
  private askOf(tool: string, args: Record<string, unknown>, origins: Record<string, InferredOrigin>, check: CheckResult): PendingRecord | null {
    const labels: Record<string, string[]> = {};
    for (const k of Object.keys(origins)) defineOwn(labels, k, origins[k]!.labels); // `__proto__` too
    return pendingFrom({ session: this.o.session.id, tool, args, check, origins: originsOf(origins), labels, catalogue: this.o.catalogue, now: this.nowMs(), resultTool: resultToolOf(origins) });
  }

  /** `carry`: the arguments are the person's edit, not what the client sent, so they travel in `requestState` (form.ts). */
  private async decided(params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }, ctx: ServerContext, canElicit: () => boolean, tool: string, args: Record<string, unknown>, origins: Record<string, InferredOrigin>, check: CheckResult, carry = false): Promise<ToolResult | ReturnType<typeof inputRequired>> {
    switch (check.decision) {
      case "refuse":
        this.log(`refuse ${tool} ${check.reasons.join(",")}`);
        return errorResult(refusalText(tool, check), summary(check));
      case "allow":
        return this.forward(params, check, ctx);
      case "confirm": {
        const text = question(tool, args, origins, check);
        if (check.confirmation && canElicit()) {
          this.log(`confirm ${tool} ${check.reasons.join(",")}: asking the person`);
          return inputRequired({
            inputRequests: { [FORM_KEY]: inputRequired.elicit({ message: text, requestedSchema: approvalForm(tool, args) }) },
            requestState: this.states.mint(check.confirmation, check.reasons, carry ? args : undefined),
          });
        }
        return this.hold(params, ctx, tool, args, origins, check, text);
      }
    }
  }

  /** The second round: the person answered (or the client says so); `state` is what we minted: the token, and the person's edited arguments if any. */
  private async answered(params: { name: string; _meta?: Record<string, unknown> }, sent: Record<string, unknown>, state: string, ctx: ServerContext): Promise<ToolResult | ReturnType<typeof inputRequired>> {
    const tool = params.name;
    const read = this.states.read(state);
    if ("unreadable" in read) {
      this.log(`confirm ${tool}: a requestState this gateway did not give (${read.unreadable}); it did not run`);
      return errorResult(`${tool} was not approved: the requestState is not one this gateway gave (${read.unreadable}), and the call did not run.`, { decision: "confirm", reasons: [], approved: false, answer: "unreadable" });
    }
    const { token, args: carried, seen, reasons } = read;
    if (this.states.used(seen)) {
      this.log(`confirm ${tool}: the same answer came again; it did not run again`);
      return errorResult(`${tool}: this answer was already used (the same requestState came again), and the call did not run again.`, { decision: "confirm", reasons: [...reasons], answer: "replayed" });
    }
    const args = carried ?? sent;
    const answer = inputResponse(ctx.mcpReq.inputResponses, FORM_KEY);
    const approved = answer.kind === "elicit" && answer.action === "accept" && answer.content?.[FORM_KEY] === true;
    const wrong = approved ? misfit(args, answer.content) : undefined;
    // Used once a decision is taken (no answer, or an unreadable one, decides nothing: audit 6,
    // F3); set before any await, so two copies of one approval racing in are one use.
    if (answer.kind === "elicit" && !wrong) this.states.use(seen);
    if (answer.kind === "elicit" && !approved) this.o.trace?.answer(token, false);
    if (!approved) {
      const how = answer.kind === "elicit" ? (answer.action === "accept" ? "not approved" : answer.action === "decline" ? "declined" : "cancelled") : "not answered";
      this.log(`confirm ${tool}: ${how}; it did not run`);
      // accepted with `approve` unticked: said as what happened, not "not approved (not approved)"
      return errorResult(`${tool} was not approved (${how === "not approved" ? "the form came back with `approve` unticked" : how}), and it did not run.`, { decision: "confirm", reasons: [...reasons], approved: false, answer: how });
    }
    if (wrong) {
      // neither this call nor a changed one: the original must not run on an answer that changed it
      this.o.trace?.answer(token, false);
      this.log(`confirm ${tool}: the answer to ${wrong.field} is not a ${wrong.type}; it did not run`);
      return errorResult(`${tool} was not approved: the answer to \`${wrong.field}\` is not a ${wrong.type}, as the form asks, and the call did not run.`, { decision: "confirm", reasons: [...reasons], approved: false, answer: "unreadable" });
    }
    // Values the person typed are `reply`; the arguments they were not shown again keep what inference says.
    const origins = this.infer(tool, args);
    if (carried) for (const k of Object.keys(args)) if (!Object.hasOwn(sent, k) || safeCanonical(sent[k]) !== safeCanonical(args[k])) defineOwn(origins, k, { origin: "reply", labels: [] }); // `__proto__` too
    const edits = answer.kind === "elicit" ? editsOf(args, answer.content) : undefined;
    if (edits) {
      // A changed call is another call: checked again from step 1, without the old token.
      const next = { ...args, ...edits };
      for (const k of Object.keys(edits)) defineOwn(origins, k, { origin: "reply", labels: [] }); // `__proto__` too
      const check = await this.check(tool, next, origins);
      this.o.trace?.answer(token, false); // the call as proposed was not approved: the edited one is a call of its own
      this.o.trace?.call(tool, next, origins, check);
      this.log(`confirm ${tool}: the person changed ${Object.keys(edits).join(", ")}; checked again: ${check.decision}`);
      return this.decided({ ...params, arguments: next }, ctx, ELICITS, tool, next, origins, check, true);
    }
    // Re-checked from step 1 with the token: a changed argument or a spent or forged token covers
    // nothing, and the call is confirmed again (asked again) instead of allowed.
    const check = await this.check(tool, args, origins, token);
    // a state another gateway, session or run gave answers no call of this trace: the retry is a call of its own (outside audit 15, F5)
    if (FOREIGN.has(String(check.detail.confirmation))) this.o.trace?.call(tool, args, origins, check);
    else this.o.trace?.answer(token, true, check);
    if (check.decision === "allow") return this.forward({ ...params, arguments: args }, check, ctx);
    if (check.decision === "refuse") return errorResult(refusalText(tool, check), summary(check));
    // another call than the one approved: the approval (its token unspent) stays good for that one
    if (check.detail.confirmation === "other_call") this.states.release(seen);
    this.log(`confirm ${tool}: the approval does not cover this call (${String(check.detail.confirmation ?? "")})`);
    const code = String(check.detail.confirmation ?? "");
    return errorResult(`the approval does not cover this call of ${tool} (${code || "unknown"}): ${tokenWords(code)}. It did not run.`, summary(check));
  }

  private async hold(params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }, ctx: ServerContext, tool: string, args: Record<string, unknown>, origins: Record<string, InferredOrigin>, check: CheckResult, text: string): Promise<ToolResult | ReturnType<typeof inputRequired>> {
    const fresh = this.askOf(tool, args, origins, check);
    if (!fresh) return errorResult(`${text}\n\nThis call waits for a person, and no approval can be recorded for it.`, summary(check));
    let record: PendingRecord;
    try {
      record = await this.asked.enter(fresh, this.nowMs(), (r) => this.o.pending.add(r)); // the same call asked again: its record
    } catch (err) {
      return errorResult(`${text}\n\nThis call waits for a person, but the pending confirmation could not be stored (${(err as Error).message}).`, summary(check));
    }
    const id = record.id;
    this.log(`confirm ${tool} ${check.reasons.join(",")}: ${record === fresh ? "waiting" : "still waiting (asked again)"} as ${id}`);
    const waitMs = this.o.approvalWaitMs ?? 0;
    const standing = await this.o.standing?.(record).catch(() => undefined);
    // the client closing the POST of this call ends the wait too: its answer would reach nobody
    const post = this.o.gone?.watch(ctx.sessionId, ctx.mcpReq.id);
    const signal = post?.signal ? AbortSignal.any([ctx.mcpReq.signal, post.signal]) : ctx.mcpReq.signal;
    let a: Approval | undefined;
    try {
      a = standing ?? (waitMs > 0 ? await waitForDecision(this.o.pending, id, { ms: waitMs, signal }) : undefined);
    } finally {
      post?.done();
    }
    if (post?.signal?.aborted) this.log(`confirm ${tool}: the client closed its request while it waited for a person (${id}); it did not run`);
    const receipt = a?.receipt;
    // cancelled, its POST closed, or its session ended, while it waited: a decision is left for the same call made again, not spent on one that cannot run
    if (!a || !receipt || signal.aborted) {
      return errorResult(`${text}\n\nThis call waits for a person (pending ${id}); it did not run. Once it is approved, the same call with the same arguments runs once.`, { ...summary(check), pending: id });
    }
    if (!(await this.recorded(a))) return errorResult(`${tool}: the decision could not be recorded in the history; it did not run.`, { ...summary(check), pending: id });
    if (receipt.decision !== "approve") this.asked.settled(id);
    if (receipt.decision !== "approve") this.o.trace?.answer(record.token, false);
    if (receipt.decision === "deny") {
      this.log(`confirm ${tool}: denied by ${receipt.by} (${id})`);
      return errorResult(`${tool} was denied by ${receipt.by}${receipt.message ? `: ${receipt.message}` : ""}, and it did not run.`, { ...summary(check), pending: id, approved: false });
    }
    if (receipt.decision === "edit") {
      // The person's values, checked again from step 1: never run on the old approval.
      const edited = receipt.edited ?? {};
      const again = editedOrigins(args, edited, originsOf(origins), canonicalize);
      const inferred: Record<string, InferredOrigin> = {};
      // an argument the person left keeps its labels (where it came from is shown on the next ask)
      for (const k of Object.keys(again)) {
        const was = Object.hasOwn(origins, k) ? origins[k] : undefined;
        defineOwn(inferred, k, { origin: again[k]!, labels: was && again[k] === was.origin ? was.labels : [] }); // `__proto__` too
      }
      const check2 = await this.check(tool, edited, inferred);
      this.o.trace?.call(tool, edited, inferred, check2);
      this.log(`confirm ${tool}: edited by ${receipt.by} (${id}), checked again: ${check2.decision}`);
      const out = await this.decided({ ...params, arguments: edited }, ctx, NO_ELICITATION, tool, edited, inferred, check2);
      return out as ToolResult;
    }
    const check2 = await this.check(tool, args, origins, record.token);
    this.o.trace?.answer(record.token, true, check2);
    if (check2.decision !== "allow") {
      const why = check2.detail.confirmation === undefined ? check2.reasons.join(", ") : `${String(check2.detail.confirmation)}: ${tokenWords(String(check2.detail.confirmation))}`;
      return errorResult(`${tool} was approved by ${receipt.by}, but the approval does not cover this call (${why}); it did not run.`, summary(check2));
    }
    await this.o.pending.markUsed(id);
    this.asked.settled(id);
    this.log(`confirm ${tool}: approved by ${receipt.by} (${id})`);
    return this.forward(params, check2, ctx);
  }

  /** The decision enters the session history before anything it allows runs. */
  private async recorded(a: Approval): Promise<boolean> {
    if (!a.receipt || !this.o.session.receipt) return true;
    const step = a.record.step;
    if (this.receipted.has(step)) return true;
    // in process, this is the only writer of receipts (and reading `history.entries` makes the engine copy every entry from then on)
    if (!this.followed && this.o.session.history.entries.some((e) => e.kind === "receipt" && e.of === step)) return true;
    try {
      await this.o.session.receipt(a.receipt);
      this.receipted.add(step);
      return true;
    } catch (err) {
      this.log(`receipt of ${a.record.id} not recorded: ${(err as Error).message}`);
      return false;
    }
  }

  private nowMs = (): number => (this.o.now ?? (() => new Date()))().getTime();

  private forward(params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }, check: CheckResult, ctx: ServerContext): Promise<ToolResult | ReturnType<typeof inputRequired>> {
    return forward(this.forwarding, params, check, ctx);
  }

  /** Something else the client had the gateway send the tool server (a resource's URI, a prompt's arguments): a read may hand it back too. */
  sentOn(params: unknown): void {
    this.inputs.note(undefined, params);
  }

  infer(tool: string, args: Record<string, unknown>): Record<string, InferredOrigin> {
    if (typeof args !== "object" || args === null || Array.isArray(args)) return {};
    try {
      // An in-process session keeps its own inference view (engine origins/follow.ts); any other
      // session's history is followed here (view.ts), through the copy it hands out.
      const view = this.followed ? this.followed().view : this.history.view(this.o.session.history.entries);
      return inferOrigins(args, view, { ...inferenceOf(this.o.catalogue, tool), inputs: this.inputs });
    } catch {
      // Unreadable history or values: nothing is trusted, the check asks about every argument.
      return {};
    }
  }

  /** Fail closed: an error inside the check is a refusal with a reason, never an allow. */
  private async check(tool: string, args: unknown, origins: Record<string, InferredOrigin>, token?: string): Promise<CheckResult> {
    try {
      const check = await this.o.session.checkToolCall(tool, args, { origins: originsOf(origins), ...labelsOf(origins), ...(token ? { confirmation: token } : {}) });
      if (check.confirmation) this.asked.confirmed(check.confirmation, this.nowMs());
      if (check.decision === "allow") this.inputs.note(check.step, args, origins);
      return check;
    } catch (err) {
      return faultCheck(err);
    }
  }

  /**
   * The report, queued behind any earlier one and made on the next turn of the event loop, after
   * the reply this turn sends (the SDK writes it out within the turn). A gateway's session lives as
   * long as its process, so nothing is lost to the delay that a crash during the call would not
   * lose too; a failed call's counters stay reserved until then (the safe direction).
   */
  private reportAfter(step: number, outcome: Outcome, result?: unknown): Promise<void> {
    this.queued++;
    this.reporting = this.reporting.then(() => new Promise<void>((r) => setImmediate(r))).then(() => this.report(step, outcome, result)).finally(() => void this.queued--);
    return this.reporting;
  }

  /** Background bookkeeping never throws into the call. */
  private async report(step: number, outcome: Outcome, result?: unknown): Promise<void> {
    if (step < 0) return;
    await reportOutcome(this.o.session, step, outcome, result, (l) => this.log(l));
    // what happened to the call, whether or not the history could take it
    this.o.trace?.outcome(step, outcome, result);
    // the inference view reads this call's entries now, after the reply, not in front of the next check
    try {
      this.followed?.();
    } catch {
      // the next call's `infer` reads it again, and fails closed
    }
  }

  private log = (line: string): void => this.o.log?.(line);
}
