/**
 * The LMDB environments this process has opened: one per store file (its device and inode),
 * shared by every StateFile of the process and never closed before the process exits.
 *
 * Closing one is unsafe while other processes use the store. When LMDB finds no other process
 * holding the lock file (for a moment, between two processes' openings), it destroys the lock
 * file's mutexes. A process opening at that moment then finds a lock file that looks ready, and
 * its write transactions fail to begin ("No transaction to renew": lmdb-js ignores the error
 * code). Three processes opening and closing one store in a loop hit it on 15 of 20 runs.
 * Opening a second environment on a file this process already has open is unsafe as well:
 * lmdb-js closes the duplicate, and with it the lock file's descriptor. POSIX locks belong to
 * the process, so that drops this process's lock on the lock file.
 *
 * The cost is an environment kept per store file this process has seen. A file replaced by a
 * reset keeps its old environment until exit: a few descriptors.
 */
import { statSync } from "node:fs";
import { open, type Database, type RootDatabase } from "lmdb";
import { encoderOf } from "./rows.js";
import { lmdbOpenable } from "./lmdb-openable.js";
import { MappedFile } from "./mapped-file.js";

export interface Tables {
  meta: Database;
  sessions: Database;
  spent: Database;
  counters: Database;
  reservations: Database;
  expiry: Database;
}

export interface OpenedEnvironment {
  env: RootDatabase;
  tables: Tables;
  /** the msgpack encoder of the meta table (file.ts writes the meta row's bytes itself) */
  metaEncoder: { encode(value: unknown): Uint8Array };
  /** the lock file this environment holds (mapped-file.ts) */
  lock: MappedFile;
}

const opened = new Map<string, OpenedEnvironment>();

function keyOf(path: string): string | undefined {
  const s = statSync(path, { throwIfNoEntry: false });
  return s ? `${s.dev}:${s.ino}` : undefined;
}

/** The environment this process already has on the file at `path`, if any. */
export function openedAt(path: string): OpenedEnvironment | undefined {
  const key = keyOf(path);
  return key === undefined ? undefined : opened.get(key);
}

/**
 * The environment on the file at `path`: the one this process has, or a new one (creating the
 * file when there is none). Call it through the open gate (open-gate.ts). `sync` applies to a new
 * environment only.
 */
export function environmentAt(path: string, sync: boolean): OpenedEnvironment {
  const had = openedAt(path);
  if (had) return had;
  lmdbOpenable(path);
  const env = open({ path, noSync: !sync, maxDbs: 8, encoding: "msgpack" });
  const tables: Tables = {
    meta: env.openDB({ name: "meta" }),
    sessions: env.openDB({ name: "sessions" }),
    spent: env.openDB({ name: "spent" }),
    counters: env.openDB({ name: "counters" }),
    reservations: env.openDB({ name: "reservations" }),
    expiry: env.openDB({ name: "expiry" }),
  };
  const made = { env, tables, metaEncoder: encoderOf(tables.meta), lock: new MappedFile(`${path}-lock`) };
  const key = keyOf(path);
  if (key !== undefined) opened.set(key, made);
  return made;
}
