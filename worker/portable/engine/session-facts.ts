/**
 * What the steps read of one session at one check (check/types.ts, `CheckFacts`), and the value
 * digests its check entries keep. Built once per check from the session's signed history, what
 * the runtime keeps for it, and the engine.
 */
import type { CompiledCatalogue, Language } from "./catalogue/types.js";
import { argNamesOf, type Call, type CheckFacts, type TokenClaims } from "./check/types.js";
import type { CompiledRulebook } from "./rulebook/types.js";
import type { Engine } from "./engine.js";
import { canonicalize } from "./canonical/jcs.js";
import { defineOwn } from "./canonical/own.js";
import { HistoryIndex } from "./history/index.js";
import type { SignedHistory, Verified } from "./history/signed.js";
import { TurnIndex } from "./origins/typed.js";
import { openToken, type BytesMac } from "./tokens/confirmation.js";
import { joinedResults } from "./conditions/read.js";
import { NOTHING_KEPT } from "./state/changes.js";
import type { Kept } from "./session-record.js";
import type { TextMac } from "./saved-session.js";

/** The session a check reads: its fixed parts. */
export interface FactsOf {
  readonly id: string;
  readonly engine: Engine;
  readonly catalogue: CompiledCatalogue;
  readonly language: Language;
  readonly context: Readonly<Record<string, unknown>>;
  readonly signed: SignedHistory;
  readonly mac: TextMac;
  readonly taintModelAfterUntrusted: boolean;
  readonly rulebook: CompiledRulebook | undefined;
  /** step 10's token reader and the value digest, made once per session rather than per check */
  readonly openToken: (token: string) => TokenClaims | null;
  readonly valueDigest: (value: unknown) => string;
  /** the check's `from` over the session's verified index, kept while that index is the session's */
  readonly joined: { index?: HistoryIndex; from?: CheckFacts["from"] };
}

/** The per-session closures of `FactsOf`. */
export function sessionReaders(engine: Engine, mac: BytesMac): Pick<FactsOf, "openToken" | "valueDigest" | "joined"> {
  return { openToken: (t) => openToken(mac, t), valueDigest: (v) => valueDigest(engine, v), joined: {} };
}

/** A history that did not verify is read as empty; step 2 refuses with `historyInvalid`. */
export function checkFacts(s: FactsOf, verified: Verified, kept: Kept, now: number): CheckFacts {
  const { engine, signed } = s;
  const index = verified.ok ? signed.index : new HistoryIndex(s.catalogue, []);
  // Every field always present (undefined when absent): one shape for every check.
  return {
    catalogue: s.catalogue,
    history: verified.ok ? signed.entries : [],
    sessionId: s.id,
    turns: verified.ok ? signed.turns : new TurnIndex(s.language),
    context: s.context,
    now,
    licence: engine.licence(),
    openToken: s.openToken,
    historyInvalid: verified.ok ? undefined : verified.why,
    index,
    from: verified.ok ? fromOf(s.joined, index, engine) : joinedFrom(index, engine),
    valueDigest: s.valueDigest,
    taintModelAfterUntrusted: s.taintModelAfterUntrusted,
    rulebook: s.rulebook,
    kept: "error" in kept ? NOTHING_KEPT : kept,
  };
}

/** The check's `from` over an index (which it reads live, when a condition asks). */
function joinedFrom(index: HistoryIndex, engine: Engine): CheckFacts["from"] {
  return joinedResults(
    (t) => index.lastResult.get(t),
    (t, arg, value) => index.resultWhere(t, arg, valueDigest(engine, value)),
  );
}

/**
 * `joinedFrom` made once per session index, not three closures per check. Kept on the session (a
 * WeakMap keyed by the index kept every session's index alive through the young-generation GC).
 */
function fromOf(joined: FactsOf["joined"], index: HistoryIndex, engine: Engine): CheckFacts["from"] {
  if (joined.index === index && joined.from !== undefined) return joined.from;
  const from = joinedFrom(index, engine);
  joined.index = index;
  joined.from = from;
  return from;
}

/** Per-argument digests, kept for calls an undo may later be bound to (step 6). */
export function valueDigests(engine: Engine, call: Call): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = call.argParts ?? {};
  for (const k of argNamesOf(call)) {
    const part = Object.hasOwn(parts, k) ? parts[k] : undefined;
    defineOwn(out, k, part !== undefined ? engine.sha256Hex(part).slice(0, 32) : valueDigest(engine, call.args[k])); // `__proto__` too
  }
  return out;
}

/** 128 bits of SHA-256 over the canonical value: enough to bind, short enough to carry. */
function valueDigest(engine: Engine, value: unknown): string {
  return engine.sha256Hex(canonicalize(value)).slice(0, 32);
}
