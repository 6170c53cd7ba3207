/** The installation key's HMAC, for signing and verifying receipts (one key slot per home per process). */
import type { Mac } from "../../worker/portable/engine/index.js";
import { nodeCore } from "../sdk/wasm-node.js";
import { installationKey } from "../sdk/home.js";

const slots = new Map<string, number>();

export function homeMac(home: string): Mac {
  const core = nodeCore();
  let slot = slots.get(home);
  if (slot === undefined) slots.set(home, (slot = core.loadKey(installationKey(home))));
  const s = slot;
  return (text) => core.hmacText(s, text);
}
