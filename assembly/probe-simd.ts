// The core plus the four-lane link (sha256x4.ts), for docs/perf/engine.round7.simd-probe.mjs only:
//   npx asc assembly/probe-simd.ts -O3 --runtime stub --noAssert --enable simd --outFile build/probe-simd.wasm
export * from "./index";
export { verifyRun4 } from "./sha256x4";
