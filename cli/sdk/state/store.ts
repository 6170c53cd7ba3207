/**
 * The Node session-state and counter store: both interfaces over one LMDB store under the
 * client's home (file.ts), so every process sharing the home sees one set of heads, spent names
 * and counters. Each operation is one LMDB write transaction, which holds the writer lock of every
 * process on the home: compare-and-set and fits-then-add are atomic across processes. A
 * reservation writes a handful of rows (its own, each counter's, their expiry entries), never the
 * whole table; each write reclaims at most RECLAIM_PER_OP expired rows.
 */
import { ReservationTaken, stateRules } from "../../../worker/portable/engine/index.js";
import type { CommitAnswer, CounterItem, CounterStore, ReserveAnswer, SessionState, SessionStateStore, StateChange } from "../../../worker/portable/engine/index.js";
import type { StateFile, Tables, Tx } from "./file.js";
import { Garbage, NEVER, cellKey, checkCounterRow, checkReservationRow, checkSessionRow, expiryBound, expiryKey, expiryTime, headOf, parseExpiry, spentPrefix, type CounterRow, type MetaRow, type SessionRow } from "./rows.js";

const { IDLE_MS, RECLAIM_PER_OP, addAmounts, addTallyPairs, talliesOf, checkChange, checkClock, checkItems, checkReservation, checkSession, checkSessionClock, counterExpiry, firstSpent, fitsAll, headMatches, latestAfter, reservationExpiry, subtractAmount, usedNow } = stateRules;

export class NodeStateStore implements SessionStateStore, CounterStore {
  /** @param now the clock sessions are reclaimed by (ms); counters use the `now` each call passes */
  constructor(readonly file: StateFile, private readonly now: () => number) {}

  /**
   * Sessions as this process last read or wrote them, each with where it is true: this opening of
   * the file, the store's id and generation. Every write of every process moves the generation on,
   * so an entry whose generation is still the store's is exactly what the store holds. A load
   * still reads the meta row and the witness (file.ts, `read`); only the session's rows are
   * spared, and a commit under the lock at that generation needs no read of them either.
   */
  private readonly kept = new Map<string, Kept>();

  load(session: string): SessionState {
    checkSession(session);
    return this.file.read((t, meta) => {
      const at = this.stamp(meta.id, meta.generation);
      const hit = this.kept.get(session);
      const kept: Kept = hit && hit.at === at ? hit : { at, row: sessionRow(t, session), spent: spentNames(t, session) };
      if (kept !== hit) this.keep(session, kept);
      // nothing kept for it: a clock behind the store's may be one a later time reclaimed it by
      if (!kept.row) checkSessionClock(meta.latest ?? -Infinity, this.now());
      return stateOf(kept);
    });
  }

  /** What this process's own last commit of the session left, kept only while nothing it knows of changed it since (no store operation). */
  ownState(session: string): SessionState | undefined {
    checkSession(session);
    const hit = this.kept.get(session);
    return hit?.own ? stateOf(hit) : undefined;
  }

