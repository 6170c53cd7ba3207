/**
 * Where the check worker keeps state, behind two small interfaces so routes can be tested with
 * `app.request()` against in-memory stores and run for real against Durable Objects
 * (catalogue-object.ts, counter-object.ts). History is never stored: the caller carries it.
 */
export interface StoredCatalogue {
  name: string;
  digest: string;
  yaml: string;
}

export interface CatalogueStore {
  put(c: StoredCatalogue): Promise<void>;
  byName(name: string): Promise<StoredCatalogue | null>;
  byDigest(digest: string): Promise<StoredCatalogue | null>;
}

import type { CounterStore } from "../../portable/engine/index.js";
export type { CounterItem, CounterStore, ReserveAnswer } from "../../portable/engine/index.js";

export interface Stores {
  catalogues(tenant: string): CatalogueStore;
  counters(tenant: string): CounterStore;
}

/**
 * In-memory catalogue stores for route tests and single-process use; counters come from the
 * factory given (tests pass the in-process WASM counter table, the same one the SDK uses).
 */
export function memoryStores(makeCounters: () => CounterStore): Stores {
  const cats = new Map<string, Map<string, StoredCatalogue>>();
  const counters = new Map<string, CounterStore>();
  return {
    catalogues(tenant) {
      let byKey = cats.get(tenant);
      if (!byKey) cats.set(tenant, (byKey = new Map()));
      const m = byKey;
      return {
        async put(c) {
          m.set(`name:${c.name}`, c);
          m.set(`digest:${c.digest}`, c);
        },
        async byName(name) {
          return m.get(`name:${name}`) ?? null;
        },
        async byDigest(digest) {
          return m.get(`digest:${digest}`) ?? null;
        },
      };
    },
    counters(tenant) {
      let c = counters.get(tenant);
      if (!c) counters.set(tenant, (c = makeCounters()));
      return c;
    },
  };
}
