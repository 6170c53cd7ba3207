/**
 * The directory Durable Object (one instance, named `directory`): organisations, the licences
 * each holds, API keys (stored as SHA-256 hashes, shown once at creation) and the bundles served
 * to every licence. Storage layout: STORAGE.md.
 */
import { bundleDigest, BUNDLE_KINDS, isBundleKind, randomBytes, randomId, sha256Hex, toBase64Url } from "../../portable/licensing/index.js";
import type { DurableObjectStateLike, SqlStorageLike } from "./env.js";
import { ServiceError } from "./errors.js";
import { serveOps } from "./rpc.js";

export const DIRECTORY_NAME = "directory";

export interface KeyGrant {
  org_id: string;
  licence_id: string;
  prefix: string;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS orgs (id TEXT PRIMARY KEY, name TEXT NOT NULL, on_licence_lapse TEXT NOT NULL, created_at TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS licences (id TEXT PRIMARY KEY, org_id TEXT NOT NULL REFERENCES orgs(id), plan TEXT NOT NULL, created_at TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS api_keys (hash TEXT PRIMARY KEY, prefix TEXT NOT NULL, org_id TEXT NOT NULL, licence_id TEXT NOT NULL, label TEXT NOT NULL, created_at TEXT NOT NULL, revoked_at TEXT)`,
  `CREATE TABLE IF NOT EXISTS bundles (kind TEXT PRIMARY KEY, content TEXT NOT NULL, digest TEXT NOT NULL, updated_at TEXT NOT NULL)`,
];

/** What a bundle holds before anyone uploads one: an empty, valid document of its kind. */
function defaultBundle(kind: string): string {
  return JSON.stringify({ v: 1, kind, entries: [] });
}

export class DirectoryObject {
  private readonly sql: SqlStorageLike;

  constructor(ctx: DurableObjectStateLike, _env: unknown) {
    this.sql = ctx.storage.sql;
    for (const s of SCHEMA) this.sql.exec(s);
  }

  fetch(request: Request): Promise<Response> {
    return serveOps(request, {
      create_org: (a: { name: string; on_licence_lapse: string }) => {
        const id = randomId("org");
        this.sql.exec(`INSERT INTO orgs (id, name, on_licence_lapse, created_at) VALUES (?, ?, ?, ?)`, id, a.name, a.on_licence_lapse, new Date().toISOString());
        return { org_id: id };
      },
      get_org: (a: { org_id: string }) => this.org(a.org_id),
      add_licence: (a: { licence_id: string; org_id: string; plan: string }) => {
        this.org(a.org_id);
        this.sql.exec(`INSERT INTO licences (id, org_id, plan, created_at) VALUES (?, ?, ?, ?)`, a.licence_id, a.org_id, a.plan, new Date().toISOString());
        return { licence_id: a.licence_id };
      },
      create_key: async (a: { org_id: string; licence_id: string; label: string; live: boolean }) => {
        const rows = this.sql.exec(`SELECT id FROM licences WHERE id = ? AND org_id = ?`, a.licence_id, a.org_id).toArray();
        if (rows.length === 0) throw new ServiceError(404, "licence_unknown", `organisation \`${a.org_id}\` holds no licence \`${a.licence_id}\``, "/licence_id");
        const key = `${a.live ? "qls_live_" : "qls_test_"}${toBase64Url(randomBytes(24))}`;
        const prefix = key.slice(0, 13);
        this.sql.exec(
          `INSERT INTO api_keys (hash, prefix, org_id, licence_id, label, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
          await sha256Hex(key), prefix, a.org_id, a.licence_id, a.label, new Date().toISOString(),
        );
        return { api_key: key, prefix, org_id: a.org_id, licence_id: a.licence_id };
      },
      resolve_key: (a: { hash: string }) => {
        const rows = this.sql.exec<KeyGrant & { revoked_at: string | null }>(`SELECT org_id, licence_id, prefix, revoked_at FROM api_keys WHERE hash = ?`, a.hash).toArray();
        const row = rows[0];
        if (!row || row.revoked_at) return null;
        return { org_id: row.org_id, licence_id: row.licence_id, prefix: row.prefix } satisfies KeyGrant;
      },
      revoke_key: (a: { prefix: string }) => {
        this.sql.exec(`UPDATE api_keys SET revoked_at = ? WHERE prefix = ? AND revoked_at IS NULL`, new Date().toISOString(), a.prefix);
        return { revoked: true };
      },
      put_bundle: async (a: { kind: string; content: string }) => {
        if (!isBundleKind(a.kind)) throw new ServiceError(404, "unknown_bundle_kind", `no bundle kind \`${a.kind}\``);
        const digest = await bundleDigest(new TextEncoder().encode(a.content));
        this.sql.exec(
          `INSERT INTO bundles (kind, content, digest, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(kind) DO UPDATE SET content = excluded.content, digest = excluded.digest, updated_at = excluded.updated_at`,
          a.kind, a.content, digest, new Date().toISOString(),
        );
        return { kind: a.kind, digest };
      },
      get_bundle: async (a: { kind: string }) => this.bundle(a.kind),
      bundle_digests: async () => {
        const out: Record<string, string> = {};
        for (const kind of BUNDLE_KINDS) out[kind] = (await this.bundle(kind)).digest;
        return out;
      },
    });
  }

  private org(id: string): { org_id: string; name: string; on_licence_lapse: string } {
    const row = this.sql.exec<{ id: string; name: string; on_licence_lapse: string }>(`SELECT id, name, on_licence_lapse FROM orgs WHERE id = ?`, id).toArray()[0];
    if (!row) throw new ServiceError(404, "org_unknown", `no organisation \`${id}\``, "/org_id");
    return { org_id: row.id, name: row.name, on_licence_lapse: row.on_licence_lapse };
  }

  private async bundle(kind: string): Promise<{ kind: string; content: string; digest: string }> {
    const row = this.sql.exec<{ content: string; digest: string }>(`SELECT content, digest FROM bundles WHERE kind = ?`, kind).toArray()[0];
    if (row) return { kind, content: row.content, digest: row.digest };
    const content = defaultBundle(kind);
    return { kind, content, digest: await bundleDigest(new TextEncoder().encode(content)) };
  }
}
