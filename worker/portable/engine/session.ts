/**
 * A session: one conversation's turns and checks (interfaces.md, "SDK"), in-process. Runtime-
 * agnostic: the Node SDK and the check worker both drive this class. It answers one operation at
 * a time only when its caller waits for each (the SDK wraps it in serial-session.ts; the worker
 * makes one per request).
 *
 * The signed history is history/signed.ts; the check's steps are check/; the answer is
 * assembled in check/answer.ts. What is left here is the order of one operation.
 */
import type { CompiledCatalogue, Language } from "./catalogue/types.js";
import type { CallOptions, Call, CheckFacts, CheckResult, Verdict } from "./check/types.js";
import type { Engine } from "./engine.js";
import { after, runSteps, STEPS, type NamedStep } from "./check/orchestrator.js";
import { assemble, resultOf } from "./check/answer.js";
import { settleLimits } from "./check/steps/limits.js";
import { canonicalize } from "./canonical/jcs.js";
import { randomBytes, toHex } from "./canonical/bytes.js";
import { OUTCOMES, type Entry, type Outcome, type ReportEntry, type TurnEntry } from "./history/entry.js";
import { SignedHistory, type Head, type KnownPrefix, type Verified } from "./history/signed.js";
import { changeOfCheck, changeOfReport, NOTHING_KEPT, type KeptChange, type KeptState } from "./state/changes.js";
import { HistoryIndex } from "./history/index.js";
import { TurnIndex } from "./origins/typed.js";
import { openToken, sealToken } from "./tokens/confirmation.js";
import { propagatedLabels } from "./origins/labels.js";
import { fromResults, joinedResults } from "./conditions/read.js";
import { addLabels, normaliseCall } from "./check/normalise.js";
import { filterResult, planFollow, planUndo, judgeOutcome, type FollowPlan, type Judged, type UndoPlan } from "./plans.js";
import type { FilterOutcome } from "./conditions/filter.js";
import type { CompiledRulebook } from "./rulebook/types.js";
import { InputError, StalwartError } from "./errors.js";
import { LATER, laterReport, storeRefusal, supersededWhy, UNKEPT } from "./session-rules.js";
import { receiptEntry } from "./approvals/history.js";
import { lastLinkOf, readSaved, sameMac, sealHead, sealHeader, type SavedSession, type SessionHeader } from "./saved-session.js";

export type { SavedSession } from "./saved-session.js";
export type { KnownPrefix } from "./history/signed.js";

