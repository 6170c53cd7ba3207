/**
 * Step 2's work: verify a run of history entries link by link (checks.md, "The session history").
 * Pure: bytes in, verdict out. The MAC work is one call into the WASM core.
 */
import { fromHex, utf8 } from "../canonical/bytes.js";
import { entryCanonical, entryShapeError, type Entry } from "./entry.js";

/** The keyed chain operations (the WASM core, bound to one installation key). */
export interface ChainMac {
  link(sessionId: Uint8Array, prev: Uint8Array, entry: Uint8Array): Uint8Array;
  linkText(sessionId: Uint8Array, prev: Uint8Array, entry: string): Uint8Array;
  verifyRun(sessionId: Uint8Array, prev: Uint8Array, entries: readonly Uint8Array[], links: readonly Uint8Array[]): number;
  /** the same over canonical texts and hex links, written straight into the core's memory */
  verifyRunText(sessionId: Uint8Array, prev: Uint8Array, entries: readonly string[], links: readonly string[]): number;
}

export const GENESIS = new Uint8Array(32);

export type ChainVerdict =
  | { ok: true; entries: Entry[]; head: Uint8Array }
  | { ok: false; index: number; why: string };

/**
 * Verify `entries` (untrusted, any shape) as the whole history of `sessionId`, starting from
 * `from` already-verified entries whose last link is `prev`. `expectedCount`, when known, is
 * how many entries the history had when last signed: fewer means entries were cut off the end.
 */
export function verifyChain(
  mac: ChainMac,
  sessionId: string,
  entries: unknown,
  opts: VerifyOptions = {},
): ChainVerdict {
  if (!Array.isArray(entries)) return { ok: false, index: 0, why: "the history is not a list" };
  for (let i = opts.from ?? 0; i < entries.length; i++) {
    const shape = entryShapeError(entries[i]);
    if (shape) return { ok: false, index: i, why: shape };
    // in this order per entry, so the first thing wrong is the one named
    const step = (entries[i] as Entry).step;
    if (step !== i) return { ok: false, index: i, why: `entry ${i} says it is step ${step}` };
  }
  return verifyShaped(mac, sessionId, entries as Entry[], opts);
}

export interface VerifyOptions {
  from?: number;
  prev?: Uint8Array;
  expectedCount?: number;
  expectedHead?: string;
}

/** `verifyChain` for entries already known to have the right shape (history/copy.ts read them). */
export function verifyShaped(mac: ChainMac, sessionId: string, entries: readonly Entry[], opts: VerifyOptions = {}): ChainVerdict {
  const from = opts.from ?? 0;
  const n = entries.length - from;
  const texts: string[] = new Array(Math.max(0, n));
  const links: string[] = new Array(Math.max(0, n));
  for (let i = from; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.step !== i) return { ok: false, index: i, why: `entry ${i} says it is step ${entry.step}` };
    let canonical: string;
    try {
      canonical = entryCanonical(entry);
    } catch {
      return { ok: false, index: i, why: `entry ${i} is not canonical JSON` };
    }
    texts[i - from] = canonical;
    links[i - from] = entry.link;
  }
  const bad = mac.verifyRunText(utf8(sessionId), opts.prev ?? GENESIS, texts, links);
  if (bad >= 0) return { ok: false, index: from + bad, why: `entry ${from + bad} does not verify` };
  if (opts.expectedCount !== undefined && entries.length !== opts.expectedCount) {
    return { ok: false, index: Math.min(entries.length, opts.expectedCount), why: `the history has ${entries.length} entries, it was signed with ${opts.expectedCount}` };
  }
  const head = n > 0 ? fromHex(links[n - 1]!)! : (opts.prev ?? GENESIS);
  if (opts.expectedHead !== undefined && entries.length > 0 && entries[entries.length - 1]!.link !== opts.expectedHead) {
    return { ok: false, index: entries.length - 1, why: "the history does not end where it was signed" };
  }
  return { ok: true, entries: entries as Entry[], head };
}
