// Node glue for the check core: read build/core.wasm beside the sources (or dist/build/core.wasm
// beside the built JS — scripts/copy-wasm.mjs keeps the relative path the same) and instantiate once.
import { readFileSync } from "node:fs";
import { createCore, type Core, type CounterCore } from "../../worker/portable/engine/index.js";

let core: (Core & CounterCore) | undefined;
let compiled: WebAssembly.Module | undefined;

function module(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(readFileSync(new URL("../../build/core.wasm", import.meta.url)));
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
