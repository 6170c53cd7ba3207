/**
 * The in-process counter store: the table lives in the WASM core's memory (assembly/counters.ts);
 * reservations are remembered here so a `failed` report gives back exactly what was taken. Every
 * change is handed to `persist` before the answer returns, so a restart loses nothing (Node glue:
 * cli/sdk/counters-node.ts). Single-threaded JS makes fits-then-add atomic: nothing runs in between.
 */
import { utf8 } from "../canonical/bytes.js";
import type { CounterCore } from "../wasm/core.js";
import type { CounterItem, CounterStore, ReserveAnswer } from "./store.js";

export interface LocalState {
  table: Uint8Array;
  reservations: Record<string, CounterItem[]>;
}

export class LocalCounterStore implements CounterStore {
  private reservations: Record<string, CounterItem[]>;

  constructor(
    private readonly core: CounterCore,
    private readonly sha256: (b: Uint8Array) => Uint8Array,
    private readonly persist: (state: LocalState) => void,
    restored?: LocalState,
  ) {
    if (restored) core.counterRestore(restored.table);
    this.reservations = restored ? { ...restored.reservations } : {};
  }

  private cells(items: readonly CounterItem[]) {
    return items.map((i) => ({ digest: this.sha256(utf8(i.key)), until: i.until, amount: i.amount, limit: i.limit }));
  }

  private answer(items: readonly CounterItem[], cells: ReturnType<LocalCounterStore["cells"]>, now: number): ReserveAnswer {
    const k = this.core.counterFits(cells, now);
    if (k < 0) return { ok: true };
    return { ok: false, key: items[k]!.key, used: this.core.counterUsed(cells, k, now), limit: items[k]!.limit };
  }

  reserve(reservation: string, items: CounterItem[], now: number): ReserveAnswer {
    if (this.reservations[reservation]) return { ok: true }; // the same call asked twice
    const cells = this.cells(items);
    const a = this.answer(items, cells, now);
    if (!a.ok) return a;
    if (!this.core.counterAdd(cells, now, 1)) throw new Error("the counter table is full");
    this.reservations[reservation] = items;
    this.save(now);
    return a;
  }

  peek(items: CounterItem[], now: number): ReserveAnswer {
    return this.answer(items, this.cells(items), now);
  }

  release(reservation: string, now: number): void {
    const items = this.reservations[reservation];
    if (!items) return;
    // Released in the period it was taken (items carry their own `until`); an ended period is gone anyway.
    this.core.counterAdd(this.cells(items), 0, -1);
    delete this.reservations[reservation];
    this.released.set(reservation, items);
    this.save(now);
  }

  /** Released reservations of this process, for a late `ran` (recount). */
  private readonly released = new Map<string, CounterItem[]>();

  recount(reservation: string, now: number): boolean {
    const items = this.released.get(reservation);
    if (!items) return false;
    this.released.delete(reservation);
    this.core.counterAdd(this.cells(items), now, 1);
    this.reservations[reservation] = items;
    this.save(now);
    return true;
  }

  private save(now: number): void {
    // Reservations whose periods all ended can never be released into anything: drop them.
    // `now` is the check's injected clock: the wall clock here made answers depend on the day.
    for (const [id, items] of Object.entries(this.reservations)) {
      if (items.every((i) => i.until !== 0 && i.until < now - 86_400_000)) delete this.reservations[id];
    }
    this.persist({ table: this.core.counterSnapshot(), reservations: this.reservations });
  }
}
