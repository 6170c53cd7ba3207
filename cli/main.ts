#!/usr/bin/env node
/**
 * The `stalwart` command: `stalwart <noun> <verb>`. Each command lives in cli/commands/<noun>.ts
 * and exports `run(argv: string[]): Promise<number>` (the exit code); this file only dispatches.
 */
import { StalwartError } from "../worker/portable/engine/index.js";

type Command = { run(argv: string[]): Promise<number>; summary: string };

const commands: Record<string, () => Promise<Command>> = {
  check: () => import("./commands/check.js"),
  replay: () => import("./commands/replay.js"),
  rules: () => import("./commands/rules.js"),
  licence: () => import("./commands/licence.js"),
  doctor: () => import("./commands/doctor.js"),
  counters: () => import("./commands/counters.js"),
};

function usage(): string {
  return [
    "usage: stalwart <command> [options]",
    "",
    "  check [agent.yaml]                         lint a catalogue; exit 1 on error",
    "  replay TRACE.jsonl --catalogue agent.yaml  check a recorded session offline; per predicate, how many calls it held",
    "  rules compile RULEBOOK -o DIR              compile a rulebook (YAML or CSV) into the registry a session loads",
    "  rules check RULEBOOK [--catalogue FILE]    lint a rulebook",
    "  licence activate|status|release|request|answer|install",
    "  doctor                                     what works, what is missing",
    "",
    "add --json for machine-readable output",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(usage() + "\n");
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`stalwart: unknown command \`${name}\`\n\n${usage()}\n`);
    return 2;
  }
  let command: Command;
  try {
    command = await load();
  } catch (err) {
    process.stderr.write(`stalwart: command \`${name}\` is not available in this build (${(err as Error).message})\n`);
    return 2;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof StalwartError) {
      process.stderr.write(`stalwart: ${err.code}: ${err.message}${err.hint ? `\n  hint: ${err.hint}` : ""}\n`);
    } else {
      process.stderr.write(`stalwart: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    }
    process.exit(2);
  },
);
