// The check core with four-lane SIMD links for a run's verification (build/core-simd.wasm,
// `asc --enable simd`): index.ts's exports, ABI and verdicts, with verifyRun and
// verifyRunHexRecords computing four links per pass (sha256x4.ts). A module using SIMD does not
// load where SIMD is missing, so the scalar build/core.wasm ships beside it (wasm/choose.ts picks).

export {
  abiVersion, outPtr, inputPtr, slotCapacity, ensureInput, sha256, shaBegin, update, shaEnd, setKey, hmac,
  hmacBegin, hmacEnd, linkHead, linkMid, link, verifyRunHex, equal32,
  counterFits, counterUsed, counterAdd, counterTable, counterTableBytes,
} from "./index";
import { runRecords4 } from "./sha256x4";

/** index.ts's verifyRun (32-byte links), four records per pass. */
export function verifyRun(slot: i32, prev: usize, sid: usize, sidLen: u32, rec: usize, recLen: usize, count: i32): i32 {
  return runRecords4(slot, prev, sid, sidLen, rec, recLen, count, 32);
}

/** index.ts's verifyRunHexRecords (64-character hex links), four records per pass. */
export function verifyRunHexRecords(slot: i32, prev: usize, sid: usize, sidLen: u32, rec: usize, recLen: usize, count: i32): i32 {
  return runRecords4(slot, prev, sid, sidLen, rec, recLen, count, 64);
}
