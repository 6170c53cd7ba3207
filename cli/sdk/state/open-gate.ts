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
import { closeSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import { ABORT, open, type RootDatabase } from "lmdb";
import { StoreDamaged } from "../../../worker/portable/engine/index.js";
import { lmdbFileProblem } from "./lmdb-header.js";
import { lmdbOpenable, type UnreadableCode } from "./lmdb-openable.js";
import { MappedFile, RESTART_HINT } from "./mapped-file.js";

export const GATE_FILE = "state.gate";

interface Gate {
  env: RootDatabase;
  users: number;
  /** held by this process now: holding it again only runs the function (the lock is not re-entrant) */
  depth: number;
  /** its data and lock file, as opened (mapped-file.ts) */
  files: MappedFile[];
}

const gates = new Map<string, Gate>();

/**
 * This process's gate `file` under `dir` (one per path, shared); give it back with `releaseGate`.
 * The licence's counts use one too (`counters.gate`): their flush reads, merges and writes a file.
 * `code`: the typed error of a gate file that cannot be opened (lmdb-openable.ts).
 */
export function acquireGate(dir: string, file = GATE_FILE, code: UnreadableCode = "SessionStateUnreadable"): string {
  const path = join(dir, file);
  const g = gates.get(path);
  if (g) g.users++;
  else {
    lmdbOpenable(path, code);
    gateFileOk(path);
    const env = open({ path, noSync: true, maxDbs: 1 });
    gates.set(path, { env, users: 1, depth: 0, files: [new MappedFile(path), new MappedFile(`${path}-lock`)] });
  }
  return path;
}

/**
 * A gate file that is there but not an LMDB environment's (zeroed in place): LMDB would crash the
 * process opening it (SIGSEGV). It holds nothing, so deleting it is the way back, with no process
 * on the home. An empty one is a gate whose creation never finished: LMDB makes it anew.
 */
function gateFileOk(path: string): void {
  const size = statSync(path, { throwIfNoEntry: false })?.size;
  if (!size) return;
  const fd = openSync(path, "r");
  try {
    const problem = lmdbFileProblem(fd, size);
    if (problem) throw new StoreDamaged(path, `its open gate ${problem}`, `stop every process that uses this home, then delete \`${path}\` and \`${path}-lock\`: they hold nothing (the store needs no reset)`);
  } finally {
    closeSync(fd);
  }
}

/** Why the gate's lock file no longer excludes anyone (deleted or replaced since this process opened it), or undefined. */
export function gateLockMoved(path: string): string | undefined {
  return gates.get(path)?.files[1]!.moved();
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
  for (const f of g.files) {
    const cut = f.cutShort();
    if (cut) throw new StoreDamaged(f.path, `its open gate ${cut}`, RESTART_HINT);
  }
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
