/**
 * One Durable Object per tenant holding its catalogues (layout in STORAGE.md). SQLite-backed;
 * every method is a single synchronous SQL transaction, so there is no interleaving to reason about.
 */
import { DurableObject } from "cloudflare:workers";
import type { StoredCatalogue } from "./stores.js";

export class CatalogueObject extends DurableObject {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env as never);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS catalogue_versions (digest TEXT PRIMARY KEY, name TEXT NOT NULL, yaml TEXT NOT NULL, created_at INTEGER NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS catalogue_names (name TEXT PRIMARY KEY, digest TEXT NOT NULL REFERENCES catalogue_versions(digest), updated_at INTEGER NOT NULL)`);
  }

  put(c: StoredCatalogue): void {
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(`INSERT OR IGNORE INTO catalogue_versions (digest, name, yaml, created_at) VALUES (?, ?, ?, ?)`, c.digest, c.name, c.yaml, now);
      this.sql.exec(`INSERT INTO catalogue_names (name, digest, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET digest = excluded.digest, updated_at = excluded.updated_at`, c.name, c.digest, now);
    });
  }

  byName(name: string): StoredCatalogue | null {
    const rows = this.sql.exec<{ name: string; digest: string; yaml: string }>(`SELECT n.name AS name, v.digest AS digest, v.yaml AS yaml FROM catalogue_names n JOIN catalogue_versions v ON v.digest = n.digest WHERE n.name = ?`, name).toArray();
    return rows[0] ? { name: rows[0].name, digest: rows[0].digest, yaml: rows[0].yaml } : null;
  }

  byDigest(digest: string): StoredCatalogue | null {
    const rows = this.sql.exec<{ name: string; digest: string; yaml: string }>(`SELECT name, digest, yaml FROM catalogue_versions WHERE digest = ?`, digest).toArray();
    return rows[0] ? { name: rows[0].name, digest: rows[0].digest, yaml: rows[0].yaml } : null;
  }
}
