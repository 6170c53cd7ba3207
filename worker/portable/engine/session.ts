/**
 * A session: one conversation's turns and checks (interfaces.md, "SDK"), in-process. Runtime-
 * agnostic: the Node SDK and the check worker both drive this class. It answers one operation at
 * a time only when its caller waits for each (the SDK wraps it in serial-session.ts; the worker
 * makes one per request).
 *
 * The signed history is history/signed.ts, handed back from a saved session by saved-session.ts;
 * what the runtime keeps for the session is session-record.ts; what a check reads is
 * session-facts.ts; the check's steps are check/; the answer is assembled in check/answer.ts.
 * What is left here is the order of one operation.
 */
import type { CompiledCatalogue, Language } from "./catalogue/types.js";
import type { Call, CallOptions, CheckResult } from "./check/types.js";
import type { Engine } from "./engine.js";
import { after, runSteps, STEPS, type NamedStep } from "./check/orchestrator.js";
import { assemble, resultOf } from "./check/answer.js";
import { settleLimits } from "./check/steps/limits.js";
import { canonicalizeAt, checkJsonAt } from "./canonical/jcs.js";
import { randomBytes, toHex } from "./canonical/bytes.js";
import { OUTCOMES, type Entry, type Outcome, type ReportEntry, type TurnEntry } from "./history/entry.js";
import { SignedHistory, type Head, type KnownPrefix } from "./history/signed.js";
import { CallerHistory } from "./history/caller-history.js";
import { ViewFollower, type FollowedView } from "./origins/follow.js";
import { TurnIndex } from "./origins/typed.js";
import { changeOfCheck, changeOfReport, withTallies } from "./state/changes.js";
import { sealToken } from "./tokens/confirmation.js";
import { propagatedLabels } from "./origins/labels.js";
import { fromResults } from "./conditions/read.js";
import { addLabels, normaliseCall } from "./check/normalise.js";
import { filterResult, planFollow, planUndo, judgeOutcome, type FollowPlan, type Judged, type UndoPlan } from "./plans.js";
import type { FilterOutcome } from "./conditions/filter.js";
import type { CompiledRulebook } from "./rulebook/types.js";
import { InputError, StalwartError } from "./errors.js";
import { LATER, laterReport, notBefore, notBeforeKept, refuseTurnIfLapsed, storeRefusal, UNKEPT } from "./session-rules.js";
import { receiptEntry } from "./approvals/history.js";
import { headerSeal, readSaved, restoreSaved, savedOf, savedPartsOf, type SavedParts, type SavedSession, type SealedHeader, type SessionHeader } from "./saved-session.js";
import { SessionRecord, type Committed, type Kept } from "./session-record.js";
import { checkFacts, sessionReaders, valueDigests, type FactsOf } from "./session-facts.js";

export type { SavedSession, SealedHeader } from "./saved-session.js";
export type { KnownPrefix } from "./history/signed.js";
export type { EngineSessionOptions, ReadAnswer } from "./session-options.js";
import type { EngineSessionOptions, ReadAnswer } from "./session-options.js";

const LANGUAGES: readonly Language[] = ["en", "pt-BR"];

export class Session {
  readonly id: string;
  readonly name: string;
  readonly language: Language;
  readonly agent: string | null;
  readonly context: Readonly<Record<string, unknown>>;
  readonly catalogue: CompiledCatalogue;
  private readonly engine: Engine;
  private readonly steps: readonly NamedStep[];
  private readonly signed: SignedHistory;
  private readonly record: SessionRecord;
  /** what every check of this session reads besides the state of its history */
  private readonly fixed: FactsOf;
  private readonly taintModelAfterUntrusted: boolean;
  private readonly rulebook?: CompiledRulebook;

