/**
 * One Durable Object per tenant holding its rate-limit and spend counters (layout in STORAGE.md).
 * A reservation checks every item and writes them all inside one synchronous SQL transaction:
 * the object runs one call at a time and nothing awaits in between, so any number of worker
 * instances share one ceiling and concurrent calls can never overshoot it.
 */
import { DurableObject } from "cloudflare:workers";
import type { CounterItem, ReserveAnswer } from "./stores.js";

export class CounterObject extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS counters (key TEXT NOT NULL, until INTEGER NOT NULL, used REAL NOT NULL, PRIMARY KEY (key, until))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS reservations (id TEXT NOT NULL, key TEXT NOT NULL, until INTEGER NOT NULL, amount REAL NOT NULL)`);
    this.sql.exec(`CREATE INDEX IF NOT EXISTS reservations_id ON reservations (id)`);
  }

  private used(key: string, until: number): number {
    const row = this.sql.exec<{ used: number }>(`SELECT used FROM counters WHERE key = ? AND until = ?`, key, until).toArray()[0];
    return row?.used ?? 0;
  }

  private fits(items: CounterItem[], now: number): ReserveAnswer {
    for (const it of items) {
      const used = it.until !== 0 && now >= it.until ? 0 : this.used(it.key, it.until);
      if (used + it.amount > it.limit) return { ok: false, key: it.key, used, limit: it.limit };
    }
    return { ok: true };
  }

  reserve(reservation: string, items: CounterItem[], now: number): ReserveAnswer {
    return this.ctx.storage.transactionSync(() => {
      const answer = this.fits(items, now);
      if (!answer.ok) return answer;
      for (const it of items) {
        this.sql.exec(`INSERT INTO counters (key, until, used) VALUES (?, ?, ?) ON CONFLICT(key, until) DO UPDATE SET used = used + excluded.used`, it.key, it.until, it.amount);
        this.sql.exec(`INSERT INTO reservations (id, key, until, amount) VALUES (?, ?, ?, ?)`, reservation, it.key, it.until, it.amount);
      }
      // Periods that ended are dead weight.
      this.sql.exec(`DELETE FROM counters WHERE until != 0 AND until <= ?`, now - 86_400_000 * 62);
      return answer;
    });
  }

  peek(items: CounterItem[], now: number): ReserveAnswer {
    return this.fits(items, now);
  }

  release(reservation: string, _now: number): void {
    this.ctx.storage.transactionSync(() => {
      const rows = this.sql.exec<{ key: string; until: number; amount: number }>(`SELECT key, until, amount FROM reservations WHERE id = ?`, reservation).toArray();
      for (const r of rows) this.sql.exec(`UPDATE counters SET used = MAX(0, used - ?) WHERE key = ? AND until = ?`, r.amount, r.key, r.until);
      this.sql.exec(`DELETE FROM reservations WHERE id = ?`, reservation);
    });
  }
}
