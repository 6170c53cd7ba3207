/**
 * What both adapters (`stalwart-agents/ai`, `stalwart-agents/openai-agents`) do, framework aside:
 *
 *   1. the person's messages become turns (`session.read`), each once, before a call is checked;
 *   2. each call is checked with origins inferred from the session's own history (engine
 *      origins/infer.ts: `typed` where a turn holds the value, `result:<step>.<path>` where a
 *      recorded result does, with that step's labels, `context`, else `model`);
 *   3. a `confirm` keeps its token by the framework's call id (approvals.ts) until the person's
 *      answer comes back; the approved call is checked again with the token — a changed input,
 *      a spent or another call's token covers nothing — and the token is spent once;
 *   4. what ran is reported: `ran` with the result, or `failed`.
 *
 * Fail closed: an error inside a check is a refusal (`internal_error`), never an allow. The
 * bookkeeping (reports) never throws into the framework's loop.
 */
import { inferenceOf, inferOrigins, labelsOf, originsOf, StalwartError } from "../../worker/portable/engine/index.js";
import type { CallInputs, CallOptions, CheckResult, CompiledCatalogue, FollowedView, InferredOrigin, Language, Outcome } from "../../worker/portable/engine/index.js";
import { sessionInfo } from "../sdk/session-info.js";
import { givenCatalogue, infoCatalogue } from "./catalogue-parts.js";
import { faultCheck, nameText, question, refusalText, tokenWords } from "../gateway/words.js";
import { DEFAULT_APPROVALS_LIMIT, MemoryApprovals, type ApprovalStore, type PendingApproval } from "./approvals.js";
import { newTurns } from "./turns.js";
import { copyOf, isRecord, isThenable, keyOf, message, plainOf, recordedCopy, sameCall, sameList, sha256Key, trim } from "./data.js";
import { HistoryMirror } from "./view.js";
import { sentRecordOf } from "./sent-record.js";
import { NestedWaits } from "./nested-record.js";
import { KeptVerdicts } from "./kept-verdicts.js";
import { CallRecords, denyRecord } from "./records.js";
import type { CheckEvent, GuardOptions, GuardSession, Verdict } from "./types.js";

export type { CheckEvent, GuardOptions, GuardSession, Verdict } from "./types.js";

/** A refused call, as the framework hands it to the model (its message says why). */
export class ToolCallRefused extends StalwartError {
  readonly check: CheckResult;
  constructor(message: string, check: CheckResult) {
    super("ToolCallRefused", message);
    this.check = check;
  }
}

export class CallGuard {
  readonly catalogue: () => CompiledCatalogue;
  private readonly language: () => Language;
  private readonly context: Readonly<Record<string, unknown>>;
  readonly approvals: ApprovalStore;
  private readonly records: CallRecords;
  /** how many unsettled calls (and, in the default store, approval records) are kept */
  private readonly limit: number;
  /** first checks of calls not settled yet, by call id (kept-verdicts.ts) */
  private readonly decided: KeptVerdicts;
  private reading: Promise<void> = Promise.resolve();
  /** rejections being kept (`rejected`): an approval waits for them */
  private rejecting: Promise<void> = Promise.resolve();
  private lastTexts: readonly string[] = [];
  /** the session's own inference view (an in-process `Client` session), read instead of its history; else the view kept here from its history, entry by entry (view.ts) */
  private readonly followed: (() => FollowedView) | undefined;
  private readonly mirror: HistoryMirror | undefined;
  private readonly inputs: CallInputs; // what the session's calls sent, shared by its guards (sent-record.ts): an echo of it in a result is no source
  private readonly shapes = new Map<string, ReturnType<typeof inferenceOf>>();
  /** the tool of each allowed call not reported yet, by step */
  private readonly allowed = new Map<number, string>();

