/**
 * A pending record's counters, before → after (issue 12): what each counter the call touches has
 * used now, and what it would have used had the call run. Read through the counter store's own
 * `peek`, whose refusal answers with what the counter used: peeking one unit against a ceiling of
 * 0 never fits, so every store (memory, the home's, the tenant's Durable Object) answers the
 * count with no read method added to its interface.
 */
import { spendAmount } from "../check/spend-amount.js";
import type { CompiledCatalogue } from "../catalogue/types.js";
import type { CounterItem, CounterStore } from "../counters/store.js";
import { periodWindow } from "../counters/periods.js";
import { own } from "../canonical/own.js";
import type { PendingRecord } from "./record.js";

/** The step of the person's last turn (a `run` period is what follows it), -1 before any. */
export function lastRun(entries: readonly { readonly kind?: unknown; readonly step?: unknown }[]): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === "turn" && typeof e.step === "number" && Number.isSafeInteger(e.step)) return e.step;
  }
  return -1;
}

/**
 * The counter each of `counterEffects`' entries names, in the same order, keyed exactly as step 7
 * keys them (check/steps/limits.ts); null where nothing is counted (a per-call ceiling).
 */
function counterItems(catalogue: CompiledCatalogue, r: PendingRecord, run: number): (CounterItem | null)[] {
  const t = catalogue.tools.get(r.tool);
  if (!t) return [];
  const out: (CounterItem | null)[] = [];
  for (const s of t.spend) {
    const amount = spendAmount(r.args, s.field);
    if (amount === undefined) continue;
    if (s.per === "call") {
      out.push(null);
      continue;
    }
    const w = periodWindow(s.per, r.created, r.session, run);
    out.push({ key: `spend|${s.pool ?? t.name}|${t.currency ?? ""}|${s.per}|${w.id}`, amount, limit: s.atMost, until: w.until });
  }
  for (const l of t.rateLimits) {
    if (l.per === "call") {
      out.push(null);
      continue;
    }
    const w = periodWindow(l.per, r.created, r.session, run);
    out.push({ key: `rate|${t.name}|${l.per}|${w.id}`, amount: 1, limit: l.count, until: w.until });
  }
  return out;
}

/** What a counter has used at `now`: its peek of one unit under a ceiling of 0 says. */
async function usedOf(store: CounterStore, item: CounterItem, now: number): Promise<number | null> {
  const answer = await store.peek([{ ...item, amount: 1, limit: 0 }], now);
  return answer.ok ? null : answer.used;
}

/**
 * The record with each counter's before → after filled in. A store that cannot answer leaves
 * them unknown (null): the record is for a person to read, the check itself already decided.
 */
export async function withCounts(record: PendingRecord, store: CounterStore | undefined, catalogue: CompiledCatalogue, run: number): Promise<PendingRecord> {
  if (!store || record.counters.length === 0) return record;
  const items = counterItems(catalogue, record, run);
  const counters = await Promise.all(record.counters.map(async (c, i) => {
    const item = items[i];
    if (!item) return c;
    try {
      const before = await usedOf(store, item, record.created);
      return before === null ? c : { ...c, before, after: before + c.adds };
    } catch {
      return c;
    }
  }));
  return { ...record, counters };
}
