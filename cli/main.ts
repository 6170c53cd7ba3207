#!/usr/bin/env node
/**
 * The `stalwart` command: `stalwart <command> [<verb>] [options]`. The commands are declared in
 * cli/commands/ (cli/command.ts says how); this file only answers `--version` and dispatches.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's version: the package.json above this file (cli/ in the repository, dist/cli/ installed). */
function version(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
    if (pkg.name === "stalwart-agents" && typeof pkg.version === "string") return pkg.version;
  }
  return "unknown";
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v")) {
    process.stdout.write(`stalwart ${version()}\n`);
    return 0;
  }
  // loaded here, not above: `--version` needs neither the dispatch nor the engine it reports errors with
  const [{ runGroup }, { rootFor }] = await Promise.all([import("./command.js"), import("./commands/load.js")]);
  return runGroup(await rootFor(argv[0]), argv);
}

/**
 * Exit once stdout and stderr are written out. A pipe is written asynchronously, and
 * `process.exit` drops what is still queued: `approvals list --json | jq` got the first 64 KiB.
 * (Exiting is still needed: a command may leave handles open, e.g. the state store's.) A reader
 * that went away (EPIPE) has nothing more to receive.
 */
function exitFlushed(code: number): void {
  let open = 2;
  for (const out of [process.stdout, process.stderr]) {
    let done = false;
    const flushed = () => {
      if (done) return;
      done = true;
      if (--open === 0) process.exit(code);
    };
    out.once("error", flushed);
    out.write("", flushed);
  }
}

main(process.argv.slice(2)).then(
  (code) => exitFlushed(code),
  (err: unknown) => {
    // every command reports its own errors (cli/command.ts); this is a bug in the dispatch itself
    process.stderr.write(`stalwart: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    exitFlushed(1);
  },
);
