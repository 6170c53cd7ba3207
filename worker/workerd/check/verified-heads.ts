/**
 * What this isolate has verified of each session's history, so that a request's cost does not
 * grow with the session's length (issue 14). A request carries the whole saved session; when its
 * entries start with exactly the entries an earlier answer of this isolate verified (and signed),
 * the engine reads and verifies only what follows them (usually nothing) — comparing entries field
 * by field instead of canonicalising and MAC-ing each one.
 *
 * Keyed by the tenant's engine (one per history key: a rotated secret makes new engines, so no
 * prefix verified under the old key is ever trusted under the new one) and the session id. Bounded
 * by the entries held (LRU by session): an isolate keeps at most MAX_ENTRIES entries' objects,
 * which are the engine's own and never edited, so holding them costs no copy. A miss is never
 * wrong, only slower: the history is then verified in full, as before. With the Durable Object per
 * session (session-state-object.ts) holding the newest head, a stale prefix here still verifies
 * only as what it is: the state check that the head is the newest runs as before.
 */
import type { Engine, KnownPrefix, SealedHeader } from "../../portable/engine/index.js";

/** At most this many entries held per isolate, across sessions (~0.7 KB each: ~20 MB). */
const MAX_ENTRIES = 30_000;

/**
 * A verified prefix with the size of the session's full JSON form when it was answered
 * (carried.ts), and the header that answer carried with the seal made for it: the same seal on an
 * equal header is not made again on resume (saved-session.ts).
 */
export interface HeldPrefix extends KnownPrefix {
  readonly bytes: number;
  readonly sealed?: SealedHeader;
  /** the head seal that answer carried, made under `sealed`'s seal over exactly these entries */
  readonly headSeal?: string;
}

/** One session held: the slot is its own key in the use order (no key string per lookup). */
interface Slot {
  readonly engine: Engine;
  readonly sessionId: string;
  held: HeldPrefix;
}

export class VerifiedHeads {
  private readonly byEngine = new WeakMap<Engine, Map<string, Slot>>();
  /** every session held, oldest use first (a Set keeps insertion order; a use re-inserts) */
  private readonly order = new Set<Slot>();
  private held = 0;

  constructor(private readonly maxEntries = MAX_ENTRIES) {}

  get(engine: Engine, sessionId: string): HeldPrefix | undefined {
    const slot = this.byEngine.get(engine)?.get(sessionId);
    if (!slot) return undefined;
    this.order.delete(slot);
    this.order.add(slot);
    return slot.held;
  }

  /** Keep what an answer verified and signed (a longer prefix replaces a shorter one), with its session's size. */
  remember(engine: Engine, prefix: KnownPrefix | null, bytes = 0, sealed?: SealedHeader, headSeal?: string): void {
    if (!prefix || prefix.count === 0 || prefix.count > this.maxEntries) return;
    let sessions = this.byEngine.get(engine);
    if (!sessions) this.byEngine.set(engine, (sessions = new Map()));
    // the session's own list, shared: it is only ever appended to (a restart makes a new one), and
    // every reader stops at `count`, so no copy of it per request
    const kept: HeldPrefix = { ...prefix, bytes, ...(sealed ? { sealed } : {}), ...(sealed && headSeal !== undefined ? { headSeal } : {}) };
    let slot = sessions.get(prefix.sessionId);
    if (slot) {
      // replaces what was held of the session, which becomes the newest used
      this.held -= slot.held.count;
      slot.held = kept;
      this.order.delete(slot);
    } else {
      slot = { engine, sessionId: prefix.sessionId, held: kept };
      sessions.set(prefix.sessionId, slot);
    }
    this.order.add(slot);
    this.held += kept.count;
    while (this.held > this.maxEntries) {
      const oldest = this.order.values().next().value;
      if (!oldest) break;
      this.order.delete(oldest);
      this.held -= oldest.held.count;
      this.byEngine.get(oldest.engine)?.delete(oldest.sessionId);
    }
  }
}
