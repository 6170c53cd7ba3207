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

import type { CounterItem, ReserveAnswer } from "../engine/counters/store.js";
export type { CounterItem, ReserveAnswer } from "../engine/counters/store.js";

export interface CounterStore {
  /** All items or none, atomically; `reservation` names it for a later release. */
  reserve(reservation: string, items: CounterItem[], now: number): Promise<ReserveAnswer>;
  /** Would these fit now? (no change) */
  peek(items: CounterItem[], now: number): Promise<ReserveAnswer>;
  /** Give back what `reservation` took (the caller reported `failed`). Idempotent. */
  release(reservation: string): Promise<void>;
}

export interface Stores {
  catalogues(tenant: string): CatalogueStore;
  counters(tenant: string): CounterStore;
}

/** In-memory stores for route tests and single-process use. */
export function memoryStores(): Stores {
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
      if (!c) counters.set(tenant, (c = memoryCounters()));
      return c;
    },
  };
}

export function memoryCounters(): CounterStore {
  const used = new Map<string, { used: number; until: number }>();
  const reservations = new Map<string, { key: string; amount: number; until: number }[]>();
  const current = (key: string, until: number, now: number) => {
    const c = used.get(key);
    if (!c || (c.until !== 0 && now >= c.until) || c.until !== until) return 0;
    return c.used;
  };
  const fits = (items: CounterItem[], now: number): ReserveAnswer => {
    for (const it of items) {
      const u = current(it.key, it.until, now);
      if (u + it.amount > it.limit) return { ok: false, key: it.key, used: u, limit: it.limit };
    }
    return { ok: true };
  };
  return {
    async reserve(reservation, items, now) {
      const answer = fits(items, now);
      if (!answer.ok) return answer;
      for (const it of items) used.set(it.key, { used: current(it.key, it.until, now) + it.amount, until: it.until });
      reservations.set(reservation, items.map((i) => ({ key: i.key, amount: i.amount, until: i.until })));
      return answer;
    },
    async peek(items, now) {
      return fits(items, now);
    },
    async release(reservation) {
      const items = reservations.get(reservation);
      if (!items) return;
      reservations.delete(reservation);
      for (const it of items) {
        const c = used.get(it.key);
        if (c && c.until === it.until) c.used = Math.max(0, c.used - it.amount);
      }
    },
  };
}