  constructor(engine: Engine, name: string, catalogue: CompiledCatalogue, opts: EngineSessionOptions = {}, id?: string) {
    if (typeof name !== "string" || name.length === 0 || name.length > 200) throw new InputError("a session needs a name of 1–200 characters", "/name");
    const language = opts.language ?? catalogue.settings.language ?? "en";
    if (!LANGUAGES.includes(language)) throw new InputError(`language \`${String(language)}\` is not one of ${LANGUAGES.join(", ")}`, "/language", "the language is chosen, never guessed: en or pt-BR");
    if (opts.context !== undefined && (typeof opts.context !== "object" || opts.context === null || Array.isArray(opts.context))) {
      throw new InputError("`context` must be an object of values", "/context");
    }
    this.engine = engine;
    this.name = name;
    this.catalogue = catalogue;
    this.language = language;
    this.agent = opts.agent ?? null;
    this.context = Object.freeze(JSON.parse(canonicalizeAt(opts.context ?? {}, "context")));
    this.steps = opts.steps ?? STEPS;
    this.id = id ?? toHex(randomBytes(16));
    this.signed = new SignedHistory(engine.chain, this.id, catalogue, language);
    this.record = new SessionRecord(engine, this.id, this.signed, catalogue);
    this.taintModelAfterUntrusted = opts.taintModelAfterUntrusted === true;
    if (opts.rulebook) this.rulebook = opts.rulebook;
    this.fixed = {
      id: this.id, engine, catalogue, language, context: this.context, signed: this.signed, mac: this.macFn,
      taintModelAfterUntrusted: this.taintModelAfterUntrusted, rulebook: this.rulebook, ...sessionReaders(engine, this.macBytesFn),
    };
  }

  /** The history the caller carries: plain objects; editing one is detected at the next check. */
  get history(): { entries: Entry[] } {
    return (this.historyView ??= new CallerHistory(() => this.signed));
  }
  private historyView: CallerHistory | undefined;

  /**
   * The inference view of this session's own entries (origins/follow.ts), kept up to date as the
   * history grows, for an adapter inferring origins; empty while the history does not verify.
   */
  inferenceView(): FollowedView {
    this.follower ??= new ViewFollower(this.catalogue, this.context);
    if (!this.signed.verify().ok) return new ViewFollower(this.catalogue, this.context).view([], this.signed.index, new TurnIndex(this.language));
    return this.follower.view(this.signed.entries, this.signed.index, this.signed.turns);
  }
  private follower: ViewFollower | undefined;

  /**
   * A person's turn, recorded in the history. An invalid or superseded history starts anew with
   * it, and the answer says so (`restarted.why`, as a check's `history_invalid` would): the turn is
   * step 0 of a new history, and nothing of the old one counts as said.
   */
  async read(text: string): Promise<ReadAnswer> {
    if (typeof text !== "string") throw new InputError("a turn must be a string", "/text");
    refuseTurnIfLapsed(this.engine.licence(), this.catalogue.settings.onLicenceLapse);
    const now = this.nowMs();
    const kept = this.engine.state ? await this.record.load() : UNKEPT;
    if ("error" in kept) throw kept.error;
    let expect: Head | "restart" = this.signed.head;
    let at = notBeforeKept(kept, now);
    const verified = this.record.verifiedAgainst(kept.head);
    const carried = verified.ok ? {} : this.record.carried(kept); // read before the restart drops it
    let restarted: { why: string } | undefined;
    if (!verified.ok) {
      restarted = { why: verified.why };
      this.signed.restart();
      expect = "restart";
    } else at = notBefore(this.signed.entries, at);
    const entry = this.signed.seal<TurnEntry>({ v: 1, step: 0, at, kind: "turn", text, link: "" });
    if (this.engine.state && !(await this.record.commit(expect, entry, { spend: [], tally: carried })).ok) {
      // Another answer moved this session on meanwhile: the turn starts a new history.
      this.signed.restart();
      const again = this.signed.seal<TurnEntry>({ v: 1, step: 0, at: notBeforeKept(kept, now), kind: "turn", text, link: "" });
      await this.record.commit("restart", again, { spend: [], tally: {} });
      this.signed.push(again);
      return { step: again.step, restarted: { why: "another answer of this session came first (an older copy, or one sent in parallel)" } };
    }
    this.signed.push(entry);
    return restarted ? { step: entry.step, restarted } : { step: entry.step };
  }