  commit(session: string, change: StateChange): CommitAnswer {
    checkSession(session);
    const c = checkChange(change);
    const own = change.basis === "own";
    const now = this.now();
    let known: Kept | undefined;
    const answer = this.file.run((tx): CommitAnswer => {
      const hit = this.kept.get(session);
      const fresh = hit && hit.at === this.stamp(tx.row.id, tx.row.generation) ? hit : undefined;
      // Decided on ownState: at the generation it was kept at nothing was written since; else the
      // rows themselves must still say what it said (read here, under the lock).
      if (own && !(hit?.own && (fresh || sameSession(tx, session, hit)))) return { ok: false, why: "moved" };
      const row = fresh ? fresh.row : sessionRow(tx, session);
      if (!row) checkSessionClock(tx.row.latest ?? -Infinity, now);
      const stored = headOf(row);
      if (!headMatches(stored, c.expect)) return { ok: false, why: "head", head: stored };
      const prefix = spentPrefix(session);
      const spent = firstSpent(c.spend, (n) => (fresh ? fresh.spent.has(n) : tx.spent.get(prefix + n) !== undefined));
      if (spent !== undefined) return { ok: false, why: "spent", name: spent };
      for (const n of c.spend) tx.spent.putSync(prefix + n, 1);
      const next: SessionRow = { h: [c.next.count, c.next.link], t: c.tally.length > 0 ? addTallyPairs(row?.t ?? [], c.tally) : (row?.t ?? []), at: now, x: row?.x ?? now + IDLE_MS };
      // Only a new session gets an expiry entry here; one that fires early for a session used since is moved then (reclaim).
      if (!row) addExpiry(tx, next.x, "s", session);
      tx.sessions.putSync(session, next);
      tx.dirty = true;
      // Every write moves the store's time: reclaiming goes by it, so a clock behind it must not
      // start a session it may have reclaimed (checkSessionClock) nor count in an ended period.
      const latest = latestAfter(tx.row.latest, now);
      if (latest !== tx.row.latest) tx.row = { ...tx.row, latest };
      // What the store holds for the session once this commits (when this process knew its spent names).
      if (fresh) known = { own: true, at: this.stamp(tx.row.id, tx.row.generation + 1), row: next, spent: c.spend.length > 0 ? new Set([...fresh.spent, ...c.spend]) : fresh.spent, ...(next.t === fresh.row?.t && fresh.tallies ? { tallies: fresh.tallies } : {}) };
      return { ok: true };
    }, (tx) => {
      // Reclaiming may move this session's expiry entry: its row is then not `next`.
      if (reclaim(tx, now).has(session)) known = undefined;
    });
    // Kept only once the transaction committed: a generation that never was may be another's later.
    if (known) this.keep(session, known);
    else this.kept.delete(session);
    return answer;
  }

  /** Where a cached session is true: this opening of the file (a reopened file may be another store), its id and generation. */
  private stamp(id: string, generation: number): string {
    return `${this.file.epoch}:${id}:${generation}`;
  }

  private keep(session: string, entry: Kept): void {
    if (this.kept.size >= KEPT_SESSIONS && !this.kept.has(session)) this.kept.clear();
    this.kept.set(session, entry);
  }

  reserve(reservation: string, items: CounterItem[], now: number): ReserveAnswer {
    const id = checkReservation(reservation);
    const checked = checkItems(items);
    const cells = checked.map((it) => cellKey(it));
    return this.counting(now, (tx) => {
      if (tx.reservations.get(id) !== undefined) throw new ReservationTaken(id);
      checkClock(checked, tx.row.latest ?? -Infinity, now);
      const rows = cells.map((c) => counterRow(tx, c));
      const answer = fitsAll(checked, (it, k) => usedNow(rows[k]?.[0], it, now), (_, k) => cells[k]!);
      if (!answer.ok) return answer;
      const added = new Map<string, CounterRow>();
      checked.forEach((it, k) => {
        const cell = cells[k]!;
        const row = added.get(cell) ?? rows[k];
        const x = row?.[3] ?? counterExpiry(it.until, now);
        if (!row) addExpiry(tx, x, "c", cell);
        const next: CounterRow = [addAmounts(usedNow(row?.[0], it, now), it.amount), it.until, now, x];
        added.set(cell, next);
        tx.counters.putSync(cell, next);
      });
      const x = reservationExpiry(checked, now);
      tx.reservations.putSync(id, { c: checked.map((it, k) => [cells[k]!, it.amount]), x });
      addExpiry(tx, x, "r", id);
      tx.dirty = true;
      return answer;
    });
  }

  peek(items: CounterItem[], now: number): ReserveAnswer {
    const checked = checkItems(items);
    const cells = checked.map((it) => cellKey(it));
    return this.file.read((t, meta) => {
      checkClock(checked, meta.latest ?? -Infinity, now);
      const rows = cells.map((c) => counterRow(t, c));
      return fitsAll(checked, (it, k) => usedNow(rows[k]?.[0], it, now), (_, k) => cells[k]!);
    });
  }

