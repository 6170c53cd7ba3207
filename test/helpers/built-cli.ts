/**
 * The `stalwart` command as the package installs it: `dist/cli/main.js`. That is what a user runs,
 * and it starts with ~1 s less CPU than the sources through tsx, which the suite paid in every one
 * of the hundreds of processes it starts. `npm test` builds first; a test run on its own that starts
 * the command refuses a build older than the sources, naming the newer file, rather than testing
 * code that is no longer there.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "../..");
const BUILT = join(ROOT, "dist/cli/main.js");
/** what the build compiles: the command, the worker and engine, the WASM core */
const SOURCES = ["cli", "worker", "assembly"];

function newest(dir: string, best: { path: string; mtime: number }): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const at = join(dir, e.name);
    if (e.isDirectory()) newest(at, best);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith(".test.ts")) {
      const mtime = statSync(at).mtimeMs;
      if (mtime > best.mtime) Object.assign(best, { path: at, mtime });
    }
  }
}

let checked: string | undefined;

/** The path of the built command; throws when there is none or it is older than a source. */
export function builtCli(): string {
  if (checked !== undefined) return checked;
  if (!existsSync(BUILT)) throw new Error("dist/cli/main.js is missing: run `npm run build` first (`npm test` does)");
  const best = { path: "", mtime: 0 };
  for (const d of SOURCES) newest(join(ROOT, d), best);
  if (best.mtime > statSync(BUILT).mtimeMs) {
    throw new Error(`dist/ was built before ${relative(ROOT, best.path)} last changed: run \`npm run build\` first (\`npm test\` does)`);
  }
  return (checked = BUILT);
}

/** The absolute path of a module of the build (`cli/sdk/index.js` → `dist/cli/sdk/index.js`), for a
 * child process to import with plain node; refused as `builtCli()` refuses an old build. */
export function builtModule(path: string): string {
  const main = builtCli();
  return join(main, "../..", path);
}
