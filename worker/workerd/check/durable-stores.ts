/**
 * The Stores interface over Durable Object stubs: per tenant one catalogue object and one counter
 * object, per session one session-state object (STORAGE.md; the session state store is
 * session-states.ts). Inputs are checked here, before
 * they cross to an object; an object's `{damaged}` or `{duplicate}` answer becomes the typed
 * error the engine expects (StoreDamaged, InputError), since an RPC error keeps only a message.
 */
import { InputError, ReservationTaken, StalwartError, StoreDamaged, stateRules, type SessionStateStore } from "../../portable/engine/index.js";
import type { CatalogueObject } from "./catalogue-object.js";
import type { CounterObject, CounterReply } from "./counter-object.js";
import type { LicenceStateObject } from "./licence-state-object.js";
import type { SessionStateObject } from "./session-state-object.js";
import type { LicenceStore } from "./renewal.js";
import type { ReserveAnswer, Stores } from "./stores.js";
import { KeptStates } from "./kept-states.js";
import { sessionStates } from "./session-states.js";

const { checkItems, checkReservation } = stateRules;

/** Per session object namespace (one per isolate in practice): the states held (kept-states.ts). */
const keptByNamespace = new WeakMap<object, KeptStates>();
function keptOf(ns: object): KeptStates {
  let k = keptByNamespace.get(ns);
  if (!k) keptByNamespace.set(ns, (k = new KeptStates()));
  return k;
}

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

const RECOVER = "the object's storage holds what the worker never writes; delete the object's data (a new session starts) or restore it, and report it";

function counterAnswer(tenant: string, reply: CounterReply, id?: string): ReserveAnswer {
  if ("damaged" in reply) throw new StoreDamaged(`CounterObject ${tenant}`, reply.damaged, RECOVER);
  if ("clockBehind" in reply) throw new StalwartError("ClockBehind", reply.clockBehind);
  if ("duplicate" in reply) throw new ReservationTaken(String(id));
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
          if ("clockBehind" in r) throw new StalwartError("ClockBehind", r.clockBehind);
        },
        recount: async (id, now) => {
          const r = await stub().recount(checkReservation(id), now);
          if ("damaged" in r) throw new StoreDamaged(`CounterObject ${tenant}`, r.damaged, RECOVER);
          if ("clockBehind" in r) throw new StalwartError("ClockBehind", r.clockBehind);
          return r.counted;
        },
      };
    },
    state(tenant, carried): SessionStateStore {
      return sessionStates(tenant, (name) => env.SESSIONS.get(env.SESSIONS.idFromName(name)), keptOf(env.SESSIONS), RECOVER, carried);
    },
  };
}
