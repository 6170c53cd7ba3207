/**
 * The one SHA-256 entry point outside the check core's hot path: catalogue and rulebook digests,
 * licence bundle digests, request body digests, names of uploaded catalogues. Synchronous (the
 * catalogue compiles synchronously) and the same in Node and workerd, on @noble/hashes (audited,
 * no dependencies). The WASM core keeps its own SHA-256 because HMAC and the history links are
 * built on it inside the module; test/core/sha256.test.ts holds the two to the same answers.
 */
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { toHex, utf8 } from "./bytes.js";

/** SHA-256 of bytes, or of a string's UTF-8 bytes. */
export function sha256(data: Uint8Array | string): Uint8Array {
  return nobleSha256(typeof data === "string" ? utf8(data) : data);
}

export function sha256Hex(data: Uint8Array | string): string {
  return toHex(sha256(data));
}
