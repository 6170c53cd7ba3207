/**
 * The command an invocation names, loaded alone. Importing every command (each with the libraries
 * it runs on) cost each `stalwart` invocation ~0.3 s before it did anything: `stalwart --version`
 * took 0.42 s, against 0.10 s for node itself. Any other first word (`help`, `--help`, a typo,
 * none) loads them all, for the full usage and its suggestions. test/cli/commands.test.ts holds
 * these words to the root's commands.
 */
import type { Command, Group } from "../command.js";
import { ROOT_TEXT } from "./root-words.js";

export const LOADERS: Readonly<Record<string, () => Promise<Command>>> = {
  check: async () => (await import("./check.js")).command,
  replay: async () => (await import("./replay.js")).command,
  rules: async () => (await import("./rules.js")).command,
  licence: async () => (await import("./licence.js")).command,
  doctor: async () => (await import("./doctor.js")).command,
  counters: async () => (await import("./counters.js")).command,
  key: async () => (await import("./key.js")).command,
  gateway: async () => (await import("./gateway.js")).command,
  approvals: async () => (await import("./approvals.js")).command,
};

/** The root a run of `stalwart <word> …` needs: only that command when `word` names one, else all of them. */
export async function rootFor(word: string | undefined): Promise<Group> {
  const load = word !== undefined && Object.hasOwn(LOADERS, word) ? LOADERS[word] : undefined;
  if (!load) return (await import("./index.js")).root;
  return { ...ROOT_TEXT, commands: [await load()] };
}
