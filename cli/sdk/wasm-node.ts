// Node glue for the check core: read build/core-simd.wasm and build/core.wasm beside the sources
// (or dist/build/ beside the built JS — scripts/copy-wasm.mjs keeps the relative path the same),
// compile the SIMD build where this engine validates it and the scalar one otherwise, once.
import { existsSync, readFileSync } from "node:fs";
import { createCore, pickBuild, type Core, type CounterCore } from "../../worker/portable/engine/index.js";

let core: (Core & CounterCore) | undefined;
let compiled: WebAssembly.Module | undefined;

function module(): WebAssembly.Module {
  if (compiled) return compiled;
  const simd = new URL("../../build/core-simd.wasm", import.meta.url);
  const builds = [existsSync(simd) ? readFileSync(simd) : undefined, readFileSync(new URL("../../build/core.wasm", import.meta.url))];
  compiled = new WebAssembly.Module(builds[pickBuild(builds)] ?? builds[1]!);
  return compiled;
}

/** The process-wide check core (compiled and instantiated on first use). */
export function nodeCore(): Core & CounterCore {
  core ??= createCore(module());
  return core;
}

/** A core of its own (its own memory): each home's counter table lives in one. */
function freshCore(): Core & CounterCore {
  return createCore(module());
}
