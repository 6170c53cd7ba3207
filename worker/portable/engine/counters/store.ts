/**
 * The counter store behind step 7's rate limits and spend ceilings: one interface, held in memory
 * (state/memory.ts), under the client's home (cli/sdk/state/, one LMDB store with the session
 * state, atomic across processes) or in the tenant's Durable Object in the check worker. A
 * reservation is all-or-nothing and atomic; its id is the link of the history entry that took it,
 * so an id already present is an input error (never "the same call asked twice"); a `failed`
 * report releases it, and releasing an id that is not there gives nothing back. Fail closed: a
 * store that cannot answer, or is damaged (state/damaged.ts), makes the check refuse
 * (`usage_unknown` / `spend_unknown`).
 */
export interface CounterItem {
  key: string;
  amount: number;
  limit: number;
  /** ms since epoch when the period's count resets; 0 = never */
  until: number;
}

export type ReserveAnswer = { ok: true } | { ok: false; key: string; used: number; limit: number };

export interface CounterStore {
  reserve(reservation: string, items: CounterItem[], now: number): Promise<ReserveAnswer> | ReserveAnswer;
  peek(items: CounterItem[], now: number): Promise<ReserveAnswer> | ReserveAnswer;
  release(reservation: string, now: number): Promise<void> | void;
  /**
   * Count a released reservation again, past any ceiling: the call it names was reported
   * `failed`, then `ran` — it happened. False when there is nothing released under that id.
   */
  recount?(reservation: string, now: number): Promise<boolean> | boolean;
}
