// `node bench/golden.mjs [ROOT]`: one fixed session (fixed key, clock and id) run on the built
// checkout at ROOT (default: this one), printed as the SHA-256 of its saved form, of every answer
// and of every entry's canonical bytes. Two builds that print the same lines sign byte-identical
// histories: the speed work must never change what is signed (checks.md, "The session history").
// test/core/golden-history.test.ts pins the same digest for the sources.
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";

const root = resolve(process.argv[2] ?? join(import.meta.dirname, ".."));
const d = (p) => import(join(root, "dist", p));
const { Engine } = await d("worker/portable/engine/engine.js");
const { Session } = await d("worker/portable/engine/session.js");
const { nodeCore } = await d("cli/sdk/wasm-node.js");
const { catalogueFrom } = await d("cli/sdk/catalogue-input.js");
const { ajvCompiler } = await d("cli/sdk/ajv-compiler.js");
const { goldenSession } = await import("./golden-session.mjs");

const core = nodeCore();
const catalogue = catalogueFrom(join(import.meta.dirname, "../examples/store/agent.yaml"), { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
const out = await goldenSession({ Engine, Session, core, catalogue, schemaCompiler: ajvCompiler });
const sha = (s) => createHash("sha256").update(s).digest("hex");
console.log(`saved:   ${sha(out.saved)}`);
console.log(`answers: ${sha(out.answers)}`);
console.log(`resumed: ${sha(out.resumed)}`);
console.log(`entries: ${out.entries}`);