  constructor(readonly session: GuardSession, private readonly options: GuardOptions = {}) {
    if (typeof session !== "object" || session === null || typeof session.checkToolCall !== "function") {
      throw new StalwartError("InputError", "`guard` needs a stalwart session (`client.session(...)`) as its second argument");
    }
    // Every function this guard keeps is made by a module function (catalogue-parts.ts,
    // `plainOf`), none in this constructor: a closure made here kept the guard's session alive
    // through young-generation collections once the guard was dropped (measured, cause not
    // found; test/sdk/history-view-gc.test.ts).
    const info = sessionInfo(session);
    const what = options.catalogue !== undefined ? givenCatalogue(options) : info ? infoCatalogue(info) : undefined;
    if (!what) throw new StalwartError("InputError", "this session did not come from `Client`: pass `{ catalogue }` (the one it was started with) so origins can be inferred");
    this.catalogue = what.catalogue;
    this.language = what.language;
    this.context = what.context;
    const limit = options.limit ?? DEFAULT_APPROVALS_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1) throw new StalwartError("InputError", "`limit` must be a whole number of calls, at least 1");
    this.limit = limit;
    this.decided = new KeptVerdicts(limit);
    this.inputs = sentRecordOf(session);
    this.approvals = options.approvals ?? new MemoryApprovals(undefined, { limit });
    this.records = new CallRecords(this.approvals, session.id);
    const plain = typeof session.toJSON === "function" ? plainOf(session) : undefined;
    this.followed = info?.inference;
    this.mirror = this.followed ? undefined : new HistoryMirror(this.catalogue, this.language, this.context, plain);
  }

  /** The person's messages, all of them in the conversation's order; only new ones are read. */
  syncTurns(texts: readonly string[]): Promise<void> {
    if (this.options.turns === "host") return this.reading;
    this.reading = this.reading.then(async () => {
      if (sameList(texts, this.lastTexts)) return;
      const known = this.followed ? this.followed().turns : this.mirror!.turnTexts(this.session.history.entries);
      for (const t of newTurns(known, texts)) {
        const { step } = await this.session.read(t);
        this.mirror?.own(this.session.history.entries, step, { kind: "turn", text: t });
      }
      this.lastTexts = [...texts];
    }).catch((err) => this.log(`a turn could not be recorded: ${message(err)}`));
    return this.reading;
  }

  /**
   * The first check of a call, once per call id and input until it settles. `answered`: the
   * framework already holds a person's answer for this call id. A confirm minted now was never put
   * to them (the input changed after they were asked, its pending approval was not kept, or the
   * answer is a standing one for the tool), so it is refused, not kept for that answer to spend.
   * `namespace`: the Agents JS namespace of the tool that runs the call (the check knows the
   * catalogue's tool by `tool` alone; the record and its question bind the namespace too).
   */
  async check(callId: string, tool: string, args: unknown, answered = false, namespace?: string): Promise<Verdict> {
    const key = keyOf(tool, args, namespace);
    const known = this.decided.known(callId, key);
    await this.releaseOrphans();
    if (known) return known;
    // A store that cannot be read holds nothing here: the call is checked, and a confirm it needs
    // cannot be kept either (below), so nothing runs on it.
    if (answered) await this.rejecting;
    const p = await this.records.get(callId);
    let stale = false;
    if (p instanceof Error) this.log(`the approval kept for call ${callId} could not be read: ${p.message}`);
    else if (p?.waits === "nested") {
      // An agent tool's call whose nested run waited for a person, resumed in this process.
      const resumed = sameCall(p, key) ? this.nested.resume(callId, p, tool, args, this.session.history.entries) : undefined;
      if (resumed) {
        this.allowed.set(p.step, tool);
        trim(this.allowed, this.limit);
        this.decided.keep(callId, key, resumed);
        return resumed;
      }
      stale = true;
    } else if (p) {
      const same = sameCall(p, key);
      const check: CheckResult = { decision: "confirm", reasons: p.reasons, detail: { wording: p.question }, step: p.step, confirmation: p.token };
      // Asked already (the framework asks "needs approval?" again when it resumes): the same
      // question. An edited call with an answer on hand too: the re-check with its token refuses it.
      if (!p.used && (same || answered)) return { decision: "confirm", check, question: p.question };
      // The person's answer to this very call, sent again.
      if (p.used && same && answered) return { decision: "refuse", check: { ...check, decision: "refuse" }, message: p.denied ? `${tool} did not run: ${REJECTED}.` : `${tool} did not run again: its approval was already used; an approval covers one run of the call.` };
      // This very call, rejected, made again under its id (a provider that reuses ids): not asked
      // again. A second question would take the record's place, and an approval of the rejected
      // one, from a copy saved when it was asked, would spend it (outside audit 11, F1 and F3).
      if (p.used && p.denied && same) return { decision: "refuse", check: { ...check, decision: "refuse" }, message: `${tool} did not run: ${REJECTED}; the same call under the same call id is not asked again.` };
      // Else the record is of an earlier call under this id (spent, or asked and left unanswered):
      // a provider that reuses ids made a new call, checked (and asked about) as one.
      stale = true;
    }
    await this.reading;
    const origins = this.infer(tool, args);
    const check = await this.safeCheck(tool, args, { origins: originsOf(origins), ...labelsOf(origins) }, origins);
    let verdict = this.verdict(tool, args, origins, check, namespace);
    if (verdict.decision === "confirm" && answered) {
      verdict = { decision: "refuse", check, message: `${tool} did not run: a person must approve this call as it is now, and the answer on hand was not given to it (the call changed after it was asked about, its pending approval was not kept, or the approval stands for the whole tool).` };
    } else if (verdict.decision === "confirm" && check.confirmation) {
      const record: PendingApproval = { v: 1, tool, step: check.step, token: check.confirmation, reasons: [...check.reasons], question: verdict.question, used: false };
      if (key !== undefined) record.call = sha256Key(key);
      if (namespace !== undefined) record.namespace = namespace;
      const kept = await this.records.set(callId, record);
      stale = false; // replaced
      if (kept) verdict = { decision: "refuse", check, message: `${tool} needs a person's approval, and its approval could not be kept (${kept.message}); it did not run.` };
    }
    if (stale) await this.drop(callId);
    // Shown after the decision is made, as a copy: the observer can neither fail nor change it.
    this.observe({ callId, tool, args, origins, check, approval: false });
    if (verdict.decision !== "confirm") this.decided.keep(callId, key, verdict);
    await this.releaseOrphans();
    return verdict;
  }

  /** The token kept for a call that waits for a person, if any. */
  async pending(callId: string): Promise<PendingApproval | undefined> {
    const p = await this.records.get(callId);
    return p instanceof Error || p?.waits !== undefined ? undefined : p;
  }

  /**
   * An allowed call of an agent tool whose nested run stopped for a person: kept by its call id,
   * so that resumed in another process it is still this check — one check, one report, one count.
   * Not kept (a store that fails): it is checked again there.
   */
  async waitsNested(callId: string, tool: string, args: unknown, verdict: Verdict): Promise<void> {
    const record = this.nested.record(callId, tool, args, verdict);
    const failed = record && (await this.records.set(callId, record));
    if (failed) this.log(`call ${callId} waits for a nested run, and that could not be kept (${failed.message}): resumed in another process it is checked again`);
  }

  /**
   * A person rejected call `callId` (Agents JS `state.reject(item)`, the AI SDK's `approved: false`,
   * which reach none of the tool's hooks: openai-agents/rejections.ts, ai/denials.ts). Its record,
   * if it is of this very call and unspent, is marked used and rejected: an approval of it from a
   * state saved before runs nothing. Resolves once that is kept (or its failure logged); never rejects.
   */
  rejected(callId: string, tool: string, args: unknown, namespace?: string): Promise<void> {
    const key = keyOf(tool, args, namespace);
    const done = denyRecord(this.records, callId, (p) => p.tool === tool && p.namespace === namespace && sameCall(p, key));
    this.rejecting = this.rejecting.then(async () => {
      const failed = await done;
      if (failed) this.log(`the rejection of call ${callId} could not be kept: ${failed.message}`);
    });
    return this.rejecting;
  }

  /** The agent tools (asTool of a guarded agent) whose kept checks may resume (nested-record.ts). */
  readonly nested = new NestedWaits();

  /**
   * Does this call wait for a person's answer? With an answer on hand, any record under its id
   * (the re-check judges it); else only an unspent one of this very call — a record of an earlier
   * call under a reused id is not this one's.
   */
  async waiting(callId: string, tool: string, args: unknown, answered: boolean): Promise<boolean> {
    const p = await this.pending(callId);
    return p !== undefined && (answered || (!p.used && sameCall(p, keyOf(tool, args))));
  }

  /**
   * The person approved call `callId`: check it again with its token. Allowed once; a changed
   * input (or tool), a spent or expired token is not allowed, and nothing runs.
   */
  async approved(callId: string, tool: string, args: unknown, namespace?: string): Promise<Verdict> {
    const key = keyOf(tool, args, namespace);
    const known = this.decided.known(callId, key);
    await this.releaseOrphans();
    if (known) return known;
    await this.rejecting;
    const p = await this.records.get(callId);
    const none = (why: string): Verdict => {
      const check: CheckResult = { decision: "refuse", reasons: [], detail: { message: why }, step: -1 };
      return { decision: "refuse", check, message: `${tool} did not run: ${why}.` };
    };
    if (p instanceof Error) return none(`the approval kept for it could not be read (${p.message})`);
    if (!p) return none("no confirmation of this call is waiting for a person");
    if (p.used) return none(p.denied ? REJECTED : "its approval was already used; an approval covers one run of the call");
    if (p.tool !== tool) return none(`the approval was given for \`${p.tool}\``);
    // The token binds the catalogue's tool, not the namespace whose tool runs: the record does.
    if (p.namespace !== namespace) return none(`the approval was given for ${p.tool}${inNamespace(p.namespace)}, not for ${tool}${inNamespace(namespace)}`);
    await this.reading;
    const origins = this.infer(tool, args);
    const check = await this.safeCheck(tool, args, { origins: originsOf(origins), ...labelsOf(origins), confirmation: p.token }, origins);
    let verdict: Verdict;
    if (check.decision === "allow") {
      // The session spent the token whatever the store says: a record left unmarked covers nothing.
      const kept = await this.records.set(callId, { ...p, used: true });
      if (kept) this.log(`the approval of call ${callId} could not be marked used: ${kept.message}`);
      verdict = { decision: "allow", check };
    } else if (check.decision === "refuse") {
      verdict = { decision: "refuse", check, message: refusalText(tool, check) };
    } else {
      const why = String(check.detail.confirmation ?? "");
      verdict = { decision: "refuse", check, message: `the approval does not cover this call of ${tool}: ${tokenWords(why)}${why ? ` (${why})` : ""}; it did not run.` };
    }
    this.decided.keep(callId, key, verdict);
    this.observe({ callId, tool, args, origins, check, approval: true });
    await this.releaseOrphans();
    return verdict;
  }

  /** A record whose id now names another call: dropped where the store can (else it is stale anyway). */
  private async drop(callId: string): Promise<void> {
    const failed = await this.records.delete(callId);
    if (failed) this.log(`the approval kept for call ${callId} could not be dropped: ${failed.message}`);
  }

  /** Allowed checks let go before their call ran on them: reported `failed`, so they hold nothing. */
  private async releaseOrphans(): Promise<void> {
    for (const check of this.decided.drainOrphans()) await this.failed(check);
  }

  /**
   * The framework is about to run call `callId` on its allowed verdict: that verdict is spent, and
   * the same id and input again is checked afresh. `taken: false` gives it back (an agent tool
   * whose nested run stopped for a person has not run yet).
   */
  take(callId: string, tool: string, args: unknown, taken = true, namespace?: string): void {
    this.decided.take(callId, keyOf(tool, args, namespace), taken);
  }

  /**
   * The host's `onCheck`, an observer: it is shown a copy, after the decision is made, and what it
   * throws or rejects with is logged — it never changes a decision or breaks the framework's loop.
   */
  private observe(event: CheckEvent): void {
    const hook = this.options.onCheck;
    if (typeof hook !== "function") return;
    const failed = (err: unknown) => this.log(`the onCheck hook failed: ${message(err)}`);
    try {
      const shown: CheckEvent = { ...event, args: copyOf(event.args), origins: copyOf(event.origins), check: copyOf(event.check) };
      const r: unknown = hook(shown);
      if (isThenable(r)) r.then(undefined, failed);
    } catch (err) {
      failed(err);
    }
  }

  /** The verdict kept for a call id and input, without checking anything (undefined when none is kept). */
  keptVerdict(callId: string, tool: string, args: unknown, namespace?: string): Verdict | undefined {
    return this.decided.peek(callId, keyOf(tool, args, namespace));
  }

  /** The call settled (ran, failed, or was not run): forget its first check, and a nested record kept for it. */
  settle(callId: string): void {
    this.decided.settle(callId);
    if (this.nested.settled(callId)) void this.drop(callId);
  }

  async ran(check: CheckResult, result: unknown): Promise<void> {
    if (check.step < 0) return;
    const tool = this.allowed.get(check.step);
    this.allowed.delete(check.step);
    // A copy of our own is reported and handed to the view: what the session keeps of it is then
    // known here without reading the entry back through the history's traps, and a framework that
    // changes the result object afterwards changes neither (data.ts `recordedCopy`). Not JSON data:
    // reported without it (no `result:` origin can name it) — by us, or when the session's
    // stricter reading refuses it.
    const recorded = recordedCopy(this.catalogue, tool, result);
    const at = recorded === undefined ? "not data" : await this.report(check.step, "ran", recorded, true);
    if (typeof at === "number") this.ownReport(at, check.step, "ran", tool, recorded);
    else if (at !== undefined) this.ownReport(await this.report(check.step, "ran"), check.step, "ran", tool, undefined);
  }

  async failed(check: CheckResult): Promise<void> {
    const tool = this.allowed.get(check.step);
    this.allowed.delete(check.step);
    if (check.step >= 0) this.ownReport(await this.report(check.step, "failed"), check.step, "failed", tool, undefined);
  }

  /** The report entry the session wrote at `at`, as the view takes it (without reading it back). */
  private ownReport(at: number | "not data" | undefined, of: number, outcome: Outcome, tool: string | undefined, recorded: unknown): void {
    if (typeof at !== "number" || tool === undefined) return;
    this.mirror?.own(this.session.history.entries, at, { kind: "report", of, outcome, tool, recorded });
  }

  private verdict(tool: string, args: unknown, origins: Record<string, InferredOrigin>, check: CheckResult, namespace?: string): Verdict {
    if (check.decision === "allow") return { decision: "allow", check };
    if (check.decision === "refuse") return { decision: "refuse", check, message: refusalText(tool, check) };
    if (!check.confirmation) return { decision: "refuse", check, message: `${tool} needs a person's approval, and no approval can be recorded for it; it did not run.` };
    return { decision: "confirm", check, question: question(tool, isRecord(args) ? args : {}, origins, check, namespace) };
  }

  private infer(tool: string, args: unknown): Record<string, InferredOrigin> {
    if (!isRecord(args)) return {};
    try {
      let shape = this.shapes.get(tool);
      if (!shape) this.shapes.set(tool, (shape = inferenceOf(this.catalogue(), tool)));
      return inferOrigins(args, this.followed ? this.followed().view : this.mirror!.view(this.session.history.entries), { ...shape, inputs: this.inputs });
    } catch {
      // Unreadable history or values: nothing is trusted, and the check asks about every argument.
      return {};
    }
  }

  private async safeCheck(tool: string, args: unknown, options: CallOptions & { origins: Record<string, string> }, inferred: Record<string, InferredOrigin>): Promise<CheckResult> {
    try {
      const check = await this.session.checkToolCall(tool, args, options);
      if (check.decision === "allow" && check.step >= 0) {
        this.allowed.set(check.step, tool);
        trim(this.allowed, this.limit);
        this.inputs.note(check.step, args, inferred); // by the origins' labels too (call-inputs.ts)
      }
      this.mirror?.own(this.session.history.entries, check.step, { kind: "check", tool, decision: check.decision, origins: options.origins });
      return check;
    } catch (err) {
      // with the error's stable code and hint (LicenceRequired names the command that fixes it), as the gateway says it
      return faultCheck(err);
    }
  }

  /**
   * The step of the report entry, or undefined when it could not be recorded. With `withResult`,
   * a result the session does not take as JSON data (an `InputError`) answers "not data", and the
   * caller reports again without it.
   */
  private async report(step: number, outcome: Outcome, result?: unknown, withResult = false): Promise<number | "not data" | undefined> {
    try {
      return (await this.session.report(step, outcome, result)).step;
    } catch (err) {
      if (withResult && err instanceof StalwartError && err.code === "InputError") return "not data";
      this.log(`the report of step ${step} (${outcome}) could not be recorded: ${message(err)}`);
      return undefined;
    }
  }

  log(line: string): void {
    try {
      const r: unknown = this.options.log?.(line);
      if (isThenable(r)) r.then(undefined, () => undefined);
    } catch {
      /* a host's logger never breaks the loop */
    }
  }
}

const REJECTED = "a person rejected this call, and an approval sent for it later runs nothing";

/** `tool`'s namespace in words, for a refusal ("" for none). */
function inNamespace(namespace: string | undefined): string {
  return namespace === undefined ? " outside any namespace" : ` in namespace \`${nameText(namespace)}\``;
}
