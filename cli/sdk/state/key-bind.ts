/**
 * The history key's fingerprint in the home's store (meta `key`, STORAGE.md): the store records
 * the key its session heads and spent tokens were made under, on first use, so a key deleted and
 * made anew, or another key put in its place, is refused (KeyChanged) rather than used.
 */
import { StalwartError } from "../../../worker/portable/engine/index.js";
import { join } from "node:path";
import { KEY_CHANGED_HINT, KEY_FILE, keyId } from "../home.js";
import { storeMeta } from "./reset.js";
import type { StateFile } from "./file.js";

/** Record `id` when the store has no key yet; throws KeyChanged when it names another. */
export function bindKey(file: StateFile, id: string, keyFile: string): void {
  let recorded: string | undefined;
  try {
    recorded = file.run((tx) => {
      if (tx.row.key !== undefined) return tx.row.key;
      tx.row = { ...tx.row, key: id };
      tx.dirty = true;
      return id;
    });
  } catch {
    // A store that cannot be used now (damaged, unreadable) answers so at every operation
    // (StoreDamaged, SessionStateUnreadable); its key is compared once it reads again.
    return;
  }
  if (recorded !== id) {
    throw new StalwartError("KeyChanged", `the history key \`${keyFile}\` is not the key the state in \`${file.dbPath}\` was made under (replaced, or deleted and made anew)`, { hint: KEY_CHANGED_HINT });
  }
}

/**
 * Without writing (the person's side: `stalwart approvals`, the page): KeyChanged when the home's
 * store records another key than `key`. No store, or one that cannot be read: nothing to compare.
 */
export function checkStoredKey(home: string, key: Uint8Array): void {
  const recorded = storeMeta(home)?.key;
  const file = join(home, KEY_FILE);
  if (recorded !== undefined && recorded !== keyId(key)) {
    throw new StalwartError("KeyChanged", `the history key \`${file}\` is not the key the state in \`${join(home, "state.mdb")}\` was made under (replaced, or deleted and made anew)`, { hint: KEY_CHANGED_HINT });
  }
}

/** `stalwart key reset`: the store now belongs to the key `id`. */
export function rebindKey(file: StateFile, id: string): void {
  file.run((tx) => {
    tx.row = { ...tx.row, key: id };
    tx.dirty = true;
  });
}
