/**
 * Node persistence of the in-process counter store, under the client's home:
 *   counters.table  the WASM counter table, byte for byte
 *   counters.json   {v: 1, reservations}
 * Each written to a temporary file and renamed (atomic on POSIX). The table is written first: a
 * crash between the two keeps a reservation counted that can no longer be released — the safe
 * direction for a ceiling.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalCounterStore, type LocalState } from "../../worker/portable/engine/index.js";
import { freshCore } from "./wasm-node.js";
import { StalwartError } from "../../worker/portable/engine/index.js";

const stores = new Map<string, LocalCounterStore>();

function writeAtomic(file: string, data: Uint8Array | string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  renameSync(tmp, file);
}

/** The home's counter store (one per home per process). */
export function localCounters(home: string): LocalCounterStore {
  const hit = stores.get(home);
  if (hit) return hit;
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const tableFile = join(home, "counters.table");
  const jsonFile = join(home, "counters.json");
  const core = freshCore();
  let restored: LocalState | undefined;
  if (existsSync(tableFile)) {
    try {
      const table = new Uint8Array(readFileSync(tableFile));
      const json = existsSync(jsonFile) ? JSON.parse(readFileSync(jsonFile, "utf8")) : { v: 1, reservations: {} };
      restored = { table, reservations: json.reservations ?? {} };
    } catch (err) {
      throw new StalwartError("CountersUnreadable", `the counters under \`${home}\` are unreadable (${(err as Error).message})`, { hint: "restore counters.table and counters.json from a backup; deleting them resets every rate limit and spend ceiling" });
    }
  }
  const store = new LocalCounterStore(core, (b) => core.sha256(b), (state) => {
    writeAtomic(tableFile, state.table);
    writeAtomic(jsonFile, JSON.stringify({ v: 1, reservations: state.reservations }));
  }, restored);
  stores.set(home, store);
  return store;
}
