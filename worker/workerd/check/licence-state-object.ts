/**
 * One Durable Object per installation (`idFromName(installation_id)`) holding the check worker's
 * best renewed licence (layout in STORAGE.md; renewal.ts writes it, every isolate reads it at most
 * once a minute). It stores what it is given only if it ranks above what it holds — a higher
 * lease `seq`, or at the same `seq` a revocation — so isolates racing never move it backwards.
 * Nothing here is trusted: every reader verifies the documents against the build's key set and the
 * secret's installation before using them.
 */
import { DurableObject } from "cloudflare:workers";

export class LicenceStateObject extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS licence_state (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, revoked INTEGER NOT NULL, doc TEXT NOT NULL, updated_at INTEGER NOT NULL)`);
  }

  get(): string | null {
    const row = this.sql.exec<{ doc: string }>(`SELECT doc FROM licence_state WHERE id = 1`).toArray()[0];
    return row?.doc ?? null;
  }

  put(doc: string, seq: number, revoked: boolean): boolean {
    return this.ctx.storage.transactionSync(() => {
      const row = this.sql.exec<{ seq: number; revoked: number }>(`SELECT seq, revoked FROM licence_state WHERE id = 1`).toArray()[0];
      if (row && !(seq > row.seq || (seq === row.seq && revoked && !row.revoked))) return false;
      this.sql.exec(
        `INSERT INTO licence_state (id, seq, revoked, doc, updated_at) VALUES (1, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq, revoked = excluded.revoked, doc = excluded.doc, updated_at = excluded.updated_at`,
        seq,
        revoked ? 1 : 0,
        doc,
        Date.now(),
      );
      return true;
    });
  }
}
