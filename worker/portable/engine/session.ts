/**
 * A session: one conversation's history, turns and checks (interfaces.md, "SDK"). Runtime-
 * agnostic: the Node SDK and the check worker both drive this class.
 *
 * The caller carries the history; this class signs each entry (history/) and verifies only what
 * is new unless the caller touched the entries, when it verifies everything (history/watched.ts).
 */
import type { CompiledCatalogue, Language } from "./catalogue/types.js";
import type { CallOptions, Call, CheckContext, CheckResult } from "./check/types.js";
import type { Engine } from "./engine.js";
import { runSteps, STEPS, type NumberedStep } from "./check/orchestrator.js";
import { canonicalize } from "./canonical/jcs.js";
import { equalBytes, fromBase64Url, fromHex, toBase64Url, toHex, utf8 } from "./canonical/bytes.js";
import { entryCanonical, OUTCOMES, type CheckEntry, type Entry, type Outcome, type ReportEntry, type TurnEntry } from "./history/entry.js";
import { GENESIS, verifyChain } from "./history/verify.js";
import { WatchedEntries } from "./history/watched.js";
import { openToken, sealToken } from "./tokens/confirmation.js";
import { TurnIndex } from "./origins/typed.js";
import { HistoryIndex } from "./history/index.js";
import { propagatedLabels } from "./origins/labels.js";
import { fromResults } from "./conditions/read.js";
import { settleCounters } from "./counters/settle.js";
import { addLabels, normaliseCall } from "./check/normalise.js";
import { filterResult, planFollow, planUndo, judgeOutcome, type FollowPlan, type Judged, type UndoPlan } from "./plans.js";
import type { FilterOutcome } from "./conditions/filter.js";
import type { CompiledRulebook } from "./rulebook/types.js";
import { InputError, StalwartError } from "./errors.js";

export interface SessionOptions {
  language?: Language;
  context?: Record<string, unknown>;
  agent?: string;
  /** steps to run (default: all 13 of checks.md) */
  steps?: readonly NumberedStep[];
  /** `model` arguments written after anything untrusted was read carry its label (checks.md) */
  taintModelAfterUntrusted?: boolean;
  /** the compiled rulebook step 8 reads */
  rulebook?: CompiledRulebook;
}

/** What `toJSON()` gives and `resume()` takes. */
export interface SavedSession {
  v: 1;
  id: string;
  name: string;
  language: Language;
  agent: string | null;
  context: Record<string, unknown>;
  catalogue: string;
  /** session option, sealed with the rest of the header */
  taint_model_after_untrusted: boolean;
  /** the digest of the rulebook the session was started with, or null */
  rulebook: string | null;
  entries: Entry[];
  /** MAC over everything above but `entries` */
  seal: string;
  /** MAC over the seal, the number of entries and the last link: cutting entries off shows */
  head: string;
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
  private readonly steps: readonly NumberedStep[];
  private readonly sidBytes: Uint8Array;
  private readonly watched: WatchedEntries;
  private head: Uint8Array = GENESIS;
  private turns: TurnIndex;
  private index: HistoryIndex;
  private readonly taintModelAfterUntrusted: boolean;
  private readonly rulebook?: CompiledRulebook;

  constructor(engine: Engine, name: string, catalogue: CompiledCatalogue, opts: SessionOptions = {}, restored?: { id: string; entries: Entry[] }) {
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
    this.id = restored?.id ?? randomId();
    this.sidBytes = utf8(this.id);
    this.turns = new TurnIndex(language);
    this.watched = new WatchedEntries([]);
    this.index = new HistoryIndex(catalogue, this.watched.raw);
    this.taintModelAfterUntrusted = opts.taintModelAfterUntrusted === true;
    if (opts.rulebook) this.rulebook = opts.rulebook;
    if (restored) {
      this.watched.replace(restored.entries);
    }
  }

  /** The history the caller carries: plain objects; editing one is detected at the next check. */
  get history(): { entries: Entry[] } {
    const watched = this.watched;
    return {
      get entries() {
        return watched.view;
      },
      set entries(value: Entry[]) {
        watched.replace(value);
      },
    };
  }

  /** A person's turn, recorded in the history. */
  read(text: string): Promise<{ step: number }> {
    return this.serial(() => this.turn(text));
  }

  private turn(text: string): { step: number } {
    if (typeof text !== "string") throw new InputError("a turn must be a string", "/text");
    if (!this.ensureVerified().ok) this.restart();
    const entry = this.append({ v: 1, step: 0, at: this.nowMs(), kind: "turn", text, link: "" } as TurnEntry);
    this.turns.add(text);
    return { step: entry.step };
  }

