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
    // a rulebook's format (`yaml` / `csv`, NULL for catalogues and for rulebooks stored before it was kept)
    if (!this.sql.exec<{ name: string }>(`PRAGMA table_info(catalogue_versions)`).toArray().some((c) => c.name === "format")) {
      this.sql.exec(`ALTER TABLE catalogue_versions ADD COLUMN format TEXT`);
    }
    this.sql.exec(`CREATE TABLE IF NOT EXISTS catalogue_names (name TEXT PRIMARY KEY, digest TEXT NOT NULL REFERENCES catalogue_versions(digest), updated_at INTEGER NOT NULL)`);
  }

  put(c: StoredCatalogue): void {
    const now = Date.now();
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(`INSERT OR IGNORE INTO catalogue_versions (digest, name, yaml, created_at, format) VALUES (?, ?, ?, ?, ?)`, c.digest, c.name, c.yaml, now, c.format ?? null);
      this.sql.exec(`INSERT INTO catalogue_names (name, digest, updated_at) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET digest = excluded.digest, updated_at = excluded.updated_at`, c.name, c.digest, now);
    });
  }

  byName(name: string): StoredCatalogue | null {
    return stored(this.sql.exec<Row>(`SELECT n.name AS name, v.digest AS digest, v.yaml AS yaml, v.format AS format FROM catalogue_names n JOIN catalogue_versions v ON v.digest = n.digest WHERE n.name = ?`, name).toArray()[0]);
  }

  byDigest(digest: string): StoredCatalogue | null {
    return stored(this.sql.exec<Row>(`SELECT name, digest, yaml, format FROM catalogue_versions WHERE digest = ?`, digest).toArray()[0]);
  }
}

type Row = { name: string; digest: string; yaml: string; format: string | null };

function stored(row: Row | undefined): StoredCatalogue | null {
  if (!row) return null;
  const { name, digest, yaml, format } = row;
  // any other value is not ours to guess about: fail closed as an unreadable row
  if (format !== null && format !== "yaml" && format !== "csv") throw new Error(`the stored format of \`${name}\` is \`${format}\`, neither yaml nor csv`);
  return { name, digest, yaml, ...(format ? { format } : {}) };
}
