/**
 * The licence service inside this Node process, for `stalwart licence dev`: the same Hono app and
 * the same two Durable Object classes the licence worker deploys (worker/workerd/licence-service/),
 * each object on its own in-memory SQLite database (SQLite's own WebAssembly build, the engine a
 * SQLite-backed Durable Object runs on), reached through a `fetch` that never leaves the process.
 * Nothing is kept: the service lives as long as the command that started it.
 *
 * Requests are answered one at a time, as a Durable Object answers them (the command sends them
 * one after another; nothing else can reach this service).
 */
import sqlite3InitModule from "@sqlite.org/sqlite-wasm";
import { DirectoryObject, LicenceObject, default as app } from "../../worker/workerd/licence-service/index.js";
import type { DurableObjectNamespaceLike, DurableObjectStateLike, Env, SqlCursor } from "../../worker/workerd/licence-service/env.js";
import { devSigningKey, randomBytes, StalwartError, toBase64Url } from "../../worker/portable/licensing/index.js";
import { DEV_SERVICE_URL } from "./service.js";

export interface DevService {
  /** A `fetch` for `ServiceClient`: any URL, answered by the app by its path. */
  fetch: typeof fetch;
  /** An admin route, with the service's admin secret (which never leaves this process). */
  admin<T>(method: string, path: string, body: unknown): Promise<T>;
  dispose(): void;
}

type Sqlite = Awaited<ReturnType<typeof sqlite3InitModule>>;
type Db = InstanceType<Sqlite["oo1"]["DB"]>;

/** A binding as SQLite takes it (a Durable Object's `sql.exec` takes booleans and `undefined` too). */
function bindable(v: unknown): string | number | bigint | null | Uint8Array {
  if (v === undefined || v === null) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string" || typeof v === "number" || typeof v === "bigint" || v instanceof Uint8Array) return v;
  throw new TypeError(`cannot bind a ${typeof v} to SQLite`);
}

/** A Durable Object's `ctx.storage` (what the objects use of it) over one SQLite database. */
function storageOf(db: Db): DurableObjectStateLike {
  return {
    storage: {
      sql: {
        exec<T>(query: string, ...bindings: unknown[]): SqlCursor<T> {
          const result = bindings.length > 0
            ? db.exec({ sql: query, bind: bindings.map(bindable), rowMode: "object", returnValue: "resultRows" })
            : db.exec({ sql: query, rowMode: "object", returnValue: "resultRows" });
          const rows = result.map((r) => ({ ...r }) as T);
          return {
            toArray: () => rows,
            one: () => {
              const [row] = rows;
              if (rows.length !== 1 || row === undefined) throw new Error(`expected exactly one row, got ${rows.length}`);
              return row;
            },
          };
        },
      },
      transactionSync<T>(fn: () => T): T {
        db.exec("SAVEPOINT tx");
        try {
          const r = fn();
          db.exec("RELEASE tx");
          return r;
        } catch (err) {
          db.exec("ROLLBACK TO tx");
          db.exec("RELEASE tx");
          throw err;
        }
      },
    },
  };
}

interface ObjectLike {
  fetch(request: Request): Promise<Response>;
}

/** A Durable Object namespace: one object (and one database) per name, made on first use. */
function namespace(sqlite: Sqlite, dbs: Db[], make: (state: DurableObjectStateLike) => ObjectLike): DurableObjectNamespaceLike {
  const objects = new Map<string, ObjectLike>();
  let queue: Promise<unknown> = Promise.resolve();
  return {
    idFromName: (name: string) => name,
    get: (id: unknown) => ({
      fetch: (input: string, init?: RequestInit) => {
        const name = String(id);
        const answer = queue.then(() => {
          let o = objects.get(name);
          if (!o) {
            const db = new sqlite.oo1.DB(":memory:");
            dbs.push(db);
            o = make(storageOf(db));
            objects.set(name, o);
          }
          return o.fetch(new Request(input, init));
        });
        queue = answer.catch(() => undefined);
        return answer;
      },
    }),
  };
}

/** Start the service, signing with the dev key `kid` (its secret derives from a published phrase). */
export async function startDevService(kid: string): Promise<DevService> {
  const sqlite = await sqlite3InitModule({ print: () => {}, printErr: () => {} });
  const dbs: Db[] = [];
  const adminSecret = toBase64Url(randomBytes(24));
  const env: Env = {
    LICENCE_SIGNING_KEYS: JSON.stringify([await devSigningKey(kid)]),
    LICENCE_ADMIN_SECRET: adminSecret,
    LICENCES: namespace(sqlite, dbs, (state) => new LicenceObject(state, env)),
    DIRECTORY: namespace(sqlite, dbs, (state) => new DirectoryObject(state, env)),
  };
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    // routed by path alone, on a URL Hono reads as any other
    return app.request(new Request(`http://licence.invalid${url.pathname}${url.search}`, init), undefined, env);
  }) as typeof fetch;
  return {
    fetch: fetchImpl,
    async admin<T>(method: string, path: string, body: unknown): Promise<T> {
      const res = await fetchImpl(`${DEV_SERVICE_URL}${path}`, { method, headers: { authorization: `Bearer ${adminSecret}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      const payload = (await res.json()) as T & { error?: { code?: string; message?: string } };
      if (!res.ok) throw new StalwartError("DevLicenceFailed", `the in-process licence service answered ${res.status} to ${method} ${path}: ${payload.error?.code ?? "error"}: ${payload.error?.message ?? ""}`);
      return payload;
    },
    dispose() {
      for (const db of dbs.splice(0)) db.close();
    },
  };
}
