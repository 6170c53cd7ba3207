/**
 * What every session-state and counter store shares, whatever holds the rows (memory.ts, the Node
 * store in cli/sdk/state/, the Durable Objects): input checks, the head comparison, tallies, and
 * when a row may be reclaimed. Plain functions of plain data; the clock is passed in.
 */
import { InputError, StalwartError } from "../errors.js";
import type { CounterItem, ReserveAnswer } from "../counters/store.js";
import type { Head, StateChange } from "./store.js";
import { addAmounts, overLimit } from "./amounts.js";

export { addAmounts, overLimit, subtractAmount } from "./amounts.js";

const DAY = 86_400_000;
/** Sessions, and counters whose period never ends (per session, per run), untouched this long are reclaimed. */
export const IDLE_MS = 30 * DAY;
/** A counter of an ended period is kept this long after its end (a late release finds it), then reclaimed. */
export const GRACE_MS = DAY;
/** At most this many expired rows are reclaimed per operation: O(1) each, and the backlog shrinks
 *  because no operation creates more than a few. */
export const RECLAIM_PER_OP = 16;

const LINK = /^[0-9a-f]{1,128}$/;
/** Sessions, names and reservation ids are keys of the durable stores: short enough for any of them (LMDB keys ≤ 1,978 bytes). */
const MAX_ID = 256;
const MAX_NAME = MAX_ID;

export function checkSession(session: unknown): string {
  if (typeof session !== "string" || session.length === 0 || session.length > MAX_ID) throw new InputError(`a session id must be a string of 1–${MAX_ID} characters`, "/session");
  return session;
}

export function checkHead(h: unknown, pointer: string): Head {
  if (typeof h !== "object" || h === null) throw new InputError("a head must be {count, link}", pointer);
  const { count, link } = h as { count?: unknown; link?: unknown };
  if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0) throw new InputError("a head's count must be a whole number ≥ 0", `${pointer}/count`);
  if (typeof link !== "string" || (count === 0 ? link !== "" : !LINK.test(link))) {
    throw new InputError(count === 0 ? "the head of an empty history has the link \"\"" : "a head's link must be lowercase hex", `${pointer}/link`);
  }
  return { count, link };
}

/** A validated copy of a change: the caller's object is never kept. */
export function checkChange(change: unknown): Required<{ expect: Head | "restart"; next: Head; spend: string[]; tally: [string, number][] }> {
  if (typeof change !== "object" || change === null) throw new InputError("a state change must be an object", "");
  const c = change as Partial<Record<keyof StateChange, unknown>>;
  const expect = c.expect === "restart" ? "restart" : checkHead(c.expect, "/expect");
  const next = checkHead(c.next, "/next");
  const spend: string[] = [];
  if (c.spend !== undefined) {
    if (!Array.isArray(c.spend)) throw new InputError("`spend` must be a list of names", "/spend");
    c.spend.forEach((n, i) => spend.push(checkName(n, `/spend/${i}`)));
  }
  const tally: [string, number][] = [];
  if (c.tally !== undefined) {
    if (typeof c.tally !== "object" || c.tally === null || Array.isArray(c.tally)) throw new InputError("`tally` must map names to numbers", "/tally");
    for (const name of Object.keys(c.tally)) {
      const d = (c.tally as Record<string, unknown>)[name];
      if (typeof d !== "number" || !Number.isFinite(d)) throw new InputError(`the tally delta of \`${name}\` must be a finite number`, `/tally/${name}`);
      tally.push([checkName(name, `/tally/${name}`), d]);
    }
  }
  return { expect, next, spend, tally };
}

function checkName(n: unknown, pointer: string): string {
  if (typeof n !== "string" || n.length === 0 || n.length > MAX_NAME) throw new InputError(`a name must be a string of 1–${MAX_NAME} characters`, pointer);
  return n;
}

/** `expect` holds against what is stored: "restart" always; a stored null only {count: 0}. */
export function headMatches(stored: Head | null, expect: Head | "restart"): boolean {
  if (expect === "restart") return true;
  if (stored === null) return expect.count === 0;
  return stored.count === expect.count && stored.link === expect.link;
}

/** The first name of `spend` that is spent already (or twice in the same change), else undefined. */
export function firstSpent(spend: readonly string[], isSpent: (name: string) => boolean): string | undefined {
  const seen = new Set<string>();
  for (const n of spend) {
    if (seen.has(n) || isSpent(n)) return n;
    seen.add(n);
  }
  return undefined;
}

/** Tallies plus deltas, never below 0, in an object without a prototype (names are data). */
export function addTallies(old: Readonly<Record<string, number>>, deltas: readonly [string, number][]): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  for (const k of Object.keys(old)) out[k] = old[k]!;
  for (const [k, d] of deltas) out[k] = Math.max(0, (Object.hasOwn(out, k) ? out[k]! : 0) + d);
  return out;
}

/**
 * `addTallies` over the pairs a row keeps, through a Map: names are data, and building an object
 * without a prototype key by key is what made a check's tallies dear (V8 keeps such objects as
 * dictionaries: ~0.4 µs a name, measured).
 */
export function addTallyPairs(old: readonly (readonly [string, number])[], deltas: readonly (readonly [string, number])[]): [string, number][] {
  const m = new Map<string, number>();
  for (const [k, n] of old) m.set(k, n);
  for (const [k, d] of deltas) m.set(k, Math.max(0, (m.get(k) ?? 0) + d));
  return [...m];
}