export interface SessionOptions {
  language?: Language;
  context?: Record<string, unknown>;
  agent?: string;
  /** steps 2–13 to run (default: all of checks.md) */
  steps?: readonly NamedStep[];
  /** `model` arguments written after anything untrusted was read carry its label (checks.md) */
  taintModelAfterUntrusted?: boolean;
  /** the compiled rulebook step 8 reads */
  rulebook?: CompiledRulebook;
}

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
  private readonly taintModelAfterUntrusted: boolean;
  private readonly rulebook?: CompiledRulebook;

  constructor(engine: Engine, name: string, catalogue: CompiledCatalogue, opts: SessionOptions = {}, id?: string) {
    if (typeof name !== "string" || name.length === 0 || name.length > 200) throw new InputError("a session needs a name of 1–200 characters");
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
    this.context = Object.freeze(JSON.parse(canonicalize(opts.context ?? {})));
    this.steps = opts.steps ?? STEPS;
    this.id = id ?? toHex(randomBytes(16));
    this.signed = new SignedHistory(engine.chain, this.id, catalogue, language);
    this.taintModelAfterUntrusted = opts.taintModelAfterUntrusted === true;
    if (opts.rulebook) this.rulebook = opts.rulebook;
  }

  /** The history the caller carries: plain objects; editing one is detected at the next check. */
  get history(): { entries: Entry[] } {
    const signed = this.signed;
    return {
      get entries() {
        return signed.view;
      },
      set entries(value: Entry[]) {
        signed.view = value;
      },
    };
  }

  /** A person's turn, recorded in the history (an invalid or superseded one starts anew). */
  async read(text: string): Promise<{ step: number }> {
    if (typeof text !== "string") throw new InputError("a turn must be a string", "/text");
    const now = this.nowMs();
    const kept = this.engine.state ? await this.keptState() : UNKEPT;
    if ("error" in kept) throw kept.error;
    let expect: Head | "restart" = this.signed.head;
    if (!this.verifiedAgainst(kept.head).ok) {
      this.signed.restart();
      expect = "restart";
    }
    const entry = this.signed.seal<TurnEntry>({ v: 1, step: 0, at: now, kind: "turn", text, link: "" });
    if (this.engine.state && !(await this.commit(expect, entry, { spend: [], tally: {} })).ok) {
      // Another answer moved this session on meanwhile: the turn starts a new history.
      this.signed.restart();
      const again = this.signed.seal<TurnEntry>({ v: 1, step: 0, at: now, kind: "turn", text, link: "" });
      await this.commit("restart", again, { spend: [], tally: {} });
      this.signed.push(again);
      return { step: again.step };
    }
    this.signed.push(entry);
    return { step: entry.step };
  }

  /** Check a tool call before it runs. Never throws for a bad call: it refuses with a reason. */
  async checkToolCall(tool: string, args: unknown, options: CallOptions = {}): Promise<CheckResult> {
    const now = this.nowMs();
    const kept = this.engine.state ? await this.keptState() : UNKEPT;
    const verified = "error" in kept ? this.signed.verify() : this.verifiedAgainst(kept.head);
    const index = verified.ok ? this.signed.index : new HistoryIndex(this.catalogue, []);
    const facts: CheckFacts = {
      catalogue: this.catalogue,
      history: verified.ok ? this.signed.entries : [],
      sessionId: this.id,
      turns: verified.ok ? this.signed.turns : new TurnIndex(this.language),
      context: this.context,
      now,
      openToken: (t) => openToken(this.macFn, t),
      index,
      from: joinedResults(
        (t) => index.lastResult.get(t),
        (t, arg, value) => index.resultWhere(t, arg, valueDigest(this.engine, value)),
      ),
      valueDigest: (v) => valueDigest(this.engine, v),
      taintModelAfterUntrusted: this.taintModelAfterUntrusted,
      kept: "error" in kept ? NOTHING_KEPT : kept,
      ...(verified.ok ? {} : { historyInvalid: verified.why }),
      ...(this.rulebook ? { rulebook: this.rulebook } : {}),
    };
    const licence = this.engine.licence();
    if (licence) facts.licence = licence;

    const call = normaliseCall(tool, args, options, this.agent, (s) => this.engine.sha256Hex(s));
    if (verified.ok && !call.argsError) addLabels(call, propagatedLabels(call, facts));
    const answer = runSteps(call, facts, this.steps);
    const expect: Head | "restart" = verified.ok ? this.signed.head : "restart";
    if (!verified.ok) this.signed.restart();
    const extra = this.rulebook ? { rulebook: this.rulebook.digest } : {};
    const values = () => this.valueDigests(call);
    let verdict = "error" in kept ? storeRefusal(kept.error, answer.counters) : answer.verdict;
    let a = assemble(call, answer, verdict, now, values, extra);
    let entry = this.signed.seal(a.entry);
    let reserved = false;
    if (answer.tool && answer.counters.length > 0 && after(answer.at, "limits") && !("error" in kept)) {
      // The reservation is named by the entry that takes it: its link, never reused.
      const settled = await settleLimits(this.engine.counters, answer.counters, verdict, answer.tool, entry.link, now);
      reserved = settled === verdict && verdict.kind === "allow";
      if (settled !== verdict) {
        verdict = settled;
        a = assemble(call, answer, verdict, now, values, extra);
        entry = this.signed.seal(a.entry);
      }
    }
    if (this.engine.state && !("error" in kept)) {
      const committed = await this.commit(expect, entry, changeOfCheck(entry, this.signed.entries, this.catalogue));
      if (!committed.ok) {
        // Another answer of this session came first (a second copy sent in parallel, a fork):
        // this one is answered `history_invalid` and starts a new history, holding nothing.
        if (reserved) await this.releaseQuietly(entry.link, now);
        this.signed.restart();
        verdict = { kind: "refuse", reason: "history_invalid", detail: { why: committed.why } };
        a = assemble(call, { verdict, at: answer.at, counters: [], notes: {} }, verdict, now, values, extra);
        entry = this.signed.seal(a.entry);
        await this.commit("restart", entry, { spend: [], tally: {} });
      }
    }
    this.signed.push(entry);
    const token = a.decision === "confirm"
      ? sealToken(this.macFn, { tool: call.tool, agent: call.agent, digest: call.digest, session: this.id, ask: entry.step, exp: now + this.catalogue.settings.confirmationTtlMs })
      : undefined;
    return resultOf(a, entry.step, token);
  }

  /** The caller's report of what happened to a checked call (`failed` releases its counters). */
  async report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    const now = this.nowMs();
    if (!OUTCOMES.includes(outcome)) throw new InputError(`outcome \`${String(outcome)}\` is not one of ${OUTCOMES.join(", ")}`, "/outcome");
    const kept = this.engine.state ? await this.keptState() : UNKEPT;
    if ("error" in kept) throw kept.error;
    const checked = this.checkedEntry(step, kept.head);
    const before = this.signed.index.lastReport.get(step)?.outcome;
    if (before !== undefined && before !== outcome && !laterReport(before, outcome)) {
      throw new InputError(`step ${step} was reported \`${before}\`; a report is final but for what comes to be known later (after \`${before}\`: ${LATER[before].map((o) => `\`${o}\``).join(", ") || "nothing"})`, "/outcome");
    }
    const tool = this.catalogue.tools.get(checked.tool);
    let keptResult: unknown = null;
    if (result !== undefined && tool) {
      canonicalize(result); // throws InputError naming the pointer when it is not JSON data
      keptResult = tool.keepDeclared(result) ?? null;
    }
    const entry = this.signed.seal<ReportEntry>({ v: 1, step: 0, at: now, kind: "report", of: step, outcome, result: keptResult, link: "" });
    if (this.engine.state) {
      const committed = await this.commit(this.signed.head, entry, changeOfReport(checked, outcome, before, this.signed.entries));
      if (!committed.ok) throw new StalwartError("HistoryInvalid", `the history does not verify (${committed.why}); the next check starts a new one`);
    }
    const counters = this.engine.counters;
    if (counters && checked.decision === "allow") {
      // Only its own entry's reservation: released by `failed`, counted again by a later `ran`.
      if (outcome === "failed" && before !== "failed") await counters.release(checked.link, now);
      if (outcome === "ran" && before === "failed") await counters.recount?.(checked.link, now);
    }
    this.signed.push(entry);
    return { step: entry.step };
  }

  /** A person's signed decision on a confirmation of this history, recorded (approvals/history.ts). */
  async receipt(signed: unknown): Promise<{ step: number }> {
    const kept = this.engine.state ? await this.keptState() : UNKEPT;
    if ("error" in kept) throw kept.error;
    if (!this.verifiedAgainst(kept.head).ok) throw new StalwartError("HistoryInvalid", "the history does not verify, or is not this session's newest; the receipt is not recorded");
    const entry = this.signed.seal(receiptEntry(this.macFn, signed, this.id, this.signed.entries, this.nowMs()));
    if (this.engine.state && !(await this.commit(this.signed.head, entry, { spend: [], tally: {} })).ok) throw new StalwartError("HistoryInvalid", "another answer of this session came first; the receipt is not recorded");
    this.signed.push(entry);
    return { step: entry.step };
  }
  /** The records a read's `filter` passes on (the whole result when the tool has none). */
  async filter(step: number, result: unknown): Promise<FilterOutcome> {
    const checked = this.checkedEntry(step);
    const tool = this.catalogue.tools.get(checked.tool);
    if (checked.decision !== "allow" || !tool) throw new InputError(`step ${String(step)} is not an allowed call in this history`, "/step");
    canonicalize(result);
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
    const header = this.header();
    // Handing out our own entries (never edited) spares a serialising caller a copy of each.
    const entries = (copy === false ? this.signed.serialisable : structuredClone(this.signed.viewTarget)) as Entry[];
    const seal = sealHeader(this.macFn, header);
    return { ...header, entries, seal, head: sealHead(this.macFn, seal, entries) };
  }

  /**
   * Continue a saved session. A changed header (name, language, agent, context, catalogue) is a
   * typed error; changed entries, or entries cut off or added, fail step 2 at the next check.
   */
  static resume(engine: Engine, catalogue: CompiledCatalogue, saved: unknown, opts: { steps?: readonly NamedStep[]; rulebook?: CompiledRulebook; known?: KnownPrefix } = {}): Session {
    const { header, entries, seal, head } = readSaved(saved);
    const session = Session.fromHeader(engine, catalogue, header, opts);
    const list = Array.isArray(entries) ? (entries as Entry[]) : [];
    session.signed.carry(list);
    if (!sameMac(sealHeader(session.macFn, header), seal)) {
      throw new StalwartError("SessionSealInvalid", "the saved session's header was changed (its name, language, agent, context or catalogue), or it was sealed by another installation or tenant");
    }
    if (header.rulebook !== (opts.rulebook?.digest ?? null)) {
      throw new StalwartError("RulebookMismatch", header.rulebook ? `the saved session was checked with rulebook ${header.rulebook.slice(0, 12)}…; resume it with that rulebook` : "the saved session was started without a rulebook; resume it without one");
    }
    if (header.catalogue !== catalogue.digest) {
      throw new StalwartError("CatalogueMismatch", `the saved session was checked against catalogue ${header.catalogue.slice(0, 12)}…, not this one (${catalogue.digest.slice(0, 12)}…)`);
    }
    const last = lastLinkOf(list);
    if (!Array.isArray(entries) || !last || !sameMac(sealHead(session.macFn, seal, list), head)) {
      // Entries cut off, added or unreadable: the next check refuses `history_invalid`.
      session.signed.markBroken("the history is not the one this session signed (entries cut off, added or unreadable)");
      return session;
    }
    // The head seal covers the count and the last link, so these are what we signed.
    session.signed.trustHead(list.length, last);
    // A prefix this engine verified before (the worker's cache): only what follows it is verified.
    if (opts.known) session.signed.carry(list, opts.known);
    return session;
  }

  /**
   * What this session's history has verified, to hand to a later `resume` of a copy of it (by the
   * same engine: the prefix is trusted as verified under its key); null while it cannot say.
   */
  verifiedPrefix(): KnownPrefix | null {
    return this.signed.verifiedPrefix();
  }

  /**
   * A session whose saved form cannot be trusted (e.g. sealed by another key): it keeps the id it
   * claims, and its next check refuses `history_invalid` and starts a new history.
   */
  static untrusted(engine: Engine, catalogue: CompiledCatalogue, saved: unknown, why: string, opts: { steps?: readonly NamedStep[]; rulebook?: CompiledRulebook } = {}): Session {
    const { header, entries } = readSaved(saved);
    const session = Session.fromHeader(engine, catalogue, header, opts);
    session.signed.carry(Array.isArray(entries) ? (entries as Entry[]) : []);
    session.signed.markBroken(why);
    return session;
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

  /** What the runtime keeps for this session, or the typed error of a store that cannot say. */
  private async keptState(): Promise<(KeptState & { head: Head | null }) | { error: StalwartError }> {
    const store = this.engine.state;
    if (!store) return { ...NOTHING_KEPT, head: null };
    try {
      const s = await store.load(this.id);
      return { spent: s.spent, tallies: s.tallies, head: s.head };
    } catch (err) {
      return { error: err instanceof StalwartError ? err : new StalwartError("SessionStateUnreadable", `the session store could not be read (${(err as Error)?.message ?? String(err)})`) };
    }
  }

  /** The history verifies, and is the newest this runtime answered for the session. */
  private verifiedAgainst(stored: Head | null): Verified {
    const v = this.signed.verify();
    if (!v.ok || !this.engine.state) return v;
    const mine = this.signed.head;
    if (stored === null ? mine.count === 0 : stored.count === mine.count && stored.link === mine.link) return v;
    return { ok: false, why: supersededWhy(stored, mine) };
  }

  /** Record the head `entry` makes, with what the answer spends and tallies. */
  private async commit(expect: Head | "restart", entry: Entry, change: KeptChange): Promise<{ ok: true } | { ok: false; why: string }> {
    const store = this.engine.state;
    if (!store) return { ok: true };
    const c = await store.commit(this.id, { expect, next: SignedHistory.headAfter(entry), spend: change.spend, tally: change.tally });
    if (c.ok) return c;
    return { ok: false, why: c.why === "head" ? supersededWhy(c.head, expect === "restart" ? { count: 0, link: "" } : expect) : `\`${c.name}\` was spent already, by another copy of this session` };
  }

  private async releaseQuietly(reservation: string, now: number): Promise<void> {
    try {
      await this.engine.counters?.release(reservation, now);
    } catch {
      // Kept counted: the safe direction for a ceiling.
    }
  }

  /** The check entry at `step` of a verified, newest history, or a typed error. */
  private checkedEntry(step: number, stored?: Head | null) {
    const verified = stored === undefined ? this.signed.verify() : this.verifiedAgainst(stored);
    if (!verified.ok) throw new StalwartError("HistoryInvalid", `the history does not verify (${verified.why}); the next check starts a new one`);
    const checked = Number.isSafeInteger(step) ? this.signed.entries[step] : undefined;
    if (!checked || checked.kind !== "check") throw new InputError(`step ${String(step)} is not a checked call in this history`, "/step");
    return checked;
  }

  /** Per-argument digests, kept for calls an undo may later be bound to (step 6). */
  private valueDigests(call: Call): Record<string, string> {
    const out: Record<string, string> = {};
    const parts = call.argParts ?? {};
    for (const k of Object.keys(call.args)) {
      const part = Object.hasOwn(parts, k) ? parts[k] : undefined;
      out[k] = part !== undefined ? this.engine.sha256Hex(part).slice(0, 32) : valueDigest(this.engine, call.args[k]);
    }
    return out;
  }

  private readonly macFn = (text: string) => this.engine.macText(text);

  private nowMs(): number {
    const t = this.engine.now().getTime();
    if (!Number.isFinite(t)) throw new StalwartError("ClockUnreadable", "the clock gave an invalid date");
    return t;
  }
}

/** 128 bits of SHA-256 over the canonical value: enough to bind, short enough to carry. */
export function valueDigest(engine: Engine, value: unknown): string {
  return engine.sha256Hex(canonicalize(value)).slice(0, 32);
}