  /**
   * Check a tool call before it runs. Never throws for a bad call: it refuses with a reason.
   * Calls on one session are answered one at a time, in the order they were asked: each answer
   * is a link of one history.
   */
  checkToolCall(tool: string, args: unknown, options: CallOptions = {}): Promise<CheckResult> {
    return this.serial(() => this.check(tool, args, options));
  }

  /** The caller's report of what happened to a checked call (`failed` releases its counters). */
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    return this.serial(() => this.record(step, outcome, result));
  }

  private queue: Promise<unknown> = Promise.resolve();
  private pending = 0;
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
    const done = () => void this.pending--;
    this.queue = next.then(done, done);
    return next;
  }

  private async check(tool: string, args: unknown, options: CallOptions): Promise<CheckResult> {
    const now = this.nowMs();
    const verified = this.ensureVerified();
    const index = verified.ok ? this.index : new HistoryIndex(this.catalogue, []);
    const ctx: CheckContext = {
      catalogue: this.catalogue,
      history: verified.ok ? this.watched.raw : [],
      sessionId: this.id,
      turns: verified.ok ? this.turns : new TurnIndex(this.language),
      context: this.context,
      now,
      licence: this.engine.licence(),
      openToken: (t) => openToken(this.macFn, t),
      holds: [],
      index,
      from: fromResults((t) => index.lastResult.get(t)),
      valueDigest: (v) => valueDigest(this.engine, v),
      counters: [],
      taintModelAfterUntrusted: this.taintModelAfterUntrusted,
      ...(this.rulebook ? { rulebook: this.rulebook } : {}),
    };
    if (!verified.ok) ctx.historyInvalid = verified.why;

    const call = normaliseCall(tool, args, options, this.agent, (s) => this.engine.sha256Hex(s));
    if (verified.ok && !call.argsError) addLabels(call, propagatedLabels(call, ctx));
    let answer = runSteps(call, ctx, this.steps);
    if (!verified.ok) this.restart();
    const step = this.watched.raw.length;
    if (answer.at > 7 && ctx.counters.length > 0) answer = await settleCounters(this.engine.counters, ctx, answer, `${this.id}:${step}`);

    const r = answer.result;
    const decision = r.kind === "pass" ? "refuse" : r.kind;
    const reasons = r.kind === "confirm" ? r.reasons : r.kind === "refuse" ? [r.reason] : r.kind === "allow" && r.reason ? [r.reason] : [];
    const detail: Record<string, unknown> = r.kind === "pass" ? {} : { ...(r.detail ?? {}) };
    if (ctx.tokenProblem) detail.confirmation = ctx.tokenProblem;
    if (this.rulebook) detail.rulebook = this.rulebook.digest;

    const entry = this.append({
      v: 1, step: 0, at: now, kind: "check", tool: call.tool, agent: call.agent, args: call.digest,
      origins: call.originsDigest, labels: [...call.labels], decision, reasons: [...reasons],
      confirmed: decision === "allow" && ctx.confirmedAsk !== undefined ? ctx.confirmedAsk : null,
      undo_of: call.undoOf ?? null, link: "",
      values: ctx.tool?.undo !== undefined && !call.argsError ? this.valueDigests(call) : {},
    } as CheckEntry);

    const result: CheckResult = { decision, reasons, detail, step: entry.step };
    if (decision === "confirm") {
      result.confirmation = sealToken(this.macFn, {
        tool: call.tool, agent: call.agent, digest: call.digest, session: this.id, ask: entry.step,
        exp: now + this.catalogue.settings.confirmationTtlMs,
      });
    }
    return result;
  }

  private async record(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    const now = this.nowMs();
    if (!OUTCOMES.includes(outcome)) throw new InputError(`outcome \`${String(outcome)}\` is not one of ${OUTCOMES.join(", ")}`, "/outcome");
    const verified = this.ensureVerified();
    if (!verified.ok) throw new StalwartError("HistoryInvalid", `the history does not verify (${verified.why}); the next check starts a new one`);
    const checked = this.watched.raw[step];
    if (!Number.isSafeInteger(step) || !checked || checked.kind !== "check") throw new InputError(`step ${String(step)} is not a checked call in this history`, "/step");
    const tool = this.catalogue.tools.get(checked.tool);
    let kept: unknown = null;
    if (result !== undefined && tool) {
      canonicalize(result); // throws InputError naming the pointer when it is not JSON data
      kept = tool.keepDeclared(result) ?? null;
    }
    if (outcome === "failed" && checked.decision === "allow" && this.engine.counters && this.index.lastReport.get(step)?.outcome !== "failed") {
      await this.engine.counters.release(`${this.id}:${step}`, now);
    }
    const entry = this.append({ v: 1, step: 0, at: now, kind: "report", of: step, outcome, result: kept, link: "" } as ReportEntry);
    return { step: entry.step };
  }

  /** The records a read's `filter` passes on (the whole result when the tool has none). */
  filter(step: number, result: unknown): Promise<FilterOutcome> {
    return this.serial(() => {
      const verified = this.ensureVerified();
      if (!verified.ok) throw new StalwartError("HistoryInvalid", `the history does not verify (${verified.why}); the next check starts a new one`);
      const checked = this.watched.raw[step];
      if (!Number.isSafeInteger(step) || !checked || checked.kind !== "check" || checked.decision !== "allow") {
        throw new InputError(`step ${String(step)} is not an allowed call in this history`, "/step");
      }
      canonicalize(result);
      const tool = this.catalogue.tools.get(checked.tool)!;
      return filterResult(tool, result, fromResults((t) => this.index.lastResult.get(t)));
    });
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
    if (!this.ensureVerified().ok) return "pending";
    return judgeOutcome(this.catalogue, tool, followResult, fromResults((t) => this.index.lastResult.get(t)));
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
    const body = this.header();
    const source = this.watched.viewTarget as Entry[];
    const entries = copy === false ? source : (JSON.parse(JSON.stringify(source)) as Entry[]);
    const seal = this.macText(`stalwart-session-v1.${canonicalize(body)}`);
    return { ...body, entries, seal, head: this.headSeal(seal, entries) };
  }

  /**
   * Continue a saved session. A changed header (name, language, agent, context, catalogue) is a
   * typed error; changed entries, or entries cut off or added, fail step 2 at the next check.
   */
  static resume(engine: Engine, catalogue: CompiledCatalogue, saved: unknown, steps?: readonly NumberedStep[], opts?: { adoptBrokenSeal?: boolean; rulebook?: CompiledRulebook }): Session {
    const s = saved as SavedSession;
    if (typeof s !== "object" || s === null || s.v !== 1 || typeof s.id !== "string" || typeof s.name !== "string" || typeof s.seal !== "string" || typeof s.head !== "string" || typeof s.catalogue !== "string") {
      throw new InputError("a saved session must be what `toJSON()` returned", "/");
    }
    const session = new Session(engine, s.name, catalogue, {
      language: s.language, context: s.context,
      ...(s.agent ? { agent: s.agent } : {}), ...(steps ? { steps } : {}),
      ...(s.taint_model_after_untrusted === true ? { taintModelAfterUntrusted: true } : {}),
      ...(opts?.rulebook ? { rulebook: opts.rulebook } : {}),
    }, { id: s.id, entries: Array.isArray(s.entries) ? s.entries : ([] as Entry[]) });
    const body = { v: 1 as const, id: s.id, name: s.name, language: s.language, agent: s.agent ?? null, context: s.context ?? {}, catalogue: s.catalogue, taint_model_after_untrusted: s.taint_model_after_untrusted === true, rulebook: s.rulebook ?? null };
    const seal = session.macText(`stalwart-session-v1.${canonicalize(body)}`);
    if (!sameText(seal, s.seal)) {
      if (opts?.adoptBrokenSeal && s.catalogue === catalogue.digest) {
        session.brokenAtResume = "the session was not sealed with this key (another tenant's or installation's, or changed by hand)";
        return session;
      }
      throw new StalwartError("SessionSealInvalid", "the saved session's header was changed (its name, language, agent, context or catalogue)");
    }
    if ((s.rulebook ?? null) !== (opts?.rulebook?.digest ?? null)) {
      throw new StalwartError("RulebookMismatch", s.rulebook ? `the saved session was checked with rulebook ${s.rulebook.slice(0, 12)}…; resume it with that rulebook` : "the saved session was started without a rulebook; resume it without one");
    }
    if (s.catalogue !== catalogue.digest) {
      throw new StalwartError("CatalogueMismatch", `the saved session was checked against catalogue ${s.catalogue.slice(0, 12)}…, not this one (${catalogue.digest.slice(0, 12)}…)`);
    }
    const entries = s.entries as unknown;
    const last = Array.isArray(entries) && entries.length ? (entries[entries.length - 1] as { link?: unknown }).link : undefined;
    const lastLink = typeof last === "string" ? fromHex(last) : GENESIS;
    if (!Array.isArray(entries) || !sameText(session.headSeal(seal, entries as Entry[]), s.head) || !lastLink || lastLink.length !== 32) {
      // Entries cut off, added or unreadable: the next check refuses `history_invalid`.
      session.brokenAtResume = "the history is not the one this session signed (entries cut off, added or unreadable)";
      return session;
    }
    // The head seal covers the count and the last link, so these are what we signed.
    session.signedCount = entries.length;
    session.head = lastLink;
    return session;
  }

  // — internals —

  /** how many entries we have signed in this history, and the last link: truncation shows */
  private signedCount = 0;
  private brokenAtResume?: string;

  private header() {
    return { v: 1 as const, id: this.id, name: this.name, language: this.language, agent: this.agent, context: { ...this.context }, catalogue: this.catalogue.digest, taint_model_after_untrusted: this.taintModelAfterUntrusted, rulebook: this.rulebook?.digest ?? null };
  }

  private headSeal(seal: string, entries: readonly Entry[]): string {
    const last = entries.length ? String((entries[entries.length - 1] as Entry)?.link) : "";
    return this.macText(`stalwart-head-v1.${seal}.${entries.length}.${last}`);
  }

  /** Per-argument digests, kept for calls an undo may later be bound to (step 6). */
  private valueDigests(call: Call): Record<string, string> {
    const out: Record<string, string> = {};
    const parts = call.argParts ?? {};
    for (const k of Object.keys(call.args)) out[k] = parts[k] !== undefined ? this.engine.sha256Hex(parts[k]).slice(0, 32) : valueDigest(this.engine, call.args[k]);
    return out;
  }

  private macText(text: string): string {
    return toBase64Url(this.engine.macText(text));
  }

  private readonly macFn = (text: string) => this.engine.macText(text);

  private nowMs(): number {
    const t = this.engine.now().getTime();
    if (!Number.isFinite(t)) throw new StalwartError("ClockUnreadable", "the clock gave an invalid date");
    return t;
  }

  /** Verify what needs verifying; on success the engine's own copy is refreshed. */
  private ensureVerified(): { ok: true } | { ok: false; why: string } {
    if (this.brokenAtResume !== undefined) return { ok: false, why: this.brokenAtResume };
    if (!this.watched.dirty) return { ok: true };
    let view: unknown;
    try {
      // A plain copy of the caller's objects (read beneath the traps): what they hold now is what
      // is verified, and later edits to their objects cannot reach ours.
      view = JSON.parse(JSON.stringify(this.watched.viewTarget));
    } catch {
      return { ok: false, why: "the history is not JSON data" };
    }
    // The count and head we signed last: a valid prefix is still a cut history.
    const v = verifyChain(this.engine.chain, this.id, view, {
      expectedCount: this.signedCount,
      ...(this.signedCount > 0 ? { expectedHead: toHex(this.head) } : {}),
    });
    if (!v.ok) return { ok: false, why: v.why };
    this.watched.reset(v.entries);
    this.index = new HistoryIndex(this.catalogue, this.watched.raw);
    this.head = v.head;
    this.turns = new TurnIndex(this.language);
    for (const e of v.entries) if (e.kind === "turn") this.turns.add(e.text);
    return { ok: true };
  }

  /** history_invalid: a new history starts at step 0 (checks.md). */
  private restart(): void {
    this.brokenAtResume = undefined;
    this.signedCount = 0;
    this.watched.reset([]);
    this.index = new HistoryIndex(this.catalogue, this.watched.raw);
    this.head = GENESIS;
    this.turns = new TurnIndex(this.language);
  }

  private append<E extends Entry>(entry: E): E {
    entry.step = this.watched.raw.length;
    const link = this.engine.chain.linkText(this.sidBytes, this.head, entryCanonical(entry));
    entry.link = toHex(link);
    this.head = link;
    this.signedCount++;
    this.watched.push(entry);
    this.index.add(entry);
    return entry;
  }
}

/** 128 bits of SHA-256 over the canonical value: enough to bind, short enough to carry. */
export function valueDigest(engine: Engine, value: unknown): string {
  return engine.sha256Hex(canonicalize(value)).slice(0, 32);
}

function sameText(a: string, b: string): boolean {
  const x = fromBase64Url(a);
  const y = fromBase64Url(b);
  return x !== null && y !== null && equalBytes(x, y);
}

function randomId(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return toHex(b);
}

