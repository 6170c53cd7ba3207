/**
 * The Node session-state and counter store: both interfaces over one LMDB store under the
 * client's home (file.ts), so every process sharing the home sees one set of heads, spent names
 * and counters. Each operation is one LMDB write transaction, which holds the writer lock of every
 * process on the home: compare-and-set and fits-then-add are atomic across processes. A
 * reservation writes a handful of rows (its own, each counter's, their expiry entries), never the
 * whole table; each write reclaims at most RECLAIM_PER_OP expired rows.
 */
import { InputError, stateRules } from "../../../worker/portable/engine/index.js";
import type { CommitAnswer, CounterItem, CounterStore, ReserveAnswer, SessionState, SessionStateStore, StateChange } from "../../../worker/portable/engine/index.js";
import type { StateFile, Tx } from "./file.js";
import { Garbage, cellKey, checkCounterRow, checkReservationRow, checkSessionRow, expiryBound, expiryKey, headOf, parseExpiry, spentPrefix, type CounterRow, type SessionRow } from "./rows.js";

const { IDLE_MS, RECLAIM_PER_OP, addTallies, checkChange, checkItems, checkReservation, checkSession, counterExpiry, firstSpent, fitsAll, headMatches, reservationExpiry, usedNow } = stateRules;

export class NodeStateStore implements SessionStateStore, CounterStore {
  /** @param now the clock sessions are reclaimed by (ms); counters use the `now` each call passes */
  constructor(readonly file: StateFile, private readonly now: () => number) {}

  load(session: string): SessionState {
    checkSession(session);
    return this.file.run((tx) => {
      const row = sessionRow(tx, session);
      const spent = new Set<string>();
      const prefix = spentPrefix(session);
      for (const { key } of tx.spent.getRange({ start: prefix })) {
        if (typeof key !== "string" || !key.startsWith(prefix)) break;
        spent.add(key.slice(prefix.length));
      }
      return { head: headOf(row), spent, tallies: Object.freeze(addTallies(Object.fromEntries(row?.t ?? []), [])) };
    });
  }

  commit(session: string, change: StateChange): CommitAnswer {
    checkSession(session);
    const c = checkChange(change);
    const now = this.now();
    return this.file.run((tx) => {
      const row = sessionRow(tx, session);
      const stored = headOf(row);
      if (!headMatches(stored, c.expect)) return { ok: false, why: "head", head: stored };
      const prefix = spentPrefix(session);
      const spent = firstSpent(c.spend, (n) => tx.spent.get(prefix + n) !== undefined);
      if (spent !== undefined) return { ok: false, why: "spent", name: spent };
      for (const n of c.spend) tx.spent.putSync(prefix + n, 1);
      const tallies = addTallies(Object.fromEntries(row?.t ?? []), c.tally);
      const next: SessionRow = { h: [c.next.count, c.next.link], t: Object.entries(tallies), at: now, x: row?.x ?? now + IDLE_MS };
      // Only a new session gets an expiry entry here; one that fires early for a session used since is moved then (reclaim).
      if (!row) tx.expiry.putSync(expiryKey(next.x, "s", session), 1);
      tx.sessions.putSync(session, next);
      tx.dirty = true;
      return { ok: true };
    }, (tx) => reclaim(tx, now));
  }

