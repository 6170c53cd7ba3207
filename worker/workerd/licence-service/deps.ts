/** What the service uses of worker/portable/licensing and the engine, in one place. */
export * from "../../portable/licensing/index.js";
export { StalwartError, isErrorCode, toWire, type ErrorCode, type WireError } from "../../portable/engine/index.js";
import { equalBytes, sha256 } from "../../portable/engine/index.js";

/** Compare secrets by their hashes in constant time (lengths may differ). */
export async function timingSafe(a: string, b: string): Promise<boolean> {
  return equalBytes(sha256(a), sha256(b));
}
