/** What the service uses of worker/portable/licensing, in one place. */
export * from "../../portable/licensing/index.js";
import { sha256, timingSafeEqual } from "../../portable/licensing/bytes.js";

/** Compare secrets by their hashes in constant time (lengths may differ). */
export async function timingSafe(a: string, b: string): Promise<boolean> {
  return timingSafeEqual(await sha256(a), await sha256(b));
}