  /** Check a tool call before it runs. Never throws for a bad call: it refuses with a reason. */
  checkToolCall(tool: string, args: unknown, options: CallOptions = {}): Promise<CheckResult> {
    // Without a state store there is one pass on nothing kept: no async layer around it (~0.3 µs
    // of the in-process write check). A clock that throws still rejects, as an async function would.
    if (!this.engine.state) {
      try {
        return this.decide(tool, args, options, this.nowMs(), UNKEPT, false) as Promise<CheckResult>;
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.checkStored(tool, args, options);
  }

  private async checkStored(tool: string, args: unknown, options: CallOptions): Promise<CheckResult> {
    const now = this.nowMs();
    // First on what this runtime's own last commit of the session left, when this history is that one
    // (no store read): its commit proves the state held; if it did not, the check is made on a load.
    const own = this.record.own();
    if (own && !("error" in own) && this.record.verifiedAgainst(own.head).ok) {
      const answered = await this.decide(tool, args, options, now, own, true);
      if (answered) return answered;
    }
    return (await this.decide(tool, args, options, now, await this.record.load(), false))!;
  }

  /** A check decided on `kept`; undefined when that was `own` state and the call is counted, or the commit did not find it still held. */
  private async decide(tool: string, args: unknown, options: CallOptions, now: number, kept: Kept, own: boolean): Promise<CheckResult | undefined> {
    const verified = "error" in kept ? this.signed.verify() : this.record.verifiedAgainst(kept.head);
    now = notBeforeKept(kept, now);
    if (verified.ok) now = notBefore(this.signed.entries, now);
    const facts = checkFacts(this.fixed, verified, kept, now);

    const call = normaliseCall(tool, args, options, this.agent, this.shaHex);
    if (verified.ok && !call.argsError) addLabels(call, propagatedLabels(call, facts));
    const answer = runSteps(call, facts, this.steps);
    const expect: Head | "restart" = verified.ok ? this.signed.head : "restart";
    const carried = verified.ok ? undefined : this.record.carried(kept); // before the restart drops it
    if (!verified.ok) this.signed.restart();
    const extra = this.extra;
    const values = this.valuesOf;
    // A store that cannot say what it keeps refuses what the steps did not: a refusal made on nothing
    // kept stands (kept state only ever adds refusals), and says more than the store's error.
    let verdict = "error" in kept && answer.verdict.kind !== "refuse" ? storeRefusal(kept.error, answer.counters) : answer.verdict;
    let a = assemble(call, answer, verdict, now, values, extra);
    let entry = this.signed.seal(a.entry);
    let reserved = false;
    if (answer.tool && answer.counters.length > 0 && !after("limits", answer.at) && !("error" in kept)) {
      // Counted calls are decided on a load: a reservation is named by the head its entry extends,
      // so a pass done again would find its own released reservation's name taken.
      if (own) return undefined;
      const settled = await settleLimits(this.engine.counters, answer.counters, verdict, answer.tool, this.record.reservation(entry.step), now);
      if (settled.kind === "refuse" && settled.reason === "history_invalid") {
        // Another copy is answering this very entry and may yet win the head: this one writes
        // nothing (a restart committed now would replace the head under the winner's commit).
        this.signed.restart();
        a = assemble(call, { verdict: settled, at: answer.at, counters: [], notes: {} }, settled, now, values, extra);
        entry = this.signed.seal(a.entry);
        this.signed.push(entry);
        return resultOf(a, entry.step, undefined);
      }
      reserved = settled === verdict && verdict.kind === "allow";
      if (settled !== verdict) {
        verdict = settled;
        a = assemble(call, answer, verdict, now, values, extra);
        entry = this.signed.seal(a.entry);
      }
    }
    if (this.engine.state && !("error" in kept)) {
      let committed: Committed;
      try {
        committed = await this.record.commit(expect, entry, withTallies(changeOfCheck(entry, this.signed.entries, this.catalogue), carried), own);
      } catch (err) {
        // A store that cannot say: the pass on a load answers as it does (a damaged store's refusal).
        if (!own) throw err;
        committed = { ok: false, why: "", moved: true };
      }
      if (!committed.ok) {
        if (own) return undefined; // it reserved nothing (above)
        if (reserved) await this.record.releaseQuietly(this.record.reservation(entry.step), now);
        // Another answer of this session came first (a second copy sent in parallel, a fork):
        // this one is answered `history_invalid` and starts a new history, holding nothing.
        this.signed.restart();
        verdict = { kind: "refuse", reason: "history_invalid", detail: { why: committed.why } };
        a = assemble(call, { verdict, at: answer.at, counters: [], notes: {} }, verdict, now, values, extra);
        entry = this.signed.seal(a.entry);
        await this.record.commit("restart", entry, { spend: [], tally: {} });
      }
    }
    this.signed.push(entry);
    const token = a.decision === "confirm"
      ? sealToken(this.macBytesFn, { tool: call.tool, agent: call.agent, digest: call.digest, session: this.id, ask: entry.step, exp: now + this.catalogue.settings.confirmationTtlMs })
      : undefined;
    return resultOf(a, entry.step, token);
  }

  /** The caller's report of what happened to a checked call (`failed` releases its counters). */
  async report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    const clock = this.nowMs();
    if (!OUTCOMES.includes(outcome)) throw new InputError(`outcome \`${String(outcome)}\` is not one of ${OUTCOMES.join(", ")}`, "/outcome");
    // No load first: the commit below is a compare-and-set on this history's head, so a fork or an
    // older copy is refused there, as a load compared first would: one store operation, not two.
    const checked = this.checkedEntry(step);
    const now = notBefore(this.signed.entries, clock);
    const before = this.signed.index.lastReport.get(step)?.outcome;
    if (before !== undefined && before !== outcome && !laterReport(before, outcome)) {
      throw new InputError(`step ${step} was reported \`${before}\`; a report is final but for what comes to be known later (after \`${before}\`: ${LATER[before].map((o) => `\`${o}\``).join(", ") || "nothing"})`, "/outcome");
    }
    const tool = this.catalogue.tools.get(checked.tool);
    let keptResult: unknown = null;
    if (result !== undefined && tool) {
      try {
        checkJsonAt(result, "result"); // throws InputError naming the pointer when it is not JSON data
        keptResult = tool.keepDeclared(result) ?? null;
      } catch (err) {
        // a getter or a proxy that throws: the host's value, unreadable — a typed error, not its own
        if (err instanceof StalwartError) throw err;
        throw new InputError(`the result cannot be read: ${err instanceof Error ? err.message : String(err)}`, "/result");
      }
    }
    const entry = this.signed.seal<ReportEntry>({ v: 1, step: 0, at: now, kind: "report", of: step, outcome, result: keptResult, link: "" });
    if (this.engine.state) {
      const committed = await this.record.commit(this.signed.head, entry, changeOfReport(checked, outcome, before, this.signed.entries));
      if (!committed.ok) throw new StalwartError("HistoryInvalid", `the history does not verify (${committed.why}); the next check starts a new one`);
    }
    const counters = this.engine.counters;
    if (counters && checked.decision === "allow") {
      // Only its own entry's reservation: released by `failed`, counted again by a later `ran`.
      if (outcome === "failed" && before !== "failed") await counters.release(this.record.reservation(checked.step), now);
      if (outcome === "ran" && before === "failed") await counters.recount?.(this.record.reservation(checked.step), now);
    }
    this.signed.push(entry);
    return { step: entry.step };
  }

  /** A person's signed decision on a confirmation of this history, recorded (approvals/history.ts). */
  async receipt(signed: unknown): Promise<{ step: number }> {
    const kept = this.engine.state ? await this.record.load() : UNKEPT;
    if ("error" in kept) throw kept.error;
    if (!this.record.verifiedAgainst(kept.head).ok) throw new StalwartError("HistoryInvalid", "the history does not verify, or is not this session's newest; the receipt is not recorded");
    const entry = this.signed.seal(receiptEntry(this.macFn, this.macBytesFn, signed, this.id, this.signed.entries, notBefore(this.signed.entries, this.nowMs()), this.catalogue.settings.confirmationTtlMs));
    if (this.engine.state && !(await this.record.commit(this.signed.head, entry, { spend: [], tally: {} })).ok) throw new StalwartError("HistoryInvalid", "another answer of this session came first; the receipt is not recorded");
    this.signed.push(entry);
    return { step: entry.step };
  }
  /** The records a read's `filter` passes on (the whole result when the tool has none). */
  async filter(step: number, result: unknown): Promise<FilterOutcome> {
    const checked = this.checkedEntry(step);
    const tool = this.catalogue.tools.get(checked.tool);
    if (checked.decision !== "allow" || !tool) throw new InputError(`step ${String(step)} is not an allowed call in this history`, "/step");
    checkJsonAt(result, "result");
    return filterResult(tool, result, fromResults((t) => this.signed.index.lastResult.get(t)));
  }

  /** The declared undo of `tool` with arguments bound from the call it undoes (for rollback). */
  planUndo(tool: string, args: Record<string, unknown>, result: unknown): UndoPlan | null {
    return planUndo(this.catalogue, tool, args, result);
  }

  planFollow(tool: string, step: number, args: Record<string, unknown>, result: unknown): FollowPlan | null {
    return planFollow(this.catalogue, tool, step, args, result);
  }

  judgeOutcome(tool: string, followResult: unknown): Judged {
    // `{from}` in done_when reads verified results only.
    if (!this.signed.verify().ok) return "pending";
    return judgeOutcome(this.catalogue, tool, followResult, fromResults((t) => this.signed.index.lastResult.get(t)));
  }

  /** The engine's clock, for callers that wait (outcome following). */
  now(): Date {
    return this.engine.now();
  }

  /**
   * The session to persist (and `resume` later). A copy, so later edits on either side stay apart;
   * `copy: false` hands out the engine's own entries, for a caller that only serialises them (the
   * worker's response).
   */
  toJSON(copy: boolean | string = true): SavedSession {
    // Handing out our own entries (never edited) spares a serialising caller a copy of each.
    const entries = (copy === false ? this.signed.serialisable : structuredClone(this.signed.viewTarget)) as Entry[];
    const header = this.header();
    // Every field of the header is fixed when the session is made: its seal is made once.
    this.sealOfHeader ??= headerSeal(this.macFn, header);
    return savedOf(this.macFn, header, entries, this.sealOfHeader);
  }

  /** `toJSON(false)` in its parts, for a caller that writes the JSON itself (the worker's answer): no object spread over them. */
  savedParts(): SavedParts {
    const header = this.header();
    this.sealOfHeader ??= headerSeal(this.macFn, header);
    return savedPartsOf(this.macFn, header, this.signed.serialisable as Entry[], this.sealOfHeader);
  }
  private sealOfHeader: string | undefined;

  /**
   * Continue a saved session. A changed header (name, language, agent, context, catalogue) is a
   * typed error; changed entries, or entries cut off or added, fail step 2 at the next check.
   */
  static resume(engine: Engine, catalogue: CompiledCatalogue, saved: unknown, opts: { steps?: readonly NamedStep[]; rulebook?: CompiledRulebook; known?: KnownPrefix; sealed?: SealedHeader; knownHead?: string } = {}): Session {
    const read = readSaved(saved);
    const session = Session.fromHeader(engine, catalogue, read.header, opts);
    const { steps: _s, rulebook, ...cached } = opts;
    const sealed = restoreSaved(session.signed, session.macFn, read, { catalogue: catalogue.digest, rulebook: rulebook?.digest ?? null, ...cached });
    // The seal just verified is the one `toJSON` would make when the session reads the header as it
    // came (the rest of it is checked equal above or copied canonically): not made again per answer.
    if (read.header.language === session.language && read.header.agent === session.agent) session.sealOfHeader = sealed;
    return session;
  }

  /**
   * What this session's history has verified, to hand to a later `resume` of a copy of it (by the
   * same engine: the prefix is trusted as verified under its key); null while it cannot say.
   */
  verifiedPrefix(): KnownPrefix | null {
    return this.signed.verifiedPrefix();
  }

  private static fromHeader(engine: Engine, catalogue: CompiledCatalogue, h: SessionHeader, opts: { steps?: readonly NamedStep[]; rulebook?: CompiledRulebook }): Session {
    return new Session(engine, h.name, catalogue, {
      language: h.language, context: h.context,
      ...(h.agent ? { agent: h.agent } : {}), ...(opts.steps ? { steps: opts.steps } : {}),
      ...(h.taint_model_after_untrusted ? { taintModelAfterUntrusted: true } : {}),
      ...(opts.rulebook ? { rulebook: opts.rulebook } : {}),
    }, h.id);
  }

  // — internals —

  private header(): SessionHeader {
    return { v: 1, id: this.id, name: this.name, language: this.language, agent: this.agent, context: { ...this.context }, catalogue: this.catalogue.digest, taint_model_after_untrusted: this.taintModelAfterUntrusted, rulebook: this.rulebook?.digest ?? null };
  }

  /** The check entry at `step` of a verified, newest history, or a typed error. */
  private checkedEntry(step: number, stored?: Head | null) {
    const verified = stored === undefined ? this.signed.verify() : this.record.verifiedAgainst(stored);
    if (!verified.ok) throw new StalwartError("HistoryInvalid", `the history does not verify (${verified.why}); the next check starts a new one`);
    const checked = Number.isSafeInteger(step) ? this.signed.entries[step] : undefined;
    if (!checked || checked.kind !== "check") throw new InputError(`step ${String(step)} is not a checked call in this history`, "/step");
    return checked;
  }

  private readonly macFn = (text: string) => this.engine.macText(text);
  private readonly macBytesFn = (data: Uint8Array) => this.engine.mac(data);
  private readonly shaHex = (text: string) => this.engine.sha256Hex(text);

  /** a check entry's value digests (made once per session, not a closure per check) */
  private readonly valuesOf = (call: Call) => valueDigests(this.engine, call);
  /** detail every answer of this session carries */
  private get extra(): Readonly<Record<string, unknown>> {
    return (this.extraDetail ??= Object.freeze(this.rulebook ? { rulebook: this.rulebook.digest } : {}));
  }
  private extraDetail: Readonly<Record<string, unknown>> | undefined;

  private nowMs(): number {
    const t = this.engine.now().getTime();
    if (!Number.isFinite(t)) throw new StalwartError("ClockUnreadable", "the clock gave an invalid date");
    return t;
  }
}
