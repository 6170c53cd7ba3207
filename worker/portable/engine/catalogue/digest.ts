/**
 * The catalogue's digest: SHA-256 (hex) of the RFC 8785 canonical JSON of the parsed catalogue
 * (canonical/jcs.ts). It names a catalogue in caches. Synchronous, as compile is; the caller may
 * pass an equal SHA-256 of its own (the WASM core's), else the engine's one entry point is used.
 */
import { toHex } from "../canonical/bytes.js";
import { canonicalize } from "../canonical/jcs.js";
import { sha256 } from "../canonical/sha256.js";

export type Sha256 = (b: Uint8Array) => Uint8Array;

/** SHA-256 hex of the canonical JSON of `data`. */
export function jsonDigest(data: unknown, hash: Sha256 = sha256): string {
  return toHex(hash(new TextEncoder().encode(canonicalize(data))));
}

export const catalogueDigest = jsonDigest;
