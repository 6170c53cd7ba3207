/** What the service uses of worker/portable/licensing, in one place. */
export * from "../../portable/licensing/index.js";
import { equalBytes, sha256 } from "../../portable/engine/index.js";

/** Compare secrets by their hashes in constant time (lengths may differ). */
export async function timingSafe(a: string, b: string): Promise<boolean> {
  return equalBytes(sha256(a), sha256(b));
}
