/** One StateFile per home per process; each client gets a NodeStateStore bound to its own clock. */
import { resolve } from "node:path";
import { StateFile, type FileOptions } from "./file.js";
import { NodeStateStore } from "./store.js";

const files = new Map<string, StateFile>();

export interface NodeStateOptions extends FileOptions {
  /** the clock sessions are reclaimed by (ms since the epoch); default the wall clock */
  now?: () => number;
}

/** The store of `home` (created on first use), for a client whose clock is `opts.now`. */
export function nodeState(home: string, opts: NodeStateOptions = {}): NodeStateStore {
  const key = resolve(home);
  let file = files.get(key);
  if (!file) files.set(key, (file = new StateFile(key, opts)));
  return new NodeStateStore(file, opts.now ?? (() => Date.now()));
}

/**
 * Forget this process's handle on `home`'s store (tests, `stalwart counters reset`); the next use
 * opens it again, with every check. The LMDB environment itself stays open (environments.ts).
 */
export function closeState(home: string): void {
  const key = resolve(home);
  files.get(key)?.close();
  files.delete(key);
}
