// Node glue for the check core: read build/core.wasm beside the sources (or dist/build/core.wasm
// beside the built JS — scripts/copy-wasm.mjs keeps the relative path the same) and instantiate once.
import { readFileSync } from "node:fs";
import { createCore, type Core } from "../worker/engine/wasm/core.js";

let core: Core | undefined;

/** The process-wide check core (compiled and instantiated on first use). */
export function nodeCore(): Core {
  core ??= createCore(readFileSync(new URL("../build/core.wasm", import.meta.url)));
  return core;
}
