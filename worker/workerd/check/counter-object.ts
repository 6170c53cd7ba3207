/**
 * One Durable Object per tenant holding its rate-limit and spend counters (layout in STORAGE.md).
 * A reservation checks every item and writes them all inside one synchronous SQL transaction:
 * the object runs one call at a time and nothing awaits in between, so any number of worker
 * instances share one ceiling and concurrent calls can never overshoot it. A reservation id is
 * the link of the entry that took it: one already present answers `{duplicate}`. Each write
 * prunes at most RECLAIM_PER_OP rows of ended periods, idle counters and spent reservations, so
 * storage stays bounded by what is live. Values that are not what it writes answer `{damaged}`.
 */
import { DurableObject } from "cloudflare:workers";
import { StalwartError, stateRules, type CounterItem, type ReserveAnswer } from "../../portable/engine/index.js";

const { GRACE_MS, IDLE_MS, RECLAIM_PER_OP, addAmounts, checkClock, fitsAll, isCount, latestAfter, reservationExpiry, subtractAmount, usedNow } = stateRules;
const LAYOUT = "3";

export type CounterReply = ReserveAnswer | { duplicate: true } | { damaged: string } | { clockBehind: string };

class Bad extends Error {}

export class CounterObject extends DurableObject {
  private readonly sql: SqlStorage;
  /** the latest `now` a write was given, kept in `counter_meta` (rules.ts `checkClock`); undefined until read */
  private latest: number | undefined;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    ctx.storage.transactionSync(() => this.migrate());
  }

  private latestSeen(): number {
    if (this.latest === undefined) {
      const raw = this.sql.exec<{ value: string }>(`SELECT value FROM counter_meta WHERE key = 'latest'`).toArray()[0]?.value;
      const t = raw === undefined ? -Infinity : Number(raw);
      if (raw !== undefined && !Number.isFinite(t)) throw new Bad(`the latest time holds \`${raw.slice(0, 40)}\`, not a time`);
      this.latest = t;
    }
    return this.latest;
  }

  /** In the write's transaction; kept in memory only once it committed (`guard`). */
  private noteTime(now: number): number | undefined {
    const was = this.latestSeen();
    if (now <= was) return undefined;
    this.sql.exec(`INSERT INTO counter_meta (key, value) VALUES ('latest', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, String(latestAfter(was, now)));
    return now;
  }

  /** Layout 1 (migration v1) kept one row per reserved item and no expiry; layout 2 had no `released`; layout 3 is STORAGE.md's. */
  private migrate(): void {
    this.sql.exec(`CREATE TABLE IF NOT EXISTS counter_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
    const layout = this.sql.exec<{ value: string }>(`SELECT value FROM counter_meta WHERE key = 'layout'`).toArray()[0]?.value;
    if (layout === LAYOUT) return;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS counters (key TEXT NOT NULL, until INTEGER NOT NULL, used REAL NOT NULL, PRIMARY KEY (key, until))`);
    const columns = this.sql.exec<{ name: string }>(`PRAGMA table_info(counters)`).toArray().map((c) => c.name);
    const now = Date.now();
    if (!columns.includes("touched")) {
      this.sql.exec(`ALTER TABLE counters ADD COLUMN touched INTEGER NOT NULL DEFAULT 0`);
      this.sql.exec(`UPDATE counters SET touched = ?`, now);
    }
    this.sql.exec(`CREATE INDEX IF NOT EXISTS counters_until ON counters (until) WHERE until != 0`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS counters_idle ON counters (touched) WHERE until = 0`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS reservation (id TEXT PRIMARY KEY, items TEXT NOT NULL, expires INTEGER NOT NULL)`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS reservation_expires ON reservation (expires)`);
    if (!this.sql.exec<{ name: string }>(`PRAGMA table_info(reservation)`).toArray().some((c) => c.name === "released")) {
      this.sql.exec(`ALTER TABLE reservation ADD COLUMN released INTEGER NOT NULL DEFAULT 0`);
    }
    const old = this.sql.exec<{ name: string }>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'reservations'`).toArray().length > 0;
    if (old) {
      const rows = this.sql.exec<{ id: string; key: string; until: number; amount: number }>(`SELECT id, key, until, amount FROM reservations`).toArray();
      const byId = new Map<string, CounterItem[]>();
      for (const r of rows) {
        const list = byId.get(r.id) ?? [];
        list.push({ key: r.key, until: r.until, amount: r.amount, limit: 0 });
        byId.set(r.id, list);
      }
      for (const [id, items] of byId) this.putReservation(id, items, now);
      this.sql.exec(`DROP TABLE reservations`);
    }
    this.sql.exec(`INSERT INTO counter_meta (key, value) VALUES ('layout', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, LAYOUT);
  }

  private putReservation(id: string, items: readonly CounterItem[], now: number): void {
    const cells = items.map((i) => [i.key, i.until, i.amount]);
    this.sql.exec(`INSERT INTO reservation (id, items, expires) VALUES (?, ?, ?)`, id, JSON.stringify(cells), reservationExpiry(items, now));
  }

  private setUsed(key: string, until: number, used: number, now: number): void {
    this.sql.exec(`INSERT INTO counters (key, until, used, touched) VALUES (?, ?, ?, ?) ON CONFLICT(key, until) DO UPDATE SET used = excluded.used, touched = excluded.touched`, key, until, used, now);
  }

  private used(it: { key: string; until: number }): number | undefined {
    const row = this.sql.exec<{ used: SqlStorageValue }>(`SELECT used FROM counters WHERE key = ? AND until = ?`, it.key, it.until).toArray()[0];
    if (!row) return undefined;
    if (!isCount(row.used)) throw new Bad(`counter \`${it.key}\` (period ending ${it.until}) holds \`${String(row.used)}\`, not a count`);
    return row.used;
  }

  private fits(items: CounterItem[], now: number): ReserveAnswer {
    return fitsAll(items, (it) => usedNow(this.used(it), it, now));
  }

  private guard<T>(work: () => T, now: number): T | { damaged: string } | { clockBehind: string } {
    try {
      let noted: number | undefined;
      const r = this.ctx.storage.transactionSync(() => {
        const out = work();
        noted = this.noteTime(now);
        return out;
      });
      if (noted !== undefined) this.latest = noted;
      return r;
    } catch (err) {
      if (err instanceof Bad) return { damaged: err.message };
      if (err instanceof StalwartError && err.code === "ClockBehind") return { clockBehind: err.message };
      throw err;
    }
  }

  reserve(reservation: string, items: CounterItem[], now: number): CounterReply {
    return this.guard((): CounterReply => {
      if (this.sql.exec(`SELECT 1 FROM reservation WHERE id = ?`, reservation).toArray().length > 0) return { duplicate: true };
      checkClock(items, this.latestSeen(), now);
      const answer = this.fits(items, now);
      if (!answer.ok) return answer;
      // Each sum in JS, on the amounts' decimals (amounts.ts), not SQLite's binary REAL addition.
      for (const it of items) this.setUsed(it.key, it.until, addAmounts(usedNow(this.used(it), it, now), it.amount), now);
      this.putReservation(reservation, items, now);
      this.prune(now);
      return answer;
    }, now);
  }

  peek(items: CounterItem[], now: number): CounterReply {
    try {
      checkClock(items, this.latestSeen(), now);
      return this.fits(items, now);
    } catch (err) {
      if (err instanceof Bad) return { damaged: err.message };
      if (err instanceof StalwartError && err.code === "ClockBehind") return { clockBehind: err.message };
      throw err;
    }
  }

  private cellsOf(reservation: string): { cells: [string, number, number][]; released: boolean } | undefined {
    const row = this.sql.exec<{ items: string; released: SqlStorageValue }>(`SELECT items, released FROM reservation WHERE id = ?`, reservation).toArray()[0];
    if (!row) return undefined;
    let cells: unknown;
    try {
      cells = JSON.parse(row.items);
    } catch {
      cells = undefined;
    }
    if (!Array.isArray(cells) || !cells.every((c) => Array.isArray(c) && typeof c[0] === "string" && isCount(c[1]) && isCount(c[2]))) throw new Bad(`reservation \`${reservation}\` holds \`${row.items.slice(0, 80)}\`, not its cells`);
    if (row.released !== 0 && row.released !== 1) throw new Bad(`reservation \`${reservation}\` is released \`${String(row.released)}\`, not 0 or 1`);
    return { cells: cells as [string, number, number][], released: row.released === 1 };
  }

  release(reservation: string, now: number): { ok: true } | { damaged: string } | { clockBehind: string } {
    return this.guard(() => {
      const r = this.cellsOf(reservation);
      // released already, or pruned once its periods ended: nothing to give back
      if (!r || r.released) return { ok: true as const };
      for (const [key, until, amount] of r.cells) {
        const used = this.used({ key, until });
        if (used !== undefined) this.sql.exec(`UPDATE counters SET used = ? WHERE key = ? AND until = ?`, subtractAmount(used, amount), key, until);
      }
      // Kept, released, until its periods end: a late `ran` counts it again (recount).
      this.sql.exec(`UPDATE reservation SET released = 1 WHERE id = ?`, reservation);
      this.prune(now);
      return { ok: true as const };
    }, now);
  }

  /** A released reservation counted again, past any ceiling: the call was reported `failed`, then `ran`. */
  recount(reservation: string, now: number): { counted: boolean } | { damaged: string } | { clockBehind: string } {
    return this.guard(() => {
      const r = this.cellsOf(reservation);
      if (!r || !r.released) return { counted: false };
      for (const [key, until, amount] of r.cells) this.setUsed(key, until, addAmounts(this.used({ key, until }) ?? 0, amount), now);
      this.sql.exec(`UPDATE reservation SET released = 0 WHERE id = ?`, reservation);
      this.prune(now);
      return { counted: true };
    }, now);
  }

  /** Bounded: a few of the rows that can no longer matter go with every write. */
  private prune(now: number): void {
    this.sql.exec(`DELETE FROM counters WHERE rowid IN (SELECT rowid FROM counters WHERE until != 0 AND until <= ? ORDER BY until LIMIT ?)`, now - GRACE_MS, RECLAIM_PER_OP);
    this.sql.exec(`DELETE FROM counters WHERE rowid IN (SELECT rowid FROM counters WHERE until = 0 AND touched <= ? ORDER BY touched LIMIT ?)`, now - IDLE_MS, RECLAIM_PER_OP);
    this.sql.exec(`DELETE FROM reservation WHERE id IN (SELECT id FROM reservation WHERE expires <= ? ORDER BY expires LIMIT ?)`, now, RECLAIM_PER_OP);
  }

  /** Rows held (the test routes; STORAGE.md's bound). */
  rows(): { counters: number; reservations: number } {
    const n = (t: string) => this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${t}`).one().n;
    return { counters: n("counters"), reservations: n("reservation") };
  }
}
