/**
 * Which build of the check core to run: build/core-simd.wasm (a run's links four at a time in
 * SIMD lanes, assembly/index-simd.ts) where the engine accepts it, else the scalar build/core.wasm.
 * A module using SIMD does not compile at all where SIMD is missing, so the scalar one is always
 * shipped beside it; both speak the same ABI and give the same verdicts.
 */
import { createCore } from "./core.js";
import type { Core, CounterCore } from "./types.js";

export type CoreBuild = BufferSource | WebAssembly.Module;

/** The index of the first build this engine can run: bytes WebAssembly.validate accepts, or an already compiled module. -1 when none. */
export function pickBuild(builds: readonly (CoreBuild | undefined)[]): number {
  for (let i = 0; i < builds.length; i++) {
    const b = builds[i];
    if (b === undefined) continue;
    if (b instanceof WebAssembly.Module || WebAssembly.validate(b)) return i;
  }
  return -1;
}

/**
 * A core from the first of `builds` (best first) that validates and instantiates; a later one
 * when an earlier one fails either way. The last failure is thrown when none does.
 */
export function createPreferredCore(builds: readonly (CoreBuild | undefined)[]): Core & CounterCore {
  let failure: unknown = undefined;
  for (let i = 0; i < builds.length; i++) {
    const at = pickBuild(builds.slice(i));
    if (at < 0) break;
    i += at;
    try {
      return createCore(builds[i]!);
    } catch (err) {
      failure = err;
    }
  }
  // Nothing validated: createCore on the last build reports why in the core's own error.
  if (failure === undefined) return createCore(builds[builds.length - 1] ?? new Uint8Array(0));
  throw failure;
}
