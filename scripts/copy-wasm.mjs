// Ship the compiled check core beside the JS: dist/cli/sdk/*.js finds it at ../../build/core.wasm
// (and the SIMD build at ../../build/core-simd.wasm), the same relative paths the sources use, so
// Node glue has one lookup.
import { mkdirSync, copyFileSync, chmodSync, existsSync } from "node:fs";
mkdirSync("dist/build", { recursive: true });
copyFileSync("build/core.wasm", "dist/build/core.wasm");
copyFileSync("build/core-simd.wasm", "dist/build/core-simd.wasm");
if (existsSync("dist/cli/main.js")) chmodSync("dist/cli/main.js", 0o755);
