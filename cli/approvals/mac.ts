/** The installation key's HMAC, for signing and verifying receipts. */
import type { Mac } from "../../worker/portable/engine/index.js";
import { nodeCore } from "../sdk/wasm-node.js";
import { LoadedKey } from "../sdk/loaded-key.js";
import { checkStoredKey } from "../sdk/state/key-bind.js";

/** One WASM key slot per key (by fingerprint), however often it is loaded. */
const slots = new Map<string, number>();

/** The MAC under `k`, which refuses (KeyChanged) once the home's key file no longer holds it. */
export function keyMac(k: LoadedKey): Mac {
  const core = nodeCore();
  let slot = slots.get(k.id);
  if (slot === undefined) slots.set(k.id, (slot = core.loadKey(k.key)));
  const s = slot;
  return (text) => {
    k.check();
    return core.hmacText(s, text);
  };
}

/** The home's key as it is now (the person's side: `stalwart approvals`, the page, the gateway's standing approvals). */
export function homeMac(home: string): Mac {
  const k = new LoadedKey(home);
  // a receipt signed under another key than the home's state was made under verifies nowhere
  checkStoredKey(home, k.key);
  return keyMac(k);
}