/** Pairs as a load hands them out: frozen (shared with whoever else is handed it), without a prototype. */
export function talliesOf(pairs: readonly (readonly [string, number])[]): Readonly<Record<string, number>> {
  const out: Record<string, number> = Object.create(null);
  for (const [k, n] of pairs) out[k] = n;
  return Object.freeze(out);
}

/** A count as stored: finite and ≥ 0; anything else means the store holds what nobody wrote. */
export function isCount(n: unknown): n is number {
  return typeof n === "number" && Number.isFinite(n) && n >= 0;
}

export function checkReservation(id: unknown): string {
  if (typeof id !== "string" || id.length === 0 || id.length > MAX_ID) throw new InputError(`a reservation id must be a string of 1–${MAX_ID} characters`, "/reservation");
  return id;
}

export function checkItems(items: unknown): CounterItem[] {
  if (!Array.isArray(items)) throw new InputError("counter items must be a list", "/items");
  return items.map((it: unknown, i) => {
    const o = (typeof it === "object" && it !== null ? it : {}) as Partial<Record<keyof CounterItem, unknown>>;
    if (typeof o.key !== "string" || o.key.length === 0 || o.key.length > 2048) throw new InputError("a counter key must be a non-empty string", `/items/${i}/key`);
    for (const f of ["amount", "limit", "until"] as const) {
      if (!isCount(o[f])) throw new InputError(`a counter item's \`${f}\` must be a finite number ≥ 0`, `/items/${i}/${f}`);
    }
    return { key: o.key, amount: o.amount as number, limit: o.limit as number, until: o.until as number };
  });
}

/** What an item's period has used: 0 once the period ended (a new period starts from zero). */
export function usedNow(stored: number | undefined, item: CounterItem, now: number): number {
  if (item.until !== 0 && now >= item.until) return 0;
  return stored ?? 0;
}

/**
 * All items fit under their limits, or the first that does not with what it used. `used` is what
 * the store holds for item k; two items of one cell (`cell`) in one reservation add up. Amounts
 * add up as the decimals they are written as (amounts.ts).
 */
export function fitsAll(
  items: readonly CounterItem[],
  used: (item: CounterItem, k: number) => number,
  cell: (item: CounterItem, k: number) => string = (it) => JSON.stringify([it.key, it.until]),
): ReserveAnswer {
  const pending = new Map<string, number>();
  for (let k = 0; k < items.length; k++) {
    const it = items[k]!;
    const c = cell(it, k);
    const had = pending.get(c);
    const u = had === undefined ? used(it, k) : addAmounts(used(it, k), had);
    if (overLimit(u, it.amount, it.limit)) return { ok: false, key: it.key, used: u, limit: it.limit };
    pending.set(c, had === undefined ? it.amount : addAmounts(had, it.amount));
  }
  return { ok: true };
}

/** When a counter row may go: a day after its period ends, or IDLE_MS after its last use. */
export function counterExpiry(until: number, touched: number): number {
  return until !== 0 ? until + GRACE_MS : touched + IDLE_MS;
}

/** When a reservation may go: once every period it counted in ended (nothing left to give back), else IDLE_MS after it was taken. */
export function reservationExpiry(items: readonly CounterItem[], now: number): number {
  if (items.length > 0 && items.every((i) => i.until !== 0)) return Math.max(...items.map((i) => i.until)) + GRACE_MS;
  return now + IDLE_MS;
}

/**
 * How far behind the latest time a counter store was given a clock may read before counting is
 * refused. Clocks step back a little (NTP, one isolate a few ms behind another); a counter row of
 * an ended period is kept GRACE_MS, so a call this late still counts in that period's row.
 */
export const CLOCK_SLACK_MS = 5_000;

/**
 * Refuse to count in a period the store has seen end. Periods are named by the clock, so a clock
 * set back a month would count in a month whose row is gone (or was never made), from zero: a
 * second ceiling. `latest` is the latest `now` the store was given by a write (its high-water
 * mark, kept with its rows); a store that never kept one passes -Infinity.
 */
export function checkClock(items: readonly CounterItem[], latest: number, now: number): void {
  for (const it of items) {
    if (it.until !== 0 && it.until <= latest - CLOCK_SLACK_MS) {
      throw new StalwartError(
        "ClockBehind",
        `the clock reads ${iso(now)}, but this counter store was already given ${iso(latest)}: counter \`${it.key}\`'s period ended at ${iso(it.until)}, and counting in it again would start it from zero (clock set back?)`,
        { hint: "set the clock right; the counters keep counting where they were" },
      );
    }
  }
}

/**
 * A session the store holds nothing for, met by a clock behind the latest time the store was given.
 * That later time may have reclaimed the session's row (its spent tokens and tallies with it, 30
 * idle days by that clock): starting it again by this clock could replay a token already used or
 * forget an `at_most`. A clock that ran ahead and was set right meets this too, as counting does.
 */
export function checkSessionClock(latest: number, now: number): void {
  if (now < latest - CLOCK_SLACK_MS) {
    throw new StalwartError(
      "ClockBehind",
      `the clock reads ${iso(now)}, but this session store was already given ${iso(latest)}: it keeps nothing for this session, and at that later time it may have reclaimed what it kept (spent tokens, \`at_most\` counts), so the session cannot start again by this clock (clock set back, or another process's clock ahead?)`,
      { hint: "set the clock right; `stalwart counters status` shows the latest time the home's store was given, and `stalwart counters reset` starts again" },
    );
  }
}

/** The store's high-water mark after a write at `now`. */
export function latestAfter(latest: number | undefined, now: number): number {
  return latest === undefined || now > latest ? now : latest;
}

function iso(ms: number): string {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString() : String(ms);
}
