/**
 * `stalwart counters status` and `stalwart counters reset`: the only way back from a damaged
 * store. A reset moves the store, its witness and any counters of an earlier version aside
 * (`<file>.reset-<time>`), starts a new store and records in it who reset, when, what was wrong
 * and which store it replaced — carrying the earlier resets over when the old store still reads.
 */
import { existsSync, renameSync, statSync, unlinkSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { open } from "lmdb";
import { StalwartError, StoreDamaged } from "../../../worker/portable/engine/index.js";
import { FILES, StateFile } from "./file.js";
import { readyToMap } from "./lmdb-header.js";
import { lmdbOpenable, notRegular, removeHint, UnopenableFile } from "./lmdb-openable.js";
import { GATE_FILE, onceThroughGate } from "./open-gate.js";
import { openedAt } from "./environments.js";
import { checkMeta, type MetaRow, type ResetRecord } from "./rows.js";
import { closeState } from "./cache.js";

export interface StateStatus {
  home: string;
  file: string;
  /** false: nothing has been stored under this home yet */
  exists: boolean;
  healthy: boolean;
  problem?: { code: string; message: string; hint?: string; where: string };
  id?: string;
  generation?: number;
  created?: MetaRow["created"];
  rows?: Record<string, number>;
  /** the latest time a counter write was given (ms): counting in a period that ended before it is refused */
  latest?: number;
  resets: ResetRecord[];
}

function present(home: string): string[] {
  return [FILES.db, FILES.witness, ...FILES.legacy].map((f) => join(home, f)).filter((f) => existsSync(f));
}

/** What the store of `home` holds, or what is wrong with it; creates nothing. */
export function stateStatus(home: string): StateStatus {
  const dir = resolve(home);
  const base = { home: dir, file: join(dir, FILES.db) };
  if (present(dir).length === 0) return { ...base, exists: false, healthy: true, resets: [] };
  const file = new StateFile(dir);
  try {
    const meta = file.meta();
    const { meta: _, ...rows } = file.counts();
    return { ...base, exists: true, healthy: true, id: meta.id, generation: meta.generation, created: meta.created, rows, ...(meta.latest !== undefined ? { latest: meta.latest } : {}), resets: meta.resets };
  } catch (err) {
    if (err instanceof UnopenableFile) {
      // a lock or gate file LMDB may not open (not a regular file, or not this user's): what the SDK answers
      return { ...base, exists: true, healthy: false, problem: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}), where: err.where }, resets: [] };
    }
    const fsError = err as NodeJS.ErrnoException;
    if (!(err instanceof StoreDamaged) && typeof fsError.syscall === "string") {
      // a file this user may not open (EACCES …): what the SDK answers as SessionStateUnreadable
      const where = fsError.path ?? base.file;
      return { ...base, exists: true, healthy: false, problem: { code: "SessionStateUnreadable", message: `the store could not be read (${fsError.message})`, hint: `give this user read and write access to \`${where}\``, where }, resets: [] };
    }
    if (!(err instanceof StoreDamaged)) throw err;
    return { ...base, exists: true, healthy: false, problem: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}), where: err.where }, resets: storeMeta(dir)?.resets ?? [] };
  } finally {
    file.close();
  }
}

/**
 * The meta row of a store that may be damaged, if LMDB can read it safely; else undefined. Through
 * the environment this process has on it, or a read-only one opened and closed, all under the
 * open gate: no writer commits meanwhile, so the header and the length read here still hold when
 * LMDB maps the file. A file shorter than the pages it counts is lengthened with zeros first, as
 * every opening does (lmdb-header.ts, readyToMap): LMDB counts pages it never wrote (seen with two
 * writers beside two of these looks), and mapping past the end would kill the process (SIGBUS).
 */
export function storeMeta(home: string): MetaRow | undefined {
  const path = join(home, FILES.db);
  if (!existsSync(path)) return undefined;
  try {
    return onceThroughGate(home, () => {
      if (readyToMap(path, statSync(path).size)) return undefined;
      const had = openedAt(path);
      if (had) return checkMeta(had.tables.meta.get("meta"));
      lmdbOpenable(path);
      const env = open({ path, readOnly: true, maxDbs: 8 });
      try {
        return checkMeta(env.openDB({ name: "meta" }).get("meta"));
      } finally {
        void env.close();
      }
    });
  } catch {
    return undefined;
  }
}

export interface ResetResult {
  home: string;
  record: ResetRecord;
  id: string;
}

export interface ResetOptions {
  /** who resets (recorded); default user@host */
  by?: string;
  /** reset a store that is not damaged too (it forgets every count) */
  force?: boolean;
}

export function resetState(home: string, opts: ResetOptions = {}): ResetResult {
  const dir = resolve(home);
  const status = stateStatus(dir);
  if (!status.exists) throw new StalwartError("NothingToReset", `there is no counter and session store under \`${dir}\``, { hint: "nothing to do: the first counted call creates one" });
  if (status.healthy && !opts.force) {
    throw new StalwartError("StoreHealthy", `the counter and session store \`${status.file}\` is healthy (generation ${status.generation}); a reset forgets every count, spent token and session head`, { hint: "pass --force to reset it all the same" });
  }
  gateAndLockFiles(dir);
  const old = status.healthy ? { id: status.id!, generation: status.generation!, resets: status.resets } : storeMeta(dir);
  // the history key's fingerprint stays: the new store's state is the same key's (key-bind.ts)
  const key = storeMeta(dir)?.key;
  const at = new Date().toISOString();
  const stamp = at.replace(/[:.]/g, "-");
  closeState(dir);
  const aside: string[] = [];
  for (const f of present(dir)) {
    const to = `${f}.reset-${stamp}`;
    renameSync(f, to);
    aside.push(to);
  }
  // The lock file belongs to the old store; processes still holding it notice the new files and reopen.
  const lock = join(dir, FILES.lock);
  if (existsSync(lock)) unlinkSync(lock);
  const record: ResetRecord = {
    at,
    by: opts.by ?? `${safeUser()}@${hostname()}`,
    what: status.healthy ? "healthy; reset with --force" : status.problem!.message,
    previous: old ? { id: old.id, generation: old.generation } : null,
    aside,
  };
  const file = new StateFile(dir, { by: record.by });
  try {
    const id = file.run((tx) => {
      tx.row = { ...tx.row, resets: [...(old?.resets ?? status.resets), record], ...(key ? { key } : {}) };
      tx.dirty = true;
      return tx.row.id;
    });
    return { home: dir, record, id };
  } finally {
    file.close();
  }
}

/**
 * Before anything is moved aside: the new store must open through the gate, and the lock file
 * must be one a reset can remove. One that is not a regular file (a directory) is no damage to
 * reset; refused here, the store stays where it is rather than moved aside by a reset that fails.
 */
function gateAndLockFiles(dir: string): void {
  lmdbOpenable(join(dir, GATE_FILE));
  const lock = join(dir, FILES.lock);
  const odd = notRegular(lock);
  if (odd) throw new UnopenableFile("SessionStateUnreadable", lock, odd, removeHint(lock));
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? "?"}`;
  }
}
