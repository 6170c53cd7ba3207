/**
 * The rows of the Node store (layout in STORAGE.md) and their checks. Every row read is checked
 * before it is used: a value nobody wrote (NaN, a string where a count belongs, a missing field)
 * is `Garbage`, which the store turns into StoreDamaged — never a zero.
 */
import { sha256Hex, stateRules, type CounterItem, type Head } from "../../../worker/portable/engine/index.js";

const { isCount } = stateRules;

/**
 * Something in the store is not what it writes (a row, its witness). Thrown inside a transaction,
 * turned into StoreDamaged outside it; `latch`: mark the store damaged for every process.
 */
export class Garbage extends Error {
  constructor(readonly what: string, readonly opts: { latch?: boolean; where?: string } = {}) {
    super(what);
  }
}

export interface ResetRecord {
  at: string;
  by: string;
  /** what was wrong with the store it replaced */
  what: string;
  previous: { id: string; generation: number } | null;
  /** the files moved aside */
  aside: string[];
}

export interface MetaRow {
  format: 1;
  id: string;
  generation: number;
  created: { at: string; by: string };
  resets: ResetRecord[];
  damaged?: { what: string; at: string };
  /**
   * When the earliest entry of the `expiry` index fires (ms), kept by every write that adds one;
   * absent: not known (a store written before it was kept), so the next write looks.
   */
  due?: number;
  /** the fingerprint of the history key the state was made under (home.ts `keyId`); absent until first bound */
  key?: string;
  /** the latest `now` a counter write was given (ms): no count goes into a period that ended before it (rules.ts `checkClock`) */
  latest?: number;
}

export interface SessionRow {
  h: [number, string] | null;
  /** tallies as [name, n] pairs: names are data, never object keys of a decoded map */
  t: [string, number][];
  /** last commit (ms, the store's clock) */
  at: number;
  /** when its expiry entry fires */
  x: number;
}

/** [used, until, touched, expiry entry] */
export type CounterRow = [number, number, number, number];

export interface ReservationRow {
  c: [string, number][];
  x: number;
  /** 1: released (a `failed` report gave its amounts back); kept so a late `ran` can recount it */
  r?: 1;
}

const num = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);

export function checkMeta(v: unknown): MetaRow {
  const m = v as Partial<MetaRow> | undefined;
  if (typeof m !== "object" || m === null) throw new Garbage("its meta record is missing");
  if (m.format !== 1) throw new Garbage(`its format is \`${String(m.format)}\`, not 1`);
  if (typeof m.id !== "string" || !/^[0-9a-f]{32}$/.test(m.id)) throw new Garbage("its id is not 32 hex digits");
  if (!Number.isSafeInteger(m.generation) || (m.generation as number) < 0) throw new Garbage(`its generation is \`${String(m.generation)}\`, not a whole number`);
  if (!Array.isArray(m.resets)) throw new Garbage("its reset record is not a list");
  if (m.due !== undefined && !num(m.due)) throw new Garbage(`its next expiry is \`${String(m.due)}\`, not a time`);
  if (m.latest !== undefined && !num(m.latest)) throw new Garbage(`its latest time is \`${String(m.latest)}\`, not a time`);
  if (m.key !== undefined && (typeof m.key !== "string" || !/^[0-9a-f]{32}$/.test(m.key))) throw new Garbage("its history key fingerprint is not 32 hex digits");

  return m as MetaRow;
}

export function checkSessionRow(v: unknown, session: string): SessionRow {
  const r = v as Partial<SessionRow>;
  const bad = (what: string) => new Garbage(`session \`${session}\`: ${what}`);
  if (typeof r !== "object" || r === null) throw bad("its row is not a record");
  if (r.h !== null) {
    if (!Array.isArray(r.h) || !Number.isSafeInteger(r.h[0]) || (r.h[0] as number) < 0 || typeof r.h[1] !== "string") throw bad("its head is not {count, link}");
  }
  if (!Array.isArray(r.t) || !r.t.every((p) => Array.isArray(p) && typeof p[0] === "string" && isCount(p[1]))) throw bad("its tallies are not counts");
  if (!num(r.at) || !num(r.x)) throw bad("its times are not numbers");
  return r as SessionRow;
}

export function checkCounterRow(v: unknown, cell: string): CounterRow {
  if (!Array.isArray(v) || v.length !== 4 || !isCount(v[0]) || !isCount(v[1]) || !num(v[2]) || !num(v[3])) {
    throw new Garbage(`counter ${cell}: \`${JSON.stringify(v) ?? String(v)}\` is not [used, until, touched, expiry] (a count that is NaN or not a number?)`);
  }
  return v as CounterRow;
}

export function checkReservationRow(v: unknown, id: string): ReservationRow {
  const r = v as Partial<ReservationRow>;
  if (typeof r !== "object" || r === null || !num(r.x) || !Array.isArray(r.c) || !r.c.every((p) => Array.isArray(p) && typeof p[0] === "string" && isCount(p[1])) || (r.r !== undefined && r.r !== 1)) {
    throw new Garbage(`reservation \`${id}\`: its row is not {cells, expiry}`);
  }
  return r as ReservationRow;
}

export function headOf(row: SessionRow | undefined): Head | null {
  return row?.h ? { count: row.h[0], link: row.h[1] } : null;
}

/** A counter cell's key: the SHA-256 of [key, until] (keys embed session ids; LMDB keys are short). */
export function cellKey(it: Pick<CounterItem, "key" | "until">): string {
  return sha256Hex(JSON.stringify([it.key, it.until]));
}

/** Spent names of one session share the prefix `<length>:<session>|`: prefix-free, so a range read finds exactly that session's. */
export function spentPrefix(session: string): string {
  return `${session.length}:${session}|`;
}

const HEX13 = 13;
/** An expiry entry: fixed-width hex time first, so the index is ordered by when it fires. */
export function expiryKey(at: number, kind: "s" | "c" | "r", id: string): string {
  const t = Math.min(Math.max(0, Math.floor(at)), 2 ** 52 - 1);
  return t.toString(16).padStart(HEX13, "0") + kind + id;
}

/** The time an expiry key fires at (its first 13 hex digits). */
export function expiryTime(key: string): number {
  return parseInt(key.slice(0, HEX13), 16);
}

/** Past every time an expiry key can hold: "no entry is due, ever" (an empty index). */
export const NEVER = 2 ** 52 - 1;

export function expiryBound(now: number): string {
  return expiryKey(now + 1, "s", "").slice(0, HEX13);
}

export function parseExpiry(key: unknown): { kind: string; id: string } {
  if (typeof key !== "string" || !/^[0-9a-f]{13}[scr]/.test(key)) throw new Garbage(`expiry entry \`${String(key)}\` is not <time><kind><id>`);
  return { kind: key[HEX13]!, id: key.slice(HEX13 + 1) };
}

/** The msgpack encoder lmdb-js encodes a table's values with (kept on the table, not in its types). */
export function encoderOf(db: object): { encode(value: unknown): Uint8Array } {
  const e: unknown = Reflect.get(db, "encoder");
  if (typeof e !== "object" || e === null || typeof Reflect.get(e, "encode") !== "function") throw new Error("the store's table has no msgpack encoder where version 3.5.6 keeps it");
  return e as { encode(value: unknown): Uint8Array };
}
