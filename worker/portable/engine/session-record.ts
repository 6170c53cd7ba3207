/**
 * One session's record in the runtime's session-state store (state/store.ts), as the session's
 * operations read and move it: what is kept for it, whether the history it carries is the newest
 * this runtime answered, and committing the head an answer makes. Without a store nothing is kept
 * and the newest history is any that verifies.
 */
import type { CompiledCatalogue } from "./catalogue/types.js";
import type { Engine } from "./engine.js";
import { StalwartError } from "./errors.js";
import type { Entry } from "./history/entry.js";
import { SignedHistory, type Head, type Verified } from "./history/signed.js";
import { NOTHING_KEPT, historyTallies, type KeptChange, type KeptState } from "./state/changes.js";
import { supersededWhy } from "./session-rules.js";

/** What the runtime keeps for a session, or the typed error of a store that cannot say. */
export type Kept = (KeptState & { head: Head | null; at?: number }) | { error: StalwartError };

const NONE: Record<string, number> = Object.freeze({}) as Record<string, number>;

/** `moved`: decided on `own()`, and the store no longer holds that state (load, decide again). */
export type Committed = { ok: true } | { ok: false; why: string; moved?: true };

export class SessionRecord {
  constructor(
    private readonly engine: Engine,
    private readonly id: string,
    private readonly signed: SignedHistory,
    private readonly catalogue: CompiledCatalogue,
  ) {}

  async load(): Promise<Kept> {
    const store = this.engine.state;
    if (!store) return { ...NOTHING_KEPT, head: null };
    try {
      const s = await store.load(this.id);
      return s.at === undefined ? { spent: s.spent, tallies: s.tallies, head: s.head } : { spent: s.spent, tallies: s.tallies, head: s.head, at: s.at };
    } catch (err) {
      return { error: err instanceof StalwartError ? err : new StalwartError("SessionStateUnreadable", `the session store could not be read (${(err as Error)?.message ?? String(err)})`) };
    }
  }

  /**
   * What this runtime's own last commit of the session left, when the store keeps it in memory
   * (`SessionStateStore.ownState`): no store operation. Unproven until a commit with `own` set
   * finds the session still so; undefined when the store holds none or has no such memory.
   */
  own(): Kept | undefined {
    const s = this.engine.state?.ownState?.(this.id);
    if (!s) return undefined;
    return s.at === undefined ? { spent: s.spent, tallies: s.tallies, head: s.head } : { spent: s.spent, tallies: s.tallies, head: s.head, at: s.at };
  }

  /**
   * Before a restart: the tallies the history carried adds up to, when it verifies but the store
   * keeps no record of the session (forgotten after its idle time, or never seen here): the
   * restart keeps them, so `at_most` and `not_after` hold as far as that history shows (outside
   * audit 20, F2). Nothing when the store has a head (the restart keeps the store's own tallies).
   */
  carried(kept: Kept): Record<string, number> {
    if ("error" in kept || kept.head !== null || !this.engine.state || this.signed.entries.length === 0) return NONE;
    return this.signed.verify().ok ? historyTallies(this.signed.entries, this.catalogue) : NONE;
  }

  /** The history verifies, and is the newest this runtime answered for the session. */
  verifiedAgainst(stored: Head | null): Verified {
    const v = this.signed.verify();
    if (!v.ok || !this.engine.state) return v;
    const mine = this.signed.head;
    if (stored === null ? mine.count === 0 : stored.count === mine.count && stored.link === mine.link) return v;
    return { ok: false, why: supersededWhy(stored, mine) };
  }

  /** Record the head `entry` makes, with what the answer spends and tallies. */
  async commit(expect: Head | "restart", entry: Entry, change: KeptChange, own = false): Promise<Committed> {
    const store = this.engine.state;
    if (!store) return { ok: true };
    let c: Awaited<ReturnType<typeof store.commit>>;
    try {
      const next = SignedHistory.headAfter(entry);
      c = await store.commit(this.id, own ? { expect, next, spend: change.spend, tally: change.tally, basis: "own" } : { expect, next, spend: change.spend, tally: change.tally });
    } catch (err) {
      // A store that cannot say is a typed error, as for a load (a damaged store's own error stands).
      throw err instanceof StalwartError ? err : new StalwartError("SessionStateUnreadable", `the session store could not be written (${(err as Error)?.message ?? String(err)})`);
    }
    if (c.ok) return c;
    if (c.why === "moved") return { ok: false, why: "the session moved since this runtime's own last commit", moved: true };
    return { ok: false, why: c.why === "head" ? supersededWhy(c.head, expect === "restart" ? { count: 0, link: "" } : expect) : `\`${c.name}\` was spent already, by another copy of this session` };
  }

  /**
   * The name of the reservation an allowed call at `step` of this history takes: the session and
   * the head that step extends, so copies of one session answering the same step (resumed in
   * parallel, in one process or many) take one name and only one of them can count. Named by the
   * entry's own link, each copy's entry differed by its time, and a losing copy's reservation was
   * counted, for a moment, against the copy that won (outside audit 7, F3).
   */
  reservation(step: number): string {
    const prev = step > 0 ? (this.signed.entries[step - 1]?.link ?? "") : "";
    return this.engine.sha256Hex(`stalwart-reservation-v1|${this.id}|${step}|${prev}`);
  }

  /** Give back a reservation an answer took but did not keep; a failure leaves it counted. */
  async releaseQuietly(reservation: string, now: number): Promise<void> {
    try {
      await this.engine.counters?.release(reservation, now);
    } catch {
      // Kept counted: the safe direction for a ceiling.
    }
  }
}
