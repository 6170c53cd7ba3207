/**
 * The check worker as `wrangler deploy` bundles it, loaded into Node: the same esbuild (wrangler's
 * own copy) with the options wrangler passes for a module worker (target es2024, the
 * workerd/worker/browser conditions, NODE_ENV=production, `keep_names` and `minify` as the tree's
 * wrangler.toml sets them, else wrangler's defaults: true and false), over the code the Workers entry
 * (worker/workerd/check/index.ts) imports — the app, the engine — plus the memory stores the
 * bench runs it on. What it leaves out is what Node cannot load: the `.wasm` imports (the same
 * builds are compiled here and handed to `createPreferredCore`, as index.ts hands its imports)
 * and the Durable Object classes.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Core } from "../worker/portable/engine/index.js";
import type { Stores } from "../worker/workerd/check/stores.js";

type Eng = typeof import("../worker/portable/engine/index.js");
type App = ReturnType<typeof import("../worker/workerd/check/app.js").createApp>;

/** What a worker bench drives: the app's factory, a core, the engine's exports, fresh memory stores. */
export interface WorkerModules {
  /** what it is, for the bench's lines */
  what: string;
  createApp: (o: { core: () => Core; stores: () => Stores }) => App;
  core: () => Core;
  eng: Eng;
  stores: () => Stores;
}

const repo = join(import.meta.dirname, "..");

/** The sources, each module through the TypeScript loader (tsx), as the bench measured up to round 9. */
export async function sourceWorker(): Promise<WorkerModules> {
  const { createApp } = await import("../worker/workerd/check/app.js");
  const { nodeCore } = await import("../cli/sdk/wasm-node.js");
  const eng = await import("../worker/portable/engine/index.js");
  const { testStores } = await import("../test/helpers/memory-stores.js");
  return { what: "sources via tsx", createApp, core: nodeCore, eng, stores: testStores };
}

/**
 * The bundle, built once per process into a temporary directory (`root`: another tree's sources,
 * e.g. main's; `extra`: export lines added to the entry, for a probe that wraps the worker's own classes).
 */
export async function bundledWorker(root = repo, extra: readonly string[] = []): Promise<WorkerModules & { extra: Record<string, unknown> }> {
  const wranglerRequire = createRequire(createRequire(join(repo, "package.json")).resolve("wrangler/package.json"));
  const esbuild = wranglerRequire("esbuild") as typeof import("esbuild");
  const dir = mkdtempSync(join(tmpdir(), "stalwart-worker-bundle-"));
  const out = join(dir, "check.mjs");
  // wrangler's defaults unless the tree's wrangler.toml sets them (top-level keys only)
  const toml = readFileSync(join(root, "wrangler.toml"), "utf8");
  const flag = (key: string, d: boolean) => {
    const m = new RegExp(`^${key}\\s*=\\s*(true|false)\\s*$`, "m").exec(toml.split(/^\[/m)[0] ?? "");
    return m ? m[1] === "true" : d;
  };
  const keepNames = process.env.STALWART_BENCH_KEEP_NAMES ? process.env.STALWART_BENCH_KEEP_NAMES === "1" : flag("keep_names", true);
  const minify = flag("minify", false);
  await esbuild.build({
    stdin: {
      contents: [
        `export { createApp } from "./worker/workerd/check/app.js";`,
        `export { memoryStores } from "./worker/workerd/check/stores.js";`,
        `export * as eng from "./worker/portable/engine/index.js";`,
        ...extra,
      ].join("\n"),
      resolveDir: root,
      sourcefile: "bench-worker-entry.ts",
      loader: "ts",
    },
    absWorkingDir: root,
    bundle: true,
    format: "esm",
    outfile: out,
    target: "es2024",
    keepNames,
    minify,
    conditions: ["workerd", "worker", "browser"],
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
    external: ["node:*", "cloudflare:*"],
    logLevel: "warning",
  });
  let m: { [k: string]: unknown; createApp: WorkerModules["createApp"]; memoryStores: typeof import("../worker/workerd/check/stores.js").memoryStores; eng: Eng };
  try {
    m = (await import(pathToFileURL(out).href)) as typeof m;
  } finally {
    // loaded: the file is not read again (STALWART_BENCH_KEEP_BUNDLE=1 keeps it, to read a profile's lines)
    if (process.env.STALWART_BENCH_KEEP_BUNDLE !== "1") rmSync(dir, { recursive: true, force: true });
  }
  const builds = ["core-simd.wasm", "core.wasm"].map((f) => new WebAssembly.Module(readFileSync(join(root, "build", f))));
  let core: Core | undefined;
  return {
    what: `the worker bundled as wrangler bundles it (esbuild, es2024${keepNames ? ", keep_names" : ""}${minify ? ", minify" : ""})`,
    createApp: m.createApp,
    core: () => (core ??= m.eng.createPreferredCore(builds)),
    eng: m.eng,
    stores: () => m.memoryStores(() => new m.eng.MemoryStateStore()),
    extra: m,
  };
}
