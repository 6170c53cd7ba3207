/** The Stores interface over Durable Object stubs: one catalogue object and one counter object per tenant. */
import type { CatalogueObject } from "./catalogue-object.js";
import type { CounterObject } from "./counter-object.js";
import type { LicenceStateObject } from "./licence-state-object.js";
import type { LicenceStore } from "./renewal.js";
import type { Stores } from "./stores.js";

export interface DurableEnv {
  CATALOGUES: DurableObjectNamespace<CatalogueObject>;
  COUNTERS: DurableObjectNamespace<CounterObject>;
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
      const stub = env.COUNTERS.get(env.COUNTERS.idFromName(tenant));
      return {
        reserve: async (id, items, now) => await stub.reserve(id, items, now),
        peek: async (items, now) => await stub.peek(items, now),
        release: async (id, now) => void (await stub.release(id, now)),
      };
    },
  };
}
