/** What the service uses of worker/licensing, in one place. */
export * from "../licensing/index.js";
import { sha256, timingSafeEqual } from "../licensing/bytes.js";

/** Compare secrets by their hashes in constant time (lengths may differ). */
export async function timingSafe(a: string, b: string): Promise<boolean> {
  return timingSafeEqual(await sha256(a), await sha256(b));
}
