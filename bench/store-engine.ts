/**
 * An engine and the store example's catalogue, from a build's `dist/` (a URL ending in `/`): the
 * in-process set-up the profiling scripts share (profile.ts, two-builds.ts), with a fresh key; and
 * the build's modules themselves (core-rows.ts).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The modules of a build the in-process measures use (bench/core-rows.ts too). */
export async function buildModules(dist: string) {
  const { Engine } = (await import(dist + "worker/portable/engine/engine.js")) as typeof import("../worker/portable/engine/engine.js");
  const { Session } = (await import(dist + "worker/portable/engine/session.js")) as typeof import("../worker/portable/engine/session.js");
  const { nodeCore } = (await import(dist + "cli/sdk/wasm-node.js")) as typeof import("../cli/sdk/wasm-node.js");
  const { installationKey } = (await import(dist + "cli/sdk/home.js")) as typeof import("../cli/sdk/home.js");
  const { catalogueFrom } = (await import(dist + "cli/sdk/catalogue-input.js")) as typeof import("../cli/sdk/catalogue-input.js");
  const { ajvCompiler } = (await import(dist + "cli/sdk/ajv-compiler.js")) as typeof import("../cli/sdk/ajv-compiler.js");
  return { Engine, Session, nodeCore, installationKey, catalogueFrom, ajvCompiler };
}

export async function storeEngine(dist: string) {
  const { Engine, Session, nodeCore, installationKey, catalogueFrom, ajvCompiler } = await buildModules(dist);
  const core = nodeCore();
  const engine = new Engine({ core, key: installationKey(mkdtempSync(join(tmpdir(), "stalwart-prof-"))), schemaCompiler: ajvCompiler });
  const catalogue = catalogueFrom(join(import.meta.dirname, "../examples/store/agent.yaml"), { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
  return { Session, core, engine, catalogue };
}
