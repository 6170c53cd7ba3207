/**
 * The home's history key as `stalwart doctor` and `stalwart key reset` see it: read as a session
 * would read it, and compared with what the home recorded of it (`history.key.id`, the store),
 * without making, writing or recording anything. A key that is missing while state made under it
 * remains, damaged, or not the one the home recorded stops every session here (KeyChanged,
 * KeyUnreadable), so it belongs with what doctor says is missing.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { StalwartError } from "../../worker/portable/engine/index.js";
import { KEY_CHANGED_HINT, KEY_FILE, KEY_RECORD, keyedState, keyId, readKey, readKeyRecord, resolveHome } from "./home.js";
import { storeMeta } from "./state/reset.js";

export type KeyHealth =
  | { ok: true; file: string; /** the key's fingerprint; null before the first session makes one */ id: string | null }
  | { ok: false; file: string; code: string; message: string; hint?: string };

export function keyHealth(home: string): KeyHealth {
  const file = join(home, KEY_FILE);
  try {
    resolveHome(home); // a home that is a file: say so, not what looking inside it finds
    if (!existsSync(file)) {
      const held = keyedState(home);
      if (held) throw new StalwartError("KeyChanged", `the history key \`${file}\` is missing, and the home holds state made under it (\`${held}\`)`, { hint: KEY_CHANGED_HINT });
      return { ok: true, file, id: null };
    }
    const key = readKey(file);
    const id = keyId(key);
    const recorded = readKeyRecord(join(home, KEY_RECORD));
    if (recorded !== undefined && recorded !== id) {
      throw new StalwartError("KeyChanged", `the history key \`${file}\` holds another key than the one this home recorded (\`${join(home, KEY_RECORD)}\`): it was replaced, or deleted and made anew`, { hint: KEY_CHANGED_HINT });
    }
    const stored = storeMeta(home)?.key;
    if (stored !== undefined && stored !== id) {
      throw new StalwartError("KeyChanged", `the history key \`${file}\` holds another key than the one the state in \`${join(home, "state.mdb")}\` was made under (replaced, or deleted and made anew)`, { hint: KEY_CHANGED_HINT });
    }
    return { ok: true, file, id };
  } catch (err) {
    const e = err as StalwartError;
    return { ok: false, file, code: typeof e.code === "string" ? e.code : "KeyUnreadable", message: String(e.message ?? err).split("\n")[0]!, ...(typeof e.hint === "string" ? { hint: e.hint } : {}) };
  }
}
