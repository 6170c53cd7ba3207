/**
 * The Stores interface over Durable Object stubs: per tenant one catalogue object and one counter
 * object, per session one session-state object (STORAGE.md). Inputs are checked here, before
 * they cross to an object; an object's `{damaged}` or `{duplicate}` answer becomes the typed
 * error the engine expects (StoreDamaged, InputError), since an RPC error keeps only a message.
 */
import { InputError, StoreDamaged, stateRules, type SessionStateStore } from "../../portable/engine/index.js";
import type { CatalogueObject } from "./catalogue-object.js";
import type { CounterObject, CounterReply } from "./counter-object.js";
import type { LicenceStateObject } from "./licence-state-object.js";
import type { SessionStateObject } from "./session-state-object.js";
import type { LicenceStore } from "./renewal.js";
import type { ReserveAnswer, Stores } from "./stores.js";

const { checkChange, checkItems, checkReservation, checkSession } = stateRules;

export interface DurableEnv {
  CATALOGUES: DurableObjectNamespace<CatalogueObject>;
  COUNTERS: DurableObjectNamespace<CounterObject>;
  SESSIONS: DurableObjectNamespace<SessionStateObject>;
  /** optional: the renewed lease shared between isolates (renewal.ts); absent, none is shared */
  LICENCE_STATE?: DurableObjectNamespace<LicenceStateObject>;
}

/** The installation's licence state object, when the binding is there. */
export function durableLicenceStore(env: DurableEnv, installationId: string): LicenceStore | undefined {
  const ns = env.LICENCE_STATE;
  if (!ns) return undefined;
  const stub = ns.get(ns.idFromName(installationId));
  return {
    get: async () => (await stub.get()) ?? undefined,
    put: async (doc, seq, revoked) => void (await stub.put(doc, seq, revoked)),
  };
}

/** The name of a session's object: tenant and session, unambiguously. */
function sessionObjectName(tenant: string, session: string): string {
  return JSON.stringify([tenant, session]);
}

const RECOVER = "the object's storage holds what the worker never writes; delete the object's data (a new session starts) or restore it, and report it";

function counterAnswer(tenant: string, reply: CounterReply, id?: string): ReserveAnswer {
  if ("damaged" in reply) throw new StoreDamaged(`CounterObject ${tenant}`, reply.damaged, RECOVER);
  if ("duplicate" in reply) throw new InputError(`reservation \`${id}\` was taken already; an id names one history entry and is never reused`, "/reservation");
  return reply;
}

export function durableStores(env: DurableEnv): Stores {
  return {
    catalogues(tenant) {
      const stub = env.CATALOGUES.get(env.CATALOGUES.idFromName(tenant));
      return {
        put: async (c) => void (await stub.put(c)),
        byName: async (name) => await stub.byName(name),
        byDigest: async (digest) => await stub.byDigest(digest),
      };
    },
    counters(tenant) {
      // made at first use: every request's engine has a counter store, few checks call it
      let made: DurableObjectStub<CounterObject> | undefined;
      const stub = () => (made ??= env.COUNTERS.get(env.COUNTERS.idFromName(tenant)));
      return {
        reserve: async (id, items, now) => {
          const rid = checkReservation(id);
          return counterAnswer(tenant, await stub().reserve(rid, checkItems(items), now), rid);
        },
        peek: async (items, now) => counterAnswer(tenant, await stub().peek(checkItems(items), now)),
        release: async (id, now) => {
          const r = await stub().release(checkReservation(id), now);
          if ("damaged" in r) throw new StoreDamaged(`CounterObject ${tenant}`, r.damaged, RECOVER);
        },
        recount: async (id, now) => {
          const r = await stub().recount(checkReservation(id), now);
          if ("damaged" in r) throw new StoreDamaged(`CounterObject ${tenant}`, r.damaged, RECOVER);
          return r.counted;
        },
      };
    },
    state(tenant): SessionStateStore {
      // a check's load and commit name the same session: its stub is made once
      let last: { session: string; stub: DurableObjectStub<SessionStateObject> } | undefined;
      const stubOf = (session: string) => {
        if (last?.session !== session) last = { session, stub: env.SESSIONS.get(env.SESSIONS.idFromName(sessionObjectName(tenant, checkSession(session)))) };
        return last.stub;
      };
      return {
        async load(session) {
          const r = await stubOf(session).load();
          if ("damaged" in r) throw new StoreDamaged(`SessionStateObject ${sessionObjectName(tenant, session)}`, r.damaged, RECOVER);
          const tallies: Record<string, number> = Object.create(null);
          for (const [k, n] of r.tallies) if (typeof k === "string" && typeof n === "number") tallies[k] = n;
          return { head: r.head, spent: new Set(r.spent), tallies: Object.freeze(tallies) };
        },
        async commit(session, change) {
          const stub = stubOf(session);
          const r = await stub.commit(checkChange(change));
          if ("damaged" in r) throw new StoreDamaged(`SessionStateObject ${sessionObjectName(tenant, session)}`, r.damaged, RECOVER);
          return r;
        },
      };
    },
  };
}
