/** What the check core (core.ts; wasm/ holds the only files that touch WebAssembly) offers, as TypeScript types. */
import { StalwartError } from "../errors.js";

/** Bytes the core hands back: fresh copies on their own ArrayBuffer, usable as a BufferSource. */
export type Bytes = Uint8Array<ArrayBuffer>;

export interface Core {
  /** SHA-256 (FIPS 180-4), 32 bytes. */
  sha256(data: Uint8Array): Bytes;
  /**
   * Load a key into a free slot and hold it; the same key bytes return the same handle, held once
   * more. The handle names the slot until the key is released by every holder and its slot goes to
   * another key: then it is `WasmBadSlot`, never a MAC under the other key.
   */
  loadKey(key: Uint8Array): number;
  /** Let go of a key from loadKey; its slot may hold another key once nothing holds this one. */
  releaseKey(slot: number): void;
  /** HMAC-SHA256 (RFC 2104) under a loaded slot, 32 bytes. */
  hmac(slot: number, data: Uint8Array): Bytes;
  /** The history link of `entry` chained on `prev` (32 bytes; 32 zero bytes for the first entry). */
  link(slot: number, sessionId: Uint8Array, prev: Uint8Array, entry: Uint8Array): Bytes;
  /**
   * Recompute the links of a run of entries chained from `prev`; the index of the first entry whose
   * stored link differs, or -1. A prefix of a valid run is valid by itself: detecting truncation
   * means comparing the last link with the head the caller recorded.
   */
  verifyRun(
    slot: number,
    sessionId: Uint8Array,
    prev: Uint8Array,
    entries: readonly Uint8Array[],
    links: readonly Uint8Array[],
  ): number;
  /**
   * `verifyRun` over entries given as strings (their UTF-8 bytes) and links as lowercase hex,
   * written straight into the core's memory; a link that is not 64 hex characters fails there.
   */
  verifyRunText(slot: number, sessionId: Uint8Array, prev: Uint8Array, entries: readonly string[], links: readonly string[]): number;
  /**
   * `verifyRun` over records its source writes straight into the core's memory (no string per
   * record); the same verdicts. Optional: a Core without it is served through `verifyRunText`.
   */
  verifyRunWith?(slot: number, sessionId: Uint8Array, prev: Uint8Array, run: RunSource): number;
  /** `link` over record `i` of `run`, written straight into the core's memory (optional, as above). */
  linkWith?(slot: number, sessionId: Uint8Array, prev: Uint8Array, run: RunSource, i: number): Uint8Array;
  /** SHA-256 of a string's UTF-8 bytes, encoded straight into the core's memory (no copy). */
  sha256Text(text: string): Uint8Array;
  /** HMAC-SHA256 of a string's UTF-8 bytes under a loaded slot. */
  hmacText(slot: number, text: string): Uint8Array;
  /** `link` over a string's UTF-8 bytes. */
  linkText(slot: number, sessionId: Uint8Array, prev: Uint8Array, entry: string): Uint8Array;
  /** Overwrite `slot` (from loadKey) with another key, e.g. after a tenant rotates its secret. */
  setKey(slot: number, key: Uint8Array): void;
  /** How many key slots the module has. */
  readonly slotCapacity: number;
}

/** A run of history records for `Core.verifyRunWith`, read by index. */
export interface RunSource {
  readonly count: number;
  /** Record i's bytes into `u8` from `at`, no byte at or past `end`: the offset after them, or -1 when they may not fit. */
  write(i: number, u8: Uint8Array, at: number, end: number): number;
  /** Record i's bytes as text (their UTF-8), for a record too big for one load. */
  text(i: number): string;
  /** Record i's claimed link: 64 lowercase hex characters, or it fails at i. */
  link(i: number): string;
}

/** One counter item as step 7 hands it to the table: the key's SHA-256 and its numbers. */
export interface CounterCell {
  digest: Uint8Array;
  until: number;
  amount: number;
  limit: number;
}

/** The counter table in the core's memory (assembly/counters.ts). */
export interface CounterCore {
  /** -1 when all fit under their limits, else the index of the first that does not. */
  counterFits(items: readonly CounterCell[], now: number): number;
  /** What item `k` has used in its current period. */
  counterUsed(items: readonly CounterCell[], k: number, now: number): number;
  /** Add (sign 1) or give back (sign -1) every item; false when the table is full. */
  counterAdd(items: readonly CounterCell[], now: number, sign: 1 | -1): boolean;
  /** A copy of the table, to persist. */
  counterSnapshot(): Uint8Array;
  /** Put a persisted table back (same size, else an error). */
  counterRestore(bytes: Uint8Array): void;
}

export type WasmCoreCode = "WasmOutOfMemory" | "WasmKeySlotsFull" | "WasmBadSlot" | "WasmBadArgument" | "WasmBadModule";

/** A misuse of the core or a resource it ran out of; `code` says which. */
export class WasmCoreError extends StalwartError {
  declare readonly code: WasmCoreCode;
  constructor(code: WasmCoreCode, message: string, hint?: string) {
    super(code, message, hint ? { hint } : undefined);
  }
}
