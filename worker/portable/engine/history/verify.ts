/**
 * Step 2's work: verify a run of history entries link by link (checks.md, "The session history").
 * Pure: bytes in, verdict out. The MAC work is one call into the WASM core.
 */
import { fromHex, utf8 } from "../canonical/bytes.js";
import type { RunSource } from "../wasm/types.js";
import { entryCanonical, entryShapeError, type Entry } from "./entry.js";
import { writeEntry } from "./entry-bytes.js";

/** The keyed chain operations (the WASM core, bound to one installation key). */
export interface ChainMac {
  link(sessionId: Uint8Array, prev: Uint8Array, entry: Uint8Array): Uint8Array;
  linkText(sessionId: Uint8Array, prev: Uint8Array, entry: string): Uint8Array;
  verifyRun(sessionId: Uint8Array, prev: Uint8Array, entries: readonly Uint8Array[], links: readonly Uint8Array[]): number;
  /** the same over canonical texts and hex links, written straight into the core's memory */
  verifyRunText(sessionId: Uint8Array, prev: Uint8Array, entries: readonly string[], links: readonly string[]): number;
  /** the same over records written straight into the core's memory by `run` (history/entry-bytes.ts) */
  verifyRunWith(sessionId: Uint8Array, prev: Uint8Array, run: RunSource): number;
  /** `linkText` over record `i` of `run` (an entry being sealed), written straight into the core's memory */
  linkWith(sessionId: Uint8Array, prev: Uint8Array, run: RunSource, i: number): Uint8Array;
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
  // The verdict is the first entry with a wrong step or no canonical form, else the first whose
  // link differs: steps are checked first, canonical forms as the run writes them (and, past a
  // link that differs, after it), so a refusal names what it always named.
  const stepAt = firstWrongStep(entries, from);
  // an entry whose canonical form cannot be written (whatever was thrown), as against the core's errors
  let unwritable = -1;
  const run: RunSource = {
    count: stepAt - from,
    write(k, u8, at, end) {
      try {
        return writeEntry(entries[from + k]!, u8, at, end);
      } catch (err) {
        unwritable = from + k;
        throw err;
      }
    },
    text(k) {
      try {
        return entryCanonical(entries[from + k]!);
      } catch (err) {
        unwritable = from + k;
        throw err;
      }
    },
    link: (k) => entries[from + k]!.link,
  };
  let bad: number;
  try {
    bad = mac.verifyRunWith(utf8(sessionId), opts.prev ?? GENESIS, run);
  } catch (err) {
    if (unwritable >= 0) return notCanonical(unwritable);
    throw err;
  }
  if (bad >= 0) {
    for (let i = from + bad + 1; i < stepAt; i++) if (!hasCanonical(entries[i]!)) return notCanonical(i);
  }
  if (stepAt < entries.length) return { ok: false, index: stepAt, why: `entry ${stepAt} says it is step ${entries[stepAt]!.step}` };
  if (bad >= 0) return { ok: false, index: from + bad, why: `entry ${from + bad} does not verify` };
  if (opts.expectedCount !== undefined && entries.length !== opts.expectedCount) {
    return { ok: false, index: Math.min(entries.length, opts.expectedCount), why: `the history has ${entries.length} entries, it was signed with ${opts.expectedCount}` };
  }
  const head = n > 0 ? fromHex(entries[entries.length - 1]!.link)! : (opts.prev ?? GENESIS);
  if (opts.expectedHead !== undefined && entries.length > 0 && entries[entries.length - 1]!.link !== opts.expectedHead) {
    return { ok: false, index: entries.length - 1, why: "the history does not end where it was signed" };
  }
  return { ok: true, entries: entries as Entry[], head };
}

/**
 * The first entry from `from` whose step is not its index, else the length. Its own function: a
 * loop over the whole run in `verifyShaped` (called once per verification) made the optimiser
 * compile all of it, writer inlined, on the first resumes of a process (docs/perf/engine-d.round9.md).
 */
function firstWrongStep(entries: readonly Entry[], from: number): number {
  for (let i = from; i < entries.length; i++) if (entries[i]!.step !== i) return i;
  return entries.length;
}

const notCanonical = (i: number): ChainVerdict => ({ ok: false, index: i, why: `entry ${i} is not canonical JSON` });

function hasCanonical(e: Entry): boolean {
  try {
    entryCanonical(e);
    return true;
  } catch {
    return false;
  }
}
