/**
 * Where the check worker keeps state, behind small interfaces so routes can be tested with
 * `app.request()` against in-memory stores and run for real against Durable Objects
 * (catalogue-object.ts, counter-object.ts, session-state-object.ts; STORAGE.md). History is never
 * stored: the caller carries it; the worker keeps each session's newest head and spent names.
 */
export interface StoredCatalogue {
  name: string;
  digest: string;
  yaml: string;
  /**
   * a rulebook's format, as it was uploaded (`text/csv` or a YAML type): its text is compiled so
   * again. Absent on rulebooks stored before it was kept: their text's first line decides.
   */
  format?: "yaml" | "csv";
}

interface CatalogueStore {
  put(c: StoredCatalogue): Promise<void>;
  byName(name: string): Promise<StoredCatalogue | null>;
  byDigest(digest: string): Promise<StoredCatalogue | null>;
}

import type { CounterStore, Head, SessionStateStore } from "../../portable/engine/index.js";
export type {  CounterStore, ReserveAnswer, SessionStateStore } from "../../portable/engine/index.js";

export interface Stores {
  catalogues(tenant: string): CatalogueStore;
  counters(tenant: string): CounterStore;
  /**
   * the tenant's session state: one Durable Object per session behind it (durable-stores.ts).
   * `carried`: the head of the history a request carries for a session, if it carries one — a
   * store may answer a load from what it holds at that head (kept-states.ts)
   */
  state(tenant: string, carried?: (session: string) => Head | undefined): SessionStateStore;
}

/**
 * In-memory stores for route tests and single-process use. Counters and session state come from
 * the factory given, one per tenant (tests pass the engine's MemoryStateStore, which is both).
 */
export function memoryStores(makeState: () => CounterStore & SessionStateStore): Stores {
  const cats = new Map<string, Map<string, StoredCatalogue>>();
  const states = new Map<string, CounterStore & SessionStateStore>();
  const of = (tenant: string) => {
    let c = states.get(tenant);
    if (!c) states.set(tenant, (c = makeState()));
    return c;
  };
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
    counters: of,
    state: of,
  };
}