  release(reservation: string, now: number): void {
    const id = checkReservation(reservation);
    this.counting(now, (tx) => {
      const raw = tx.reservations.get(id);
      if (raw === undefined) return; // reclaimed once its periods ended: nothing to give back
      const r = checkReservationRow(raw, id);
      if (r.r === 1) return; // released already
      for (const [cell, amount] of r.c) {
        const row = counterRow(tx, cell);
        if (row) tx.counters.putSync(cell, [subtractAmount(row[0], amount), row[1], row[2], row[3]]);
      }
      // Kept, marked released, until its periods end: a late `ran` counts it again (recount).
      tx.reservations.putSync(id, { ...r, r: 1 });
      tx.dirty = true;
    });
  }

  recount(reservation: string, now: number): boolean {
    const id = checkReservation(reservation);
    return this.counting(now, (tx) => {
      const raw = tx.reservations.get(id);
      if (raw === undefined) return false;
      const r = checkReservationRow(raw, id);
      if (r.r !== 1) return false;
      // A counter row reclaimed since belongs to a period that ended: nothing to count it in.
      for (const [cell, amount] of r.c) {
        const row = counterRow(tx, cell);
        if (row) tx.counters.putSync(cell, [addAmounts(row[0], amount), row[1], now, row[3]]);
      }
      const { r: _released, ...kept } = r;
      tx.reservations.putSync(id, kept);
      tx.dirty = true;
      return true;
    });
  }

  /**
   * A write of counters and reservations only (and reclaiming): every session this process keeps
   * at the generation it starts from is still true at the one it ends on — but those reclaiming
   * took — so they are carried over.
   */
  private counting<R>(now: number, fn: (tx: Tx) => R): R {
    let from: string | undefined;
    let to: string | undefined;
    let touched: Set<string> | undefined;
    const r = this.file.run((tx) => {
      const out = fn(tx);
      if (tx.dirty) {
        // in the meta row, which every write rewrites anyway
        const latest = latestAfter(tx.row.latest, now);
        if (latest !== tx.row.latest) tx.row = { ...tx.row, latest };
        from = this.stamp(tx.row.id, tx.row.generation);
        to = this.stamp(tx.row.id, tx.row.generation + 1);
      }
      return out;
    }, (tx) => {
      touched = reclaim(tx, now);
    });
    if (from !== undefined && to !== undefined) {
      for (const [session, k] of this.kept) if (k.at === from && !touched?.has(session)) k.at = to;
    }
    return r;
  }
}

/** A session's rows as this process last saw them, and where that is true (`NodeStateStore.stamp`). */
interface Kept {
  at: string;
  row: SessionRow | undefined;
  spent: Set<string>;
  /** the row's tallies as a load hands them out (frozen), made at the first load that needs them */
  tallies?: Readonly<Record<string, number>>;
  /** what this process's own commit wrote (ownState hands it out) */
  own?: true;
}

/** The session's spent names, read from its rows (one range read). */
function spentNames(t: Tables, session: string): Set<string> {
  const spent = new Set<string>();
  const prefix = spentPrefix(session);
  for (const { key } of t.spent.getRange({ start: prefix })) {
    if (typeof key !== "string" || !key.startsWith(prefix)) break;
    spent.add(key.slice(prefix.length));
  }
  return spent;
}

/** The session's rows still hold what `k` says a decision read: its head, tallies and spent names. */
function sameSession(tx: Tables, session: string, k: Kept): boolean {
  const row = sessionRow(tx, session);
  const was = k.row;
  if (!row || !was) {
    if (row !== was) return false;
  } else {
    if ((row.h === null) !== (was.h === null) || (row.h && was.h && (row.h[0] !== was.h[0] || row.h[1] !== was.h[1]))) return false;
    if (row.t.length !== was.t.length || row.t.some((p, i) => p[0] !== was.t[i]![0] || p[1] !== was.t[i]![1])) return false;
  }
  const spent = spentNames(tx, session);
  return spent.size === k.spent.size && [...spent].every((n) => k.spent.has(n));
}

