/** The installation key's HMAC, for signing and verifying receipts (one key slot per home per process). */
import type { Mac } from "../../worker/portable/engine/index.js";
import { nodeCore } from "../sdk/wasm-node.js";
import { installationKey } from "../sdk/home.js";
import { checkStoredKey } from "../sdk/state/key-bind.js";

const slots = new Map<string, number>();

export function homeMac(home: string): Mac {
  const core = nodeCore();
  let slot = slots.get(home);
  if (slot === undefined) {
    const key = installationKey(home);
    // a receipt signed under another key than the home's state was made under verifies nowhere
    checkStoredKey(home, key);
    slots.set(home, (slot = core.loadKey(key)));
  }
  const s = slot;
  return (text) => core.hmacText(s, text);
}
