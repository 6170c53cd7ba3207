/** What the service uses of worker/portable/licensing and the engine, in one place. */
export * from "../../portable/licensing/index.js";
export { StalwartError, isErrorCode, toWire, type ErrorCode, type WireError } from "../../portable/engine/index.js";
import { sha256, timingSafeEqual } from "../../portable/licensing/bytes.js";

/** Compare secrets by their hashes in constant time (lengths may differ). */
export async function timingSafe(a: string, b: string): Promise<boolean> {
  return timingSafeEqual(await sha256(a), await sha256(b));
}
