/**
 * The open gate: no process opens the store while another commits to it.
 *
 * The LMDB inside lmdb@3.5.6 lets a process that opens an environment roll back a commit another
 * process makes at that moment: while opening, it copies the transaction id it read from the
 * file's header into the shared lock region, without the writer lock. A commit that lands between
 * its read and its copy is then forgotten by the next writer, which builds on the older page
 * (upstream LMDB fixed this as ITS#9496; this fork still has it). Seen here: four processes
 * starting on one home, the store older than its witness after a few hundred starts.
 *
 * So every opening of `state.mdb` (read-only ones too) and every write transaction holds a second,
 * empty LMDB environment's writer lock: `state.gate`. Nothing is ever committed to it (each
 * transaction aborts), so the same flaw in opening the gate itself has nothing to roll back. Its
 * lock is LMDB's robust mutex: a process that dies holding it does not block the others.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { ABORT, open, type RootDatabase } from "lmdb";
import { lmdbOpenable } from "./lmdb-header.js";

export const GATE_FILE = "state.gate";

interface Gate {
  env: RootDatabase;
  users: number;
  /** held by this process now: holding it again only runs the function (the lock is not re-entrant) */
  depth: number;
  /** its lock file's `dev:ino` when opened */
  lock: string | undefined;
}

const gates = new Map<string, Gate>();

/**
 * This process's gate `file` under `dir` (one per path, shared); give it back with `releaseGate`.
 * The licence's counts use one too (`counters.gate`): their flush reads, merges and writes a file.
 */
export function acquireGate(dir: string, file = GATE_FILE): string {
  const path = join(dir, file);
  const g = gates.get(path);
  if (g) g.users++;
  else {
    lmdbOpenable(path);
    const env = open({ path, noSync: true, maxDbs: 1 });
    gates.set(path, { env, users: 1, depth: 0, lock: lockOf(path) });
  }
  return path;
}

function lockOf(path: string): string | undefined {
  const s = statSync(`${path}-lock`, { throwIfNoEntry: false });
  return s ? `${s.dev}:${s.ino}` : undefined;
}

/** The gate's lock file was deleted or replaced since this process opened it: it excludes nobody any more. */
export function gateLockMoved(path: string): boolean {
  const g = gates.get(path);
  return g !== undefined && lockOf(path) !== g.lock;
}

/**
 * Give back a gate from `acquireGate`. The environment itself stays open for the process's life
 * (two descriptors and a small map per home), as the store's do, for the same reason
 * (environments.ts): closing an LMDB environment while another process opens it can leave that
 * process with a lock file whose mutexes were destroyed.
 */
export function releaseGate(path: string): void {
  const g = gates.get(path);
  if (g && g.users > 0) g.users--;
}

/** `fn` while holding the gate of `path` (from `acquireGate`). */
export function throughGate<R>(path: string, fn: () => R): R {
  const g = gates.get(path);
  if (!g) throw new Error(`the open gate \`${path}\` is not acquired`);
  if (g.depth > 0) return fn();
  let out: { r: R } | undefined;
  g.depth++;
  try {
    g.env.transactionSync(() => {
      out = { r: fn() };
      return ABORT;
    });
  } finally {
    g.depth--;
  }
  return out!.r;
}

/** `fn` through the gate of `home`, acquiring it for the call only (tools that open the store once). */
export function onceThroughGate<R>(home: string, fn: () => R): R {
  const path = acquireGate(home);
  try {
    return throughGate(path, fn);
  } finally {
    releaseGate(path);
  }
}