  reserve(reservation: string, items: CounterItem[], now: number): ReserveAnswer {
    const id = checkReservation(reservation);
    const checked = checkItems(items);
    const cells = checked.map((it) => cellKey(it));
    return this.file.run((tx) => {
      if (tx.reservations.get(id) !== undefined) throw new InputError(`reservation \`${id}\` was taken already; an id names one history entry and is never reused`, "/reservation");
      const rows = cells.map((c) => counterRow(tx, c));
      const answer = fitsAll(checked, (it, k) => usedNow(rows[k]?.[0], it, now), (_, k) => cells[k]!);
      if (!answer.ok) return answer;
      const added = new Map<string, CounterRow>();
      checked.forEach((it, k) => {
        const cell = cells[k]!;
        const row = added.get(cell) ?? rows[k];
        const x = row?.[3] ?? counterExpiry(it.until, now);
        if (!row) tx.expiry.putSync(expiryKey(x, "c", cell), 1);
        const next: CounterRow = [usedNow(row?.[0], it, now) + it.amount, it.until, now, x];
        added.set(cell, next);
        tx.counters.putSync(cell, next);
      });
      const x = reservationExpiry(checked, now);
      tx.reservations.putSync(id, { c: checked.map((it, k) => [cells[k]!, it.amount]), x });
      tx.expiry.putSync(expiryKey(x, "r", id), 1);
      tx.dirty = true;
      return answer;
    }, (tx) => reclaim(tx, now));
  }

  peek(items: CounterItem[], now: number): ReserveAnswer {
    const checked = checkItems(items);
    const cells = checked.map((it) => cellKey(it));
    return this.file.run((tx) => {
      const rows = cells.map((c) => counterRow(tx, c));
      return fitsAll(checked, (it, k) => usedNow(rows[k]?.[0], it, now), (_, k) => cells[k]!);
    });
  }

  release(reservation: string, now: number): void {
    const id = checkReservation(reservation);
    this.file.run((tx) => {
      const raw = tx.reservations.get(id);
      if (raw === undefined) return; // reclaimed once its periods ended: nothing to give back
      const r = checkReservationRow(raw, id);
      if (r.r === 1) return; // released already
      for (const [cell, amount] of r.c) {
        const row = counterRow(tx, cell);
        if (row) tx.counters.putSync(cell, [Math.max(0, row[0] - amount), row[1], row[2], row[3]]);
      }
      // Kept, marked released, until its periods end: a late `ran` counts it again (recount).
      tx.reservations.putSync(id, { ...r, r: 1 });
      tx.dirty = true;
    }, (tx) => reclaim(tx, now));
  }

  recount(reservation: string, now: number): boolean {
    const id = checkReservation(reservation);
    return this.file.run((tx) => {
      const raw = tx.reservations.get(id);
      if (raw === undefined) return false;
      const r = checkReservationRow(raw, id);
      if (r.r !== 1) return false;
      // A counter row reclaimed since belongs to a period that ended: nothing to count it in.
      for (const [cell, amount] of r.c) {
        const row = counterRow(tx, cell);
        if (row) tx.counters.putSync(cell, [row[0] + amount, row[1], now, row[3]]);
      }
      const { r: _released, ...kept } = r;
      tx.reservations.putSync(id, kept);
      tx.dirty = true;
      return true;
    }, (tx) => reclaim(tx, now));
  }
}

function sessionRow(tx: Tx, session: string): SessionRow | undefined {
  const raw = tx.sessions.get(session);
  return raw === undefined ? undefined : checkSessionRow(raw, session);
}

function counterRow(tx: Tx, cell: string): CounterRow | undefined {
  const raw = tx.counters.get(cell);
  return raw === undefined ? undefined : checkCounterRow(raw, cell);
}

/**
 * Up to RECLAIM_PER_OP expiry entries that are due: counters of periods ended a day ago,
 * reservations with nothing left to give back, sessions and never-ending counters idle for
 * IDLE_MS. An entry that fired early for a row used since is moved to the row's new expiry.
 */
function reclaim(tx: Tx, now: number): void {
  const due: string[] = [];
  for (const { key } of tx.expiry.getRange({ end: expiryBound(now), limit: RECLAIM_PER_OP })) due.push(key as string);
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
        tx.expiry.putSync(expiryKey(x, "c", id), 1);
      }
    } else if (kind === "s") {
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
        tx.expiry.putSync(expiryKey(x, "s", id), 1);
      }
    } else {
      throw new Garbage(`expiry entry \`${key}\` has an unknown kind`);
    }
  }
}
