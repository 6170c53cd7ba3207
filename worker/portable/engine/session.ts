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
import type { CallOptions, Call, CheckFacts, CheckResult } from "./check/types.js";
import type { Engine } from "./engine.js";
import { after, runSteps, STEPS, type NamedStep } from "./check/orchestrator.js";
import { assemble, resultOf } from "./check/answer.js";
import { settleLimits } from "./check/steps/limits.js";
import { canonicalize } from "./canonical/jcs.js";
import { toHex } from "./canonical/bytes.js";
import { OUTCOMES, type Entry, type Outcome } from "./history/entry.js";
import { SignedHistory } from "./history/signed.js";
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
import { lastLinkOf, readSaved, sameMac, sealHead, sealHeader, type SavedSession, type SessionHeader } from "./saved-session.js";

export type { SavedSession } from "./saved-session.js";

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
    this.id = id ?? randomId();
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

  /** A person's turn, recorded in the history. */
  async read(text: string): Promise<{ step: number }> {
    if (typeof text !== "string") throw new InputError("a turn must be a string", "/text");
    if (!this.signed.verify().ok) this.signed.restart();
    const entry = this.signed.append({ v: 1, step: 0, at: this.nowMs(), kind: "turn", text, link: "" });
    return { step: entry.step };
  }

  /** Check a tool call before it runs. Never throws for a bad call: it refuses with a reason. */
  async checkToolCall(tool: string, args: unknown, options: CallOptions = {}): Promise<CheckResult> {
    const now = this.nowMs();
    const verified = this.signed.verify();
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
      ...(verified.ok ? {} : { historyInvalid: verified.why }),
      ...(this.rulebook ? { rulebook: this.rulebook } : {}),
    };
    const licence = this.engine.licence();
    if (licence) facts.licence = licence;

    const call = normaliseCall(tool, args, options, this.agent, (s) => this.engine.sha256Hex(s));
    if (verified.ok && !call.argsError) addLabels(call, propagatedLabels(call, facts));
    const answer = runSteps(call, facts, this.steps);
    if (!verified.ok) this.signed.restart();
    const step = this.signed.entries.length;
    let verdict = answer.verdict;
    if (answer.tool && answer.counters.length > 0 && after(answer.at, "limits")) {
      verdict = await settleLimits(this.engine.counters, answer.counters, verdict, answer.tool, `${this.id}:${step}`, now);
    }

    const a = assemble(call, answer, verdict, now, () => this.valueDigests(call), this.rulebook ? { rulebook: this.rulebook.digest } : {});
    const entry = this.signed.append(a.entry);
    const token = a.decision === "confirm"
      ? sealToken(this.macFn, { tool: call.tool, agent: call.agent, digest: call.digest, session: this.id, ask: entry.step, exp: now + this.catalogue.settings.confirmationTtlMs })
      : undefined;
    return resultOf(a, entry.step, token);
  }

  /** The caller's report of what happened to a checked call (`failed` releases its counters). */
  async report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    const now = this.nowMs();
    if (!OUTCOMES.includes(outcome)) throw new InputError(`outcome \`${String(outcome)}\` is not one of ${OUTCOMES.join(", ")}`, "/outcome");
    const checked = this.checkedEntry(step);
    const tool = this.catalogue.tools.get(checked.tool);
    let kept: unknown = null;
    if (result !== undefined && tool) {
      canonicalize(result); // throws InputError naming the pointer when it is not JSON data
      kept = tool.keepDeclared(result) ?? null;
    }
    if (outcome === "failed" && checked.decision === "allow" && this.engine.counters && this.signed.index.lastReport.get(step)?.outcome !== "failed") {
      await this.engine.counters.release(`${this.id}:${step}`, now);
    }
    const entry = this.signed.append({ v: 1, step: 0, at: now, kind: "report", of: step, outcome, result: kept, link: "" });
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
    const source = this.signed.viewTarget as Entry[];
    const entries = copy === false ? source : structuredClone(source);
    const seal = sealHeader(this.macFn, header);
    return { ...header, entries, seal, head: sealHead(this.macFn, seal, entries) };
  }

  /**
   * Continue a saved session. A changed header (name, language, agent, context, catalogue) is a
   * typed error; changed entries, or entries cut off or added, fail step 2 at the next check.
   */
  static resume(engine: Engine, catalogue: CompiledCatalogue, saved: unknown, opts: { steps?: readonly NamedStep[]; rulebook?: CompiledRulebook } = {}): Session {
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
    return session;
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

  /** The check entry at `step` of a verified history, or a typed error. */
  private checkedEntry(step: number) {
    const verified = this.signed.verify();
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

function randomId(): string {
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return toHex(b);
}
