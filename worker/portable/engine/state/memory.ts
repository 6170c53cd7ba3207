/**
 * Session state and counters in one process's memory: for tests, the worker's `app.request()`
 * tests and single-process use. JS runs one call at a time and nothing here awaits, so every
 * operation is atomic. Expired rows are swept at most once an hour of the store's clock (O(n)
 * then, O(1) otherwise); the durable stores reclaim a few rows per operation instead.
 */
import { ReservationTaken } from "../errors.js";
import type { CounterItem, CounterStore, ReserveAnswer } from "../counters/store.js";
import type { CommitAnswer, Head, SessionState, SessionStateStore, StateChange } from "./store.js";
import { addAmounts, addTallies, checkChange, checkClock, checkItems, checkReservation, checkSession, checkSessionClock, counterExpiry, firstSpent, fitsAll, headMatches, IDLE_MS, latestAfter, reservationExpiry, subtractAmount, usedNow } from "./rules.js";

interface SessionRow {
  head: Head | null;
  spent: Set<string>;
  /** frozen: a load hands this very object out, a commit replaces it */
  tallies: Readonly<Record<string, number>>;
  touched: number;
}

export interface MemoryStateOptions {
  /** the clock sessions are reclaimed by (ms); without one, sessions are kept for the store's life */
  now?: () => number;
}

const HOUR = 3_600_000;
const NO_TALLIES: Readonly<Record<string, number>> = Object.freeze(Object.create(null));

export class MemoryStateStore implements SessionStateStore, CounterStore {
  private readonly sessions = new Map<string, SessionRow>();
  /** keyed by JSON [key, until] */
  private readonly counters = new Map<string, { used: number; until: number; touched: number }>();
  private readonly reservations = new Map<string, { cells: { id: string; amount: number }[]; expires: number; released?: boolean }>();
  private sweptAt = -Infinity;
  /** the latest `now` a write was given (rules.ts `checkClock`, `checkSessionClock`) */
  private latest = -Infinity;

  constructor(private readonly opts: MemoryStateOptions = {}) {}

  load(session: string): SessionState {
    const row = this.sessions.get(checkSession(session));
    if (!row) {
      // nothing kept: with a clock, a time behind the store's may be one that swept it (rules.ts)
      if (this.opts.now) checkSessionClock(this.latest, this.opts.now());
      return { head: null, spent: new Set(), tallies: Object.freeze(Object.create(null)) };
    }
    return { head: row.head && { ...row.head }, spent: new Set(row.spent), tallies: row.tallies, ...(this.opts.now ? { at: row.touched } : {}) };
  }

  commit(session: string, change: StateChange): CommitAnswer {
    checkSession(session);
    const c = checkChange(change);
    const row = this.sessions.get(session);
    const stored = row?.head ?? null;
    if (!headMatches(stored, c.expect)) return { ok: false, why: "head", head: stored && { ...stored } };
    const spent = firstSpent(c.spend, (n) => row?.spent.has(n) ?? false);
    if (spent !== undefined) return { ok: false, why: "spent", name: spent };
    const now = this.opts.now?.() ?? 0;
    if (!row && this.opts.now) checkSessionClock(this.latest, now);
    const next: SessionRow = row ?? { head: null, spent: new Set(), tallies: NO_TALLIES, touched: now };
    next.head = { ...c.next };
    for (const n of c.spend) next.spent.add(n);
    if (c.tally.length > 0) next.tallies = Object.freeze(addTallies(next.tallies, c.tally));
    next.touched = now;
    this.sessions.set(session, next);
    if (this.opts.now) {
      // the store's time moves with every write: sessions are swept by it (checkSessionClock)
      this.latest = latestAfter(this.latest, now);
      this.sweep(now);
    }
    return { ok: true };
  }

  reserve(reservation: string, items: CounterItem[], now: number): ReserveAnswer {
    const id = checkReservation(reservation);
    const checked = checkItems(items);
    if (this.reservations.has(id)) throw new ReservationTaken(id);
    checkClock(checked, this.latest, now);
    const answer = fitsAll(checked, (it) => usedNow(this.counters.get(cellId(it))?.used, it, now));
    if (!answer.ok) return answer;
    for (const it of checked) {
      const cid = cellId(it);
      const cell = this.counters.get(cid);
      const used = usedNow(cell?.used, it, now);
      this.counters.set(cid, { used: addAmounts(used, it.amount), until: it.until, touched: now });
    }
    this.reservations.set(id, { cells: checked.map((it) => ({ id: cellId(it), amount: it.amount })), expires: reservationExpiry(checked, now) });
    this.latest = latestAfter(this.latest, now);
    this.sweep(now);
    return answer;
  }

  peek(items: CounterItem[], now: number): ReserveAnswer {
    const checked = checkItems(items);
    checkClock(checked, this.latest, now);
    return fitsAll(checked, (it) => usedNow(this.counters.get(cellId(it))?.used, it, now));
  }

  release(reservation: string, now: number): void {
    const id = checkReservation(reservation);
    const r = this.reservations.get(id);
    if (!r || r.released) return; // released already, or reclaimed after its periods ended: nothing to give back
    for (const c of r.cells) {
      const cell = this.counters.get(c.id);
      if (cell) cell.used = subtractAmount(cell.used, c.amount);
    }
    // Kept, released, until its periods end: a late `ran` counts it again (recount).
    r.released = true;
    this.latest = latestAfter(this.latest, now);
    this.sweep(now);
  }

  recount(reservation: string, now: number): boolean {
    const id = checkReservation(reservation);
    const r = this.reservations.get(id);
    if (!r || !r.released) return false;
    for (const c of r.cells) {
      const cell = this.counters.get(c.id);
      if (cell) cell.used = addAmounts(cell.used, c.amount);
      else this.counters.set(c.id, { used: c.amount, until: JSON.parse(c.id)[1] as number, touched: now });
    }
    r.released = false;
    this.latest = latestAfter(this.latest, now);
    this.sweep(now);
    return true;
  }

  /** Rows held, for tests of reclamation. */
  size(): { sessions: number; counters: number; reservations: number } {
    return { sessions: this.sessions.size, counters: this.counters.size, reservations: this.reservations.size };
  }

  private sweep(now: number): void {
    if (now < this.sweptAt + HOUR) return;
    this.sweptAt = now;
    for (const [k, c] of this.counters) if (counterExpiry(c.until, c.touched) <= now) this.counters.delete(k);
    for (const [k, r] of this.reservations) if (r.expires <= now) this.reservations.delete(k);
    if (this.opts.now) for (const [k, s] of this.sessions) if (s.touched + IDLE_MS <= now) this.sessions.delete(k);
  }
}

function cellId(it: CounterItem): string {
  return JSON.stringify([it.key, it.until]);
}
