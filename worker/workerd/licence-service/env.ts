/**
 * The bindings of the licence-service worker (wrangler.licence.toml) and the few Workers types it
 * uses, declared structurally so the same code type-checks without @cloudflare/workers-types and
 * the Hono app can run in Node against Miniflare's bindings in tests.
 */
interface DurableObjectStubLike {
  fetch(input: string, init?: RequestInit): Promise<Response>;
}

export interface DurableObjectNamespaceLike {
  idFromName(name: string): unknown;
  get(id: unknown): DurableObjectStubLike;
}

export interface Env {
  /** One Durable Object per licence: seats, leases, nonces, usage. */
  LICENCES: DurableObjectNamespaceLike;
  /** One Durable Object (`directory`): organisations, API keys, bundles. */
  DIRECTORY: DurableObjectNamespaceLike;
  /** Secret: JSON array of `{kid, secret}`; the first signs, all are published. */
  LICENCE_SIGNING_KEYS?: string;
  /** Secret: JSON array of extra public keys still published (rotation overlap), optional. */
  LICENCE_EXTRA_PUBLIC_KEYS?: string;
  /** Secret: bearer token of the `/admin/*` routes. Unset: the admin routes answer 403. */
  LICENCE_ADMIN_SECRET?: string;
}

/** The SQLite storage API of a SQLite-backed Durable Object (what we use of it). */
export interface SqlCursor<T> {
  toArray(): T[];
  one(): T;
}
export interface SqlStorageLike {
  exec<T = Record<string, unknown>>(query: string, ...bindings: unknown[]): SqlCursor<T>;
}
export interface DurableObjectStateLike {
  storage: {
    sql: SqlStorageLike;
    transactionSync<T>(fn: () => T): T;
  };
}
