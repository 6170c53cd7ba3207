// The core plus the four-lane link (sha256x4.ts) under one module, for docs/perf/engine.round7.simd-probe.mjs only:
//   npx asc assembly/probe-simd.ts -O3 --runtime stub --noAssert --enable simd --outFile build/probe-simd.wasm
export * from "./index";
import { runRecords4 } from "./sha256x4";
export function verifyRun4(slot: i32, prev: usize, sid: usize, sidLen: u32, rec: usize, recLen: usize, count: i32): i32 {
  return runRecords4(slot, prev, sid, sidLen, rec, recLen, count, 32);
}