/** A load from what this process keeps: the spent names copied, the tallies frozen, so the caller cannot change the cache. */
function stateOf(k: Kept): SessionState {
  k.tallies ??= talliesOf(k.row?.t ?? []);
  return { head: headOf(k.row), spent: new Set(k.spent), tallies: k.tallies, ...(k.row ? { at: k.row.at } : {}) };
}

/** Sessions kept in memory per store handle (a few hundred bytes each); past it the cache starts over. */
const KEPT_SESSIONS = 256;

/** An expiry entry, and the store's note of the earliest one (meta `due`), in the same transaction. */
function addExpiry(tx: Tx, x: number, kind: "s" | "c" | "r", id: string): void {
  const key = expiryKey(x, kind, id);
  tx.expiry.putSync(key, 1);
  const t = expiryTime(key);
  // Unknown stays unknown (the next reclaim reads the index and learns it, this entry included).
  if (tx.row.due !== undefined && t < tx.row.due) tx.row = { ...tx.row, due: t };
}

function sessionRow(tx: Tables, session: string): SessionRow | undefined {
  const raw = tx.sessions.get(session);
  return raw === undefined ? undefined : checkSessionRow(raw, session);
}

function counterRow(tx: Tables, cell: string): CounterRow | undefined {
  const raw = tx.counters.get(cell);
  return raw === undefined ? undefined : checkCounterRow(raw, cell);
}

/**
 * Up to RECLAIM_PER_OP expiry entries that are due: counters of periods ended a day ago,
 * reservations with nothing left to give back, sessions and never-ending counters idle for
 * IDLE_MS. An entry that fired early for a row used since is moved to the row's new expiry.
 * Skipped without a read while the meta row's `due` (the earliest entry) is still ahead. The
 * sessions whose entries it took (so a commit knows its own row may have moved).
 */
function reclaim(tx: Tx, now: number): Set<string> {
  const sessions = new Set<string>();
  // Nothing fires before `due` (every write that adds an entry lowers it): no range read at all.
  if (tx.row.due !== undefined && tx.row.due > now) return sessions;
  const due: string[] = [];
  let next = NEVER;
  const bound = expiryBound(now);
  for (const { key } of tx.expiry.getRange({ limit: RECLAIM_PER_OP + 1 })) {
    parseExpiry(key);
    const k = key as string;
    if (due.length < RECLAIM_PER_OP && k < bound) due.push(k);
    else {
      next = expiryTime(k);
      break;
    }
  }
  // The first entry left, lowered again below by any entry moved to a later time.
  tx.row = { ...tx.row, due: next };
  for (const key of due) {
    const { kind, id } = parseExpiry(key);
    tx.expiry.removeSync(key);
    if (kind === "r") {
      tx.reservations.removeSync(id);
    } else if (kind === "c") {
      const row = counterRow(tx, id);
      if (!row) continue;
      const x = counterExpiry(row[1], row[2]);
      if (x <= now) tx.counters.removeSync(id);
      else {
        tx.counters.putSync(id, [row[0], row[1], row[2], x]);
        addExpiry(tx, x, "c", id);
      }
    } else if (kind === "s") {
      sessions.add(id);
      const row = sessionRow(tx, id);
      if (!row) continue;
      const x = row.at + IDLE_MS;
      if (x <= now) {
        tx.sessions.removeSync(id);
        const prefix = spentPrefix(id);
        const names: string[] = [];
        for (const { key: k } of tx.spent.getRange({ start: prefix })) {
          if (typeof k !== "string" || !k.startsWith(prefix)) break;
          names.push(k);
        }
        for (const k of names) tx.spent.removeSync(k);
      } else {
        tx.sessions.putSync(id, { ...row, x });
        addExpiry(tx, x, "s", id);
      }
    } else {
      throw new Garbage(`expiry entry \`${key}\` has an unknown kind`);
    }
  }
  return sessions;
}
