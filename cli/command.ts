/**
 * How a `stalwart` command is declared: its one-line summary, its arguments and its options (read
 * by node:util `parseArgs`), and what it runs. Every usage text — a command's `--help`, a group's,
 * `stalwart --help` — is built from these declarations, so the help cannot drift from the parser.
 *
 * Exit codes are the same for every command (docs/cli.md): 0 ok, 1 a finding, a refusal or a
 * missing licence (any `StalwartError` but a usage error), 2 a usage error.
 */
import { parseArgs } from "node:util";
import { closest, StalwartError } from "../worker/portable/engine/index.js";

/** Where a command writes; tests pass their own. */
export interface Io {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown; isTTY?: boolean };
}

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** the value's name in the usage, e.g. `DIR` */
  value?: string;
  help: string;
  /** set on a required option: the usage error when it is missing */
  required?: string;
  /** a string option that may be given more than once: its value is the list, in order */
  multiple?: boolean;
}

export type OptionSpecs = Record<string, OptionSpec>;

type Values<O extends OptionSpecs> = {
  [K in keyof O]?: O[K]["type"] extends "boolean" ? boolean : O[K]["multiple"] extends true ? string[] : O[K]["type"] extends "string" ? string : string | boolean | string[];
};

interface ArgsSpec {
  /** how the positional arguments read in the usage, e.g. `TRACE.jsonl` or `[agent.yaml]` */
  synopsis: string;
  min: number;
  max: number;
  /** the usage error when fewer than `min` are given */
  missing?: string;
  /** the usage error when more than `max` are given */
  extra?: string;
  /**
   * The operands are a command to run (`-- CMD ARGS…`), with these verbs allowed first: the first
   * other operand ends this command's options even without `--`, as `env` and `npx` read theirs,
   * so the command's own options (`npx -y …`) stay its own. A host may drop the `--` on the way.
   */
  command?: { verbs: readonly string[]; /** the command in the usage, after the options (e.g. `-- CMD ARGS…`) */ operands: string };
}

interface Input<O extends OptionSpecs> {
  values: Values<O>;
  positionals: string[];
  /** how many of `positionals` came before `--` (the rest are words the command passes on as they are) */
  beforeEnd: number;
  io: Io;
}

export interface Leaf<O extends OptionSpecs = OptionSpecs> {
  /** the words after `stalwart`, e.g. `rules compile` */
  path: string;
  summary: string;
  /** more lines for `--help`, after the summary */
  details?: string;
  args: ArgsSpec;
  options: O;
  /** the exit code: 0 ok, 1 a finding; a usage error is thrown as `UsageError` */
  run(input: Input<O>): Promise<number>;
}

export interface Group {
  path: string;
  summary: string;
  details?: string;
  commands: readonly Command[];
}

export type Command = Leaf<any> | Group;

/** Identity, for the types: `values` in `run` is typed by the options declared. */
export function defineCommand<O extends OptionSpecs>(leaf: Leaf<O>): Leaf<O> {
  return leaf;
}

const HELP: OptionSpec = { type: "boolean", short: "h", help: "print this help and do nothing else" };

export function isGroup(c: Command): c is Group {
  return "commands" in c;
}

/** The last word of a command's path: what is typed to choose it inside its group. */
export function wordOf(c: Command): string {
  return c.path.split(" ").pop() ?? c.path;
}

export function usageError(message: string, hint?: string): StalwartError {
  return new StalwartError("UsageError", message, hint ? { hint } : undefined);
}

// ---- help text ---------------------------------------------------------------------------------

function flag(name: string, o: OptionSpec): string {
  return o.short ? `-${o.short}` : `--${name}`;
}

/** `stalwart rules compile RULEBOOK -o DIR [--catalogue agent.yaml] [--json]` */
function synopsis(leaf: Leaf): string {
  const entries = Object.entries(leaf.options);
  const required = entries.filter(([, o]) => o.required);
  const optional = entries.filter(([, o]) => !o.required);
  const part = ([name, o]: [string, OptionSpec]) => `${flag(name, o)}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}${o.multiple ? "…" : ""}`;
  // a command's operands come last, after every option: the options end where it begins
  return ["stalwart", leaf.path, leaf.args.synopsis, ...required.map(part), ...optional.map((e) => `[${part(e)}]`), leaf.args.command?.operands ?? ""].filter((s) => s !== "").join(" ");
}

function table(rows: [string, string][], indent = "  "): string[] {
  const width = Math.min(28, Math.max(...rows.map(([a]) => a.length)));
  return rows.map(([a, b]) => `${indent}${a.padEnd(width)}  ${b}`);
}

function leafHelp(leaf: Leaf): string {
  const options: [string, string][] = [...Object.entries(leaf.options), ["help", HELP] as [string, OptionSpec]].map(([name, o]) => [
    `${o.short ? `-${o.short}, ` : ""}--${name}${o.type === "string" ? ` ${o.value ?? "VALUE"}` : ""}`,
    `${o.help}${o.required ? " (required)" : ""}`,
  ]);
  return [`usage: ${synopsis(leaf)}`, "", leaf.summary, ...(leaf.details ? [leaf.details] : []), "", "options:", ...table(options)].join("\n");
}

/** Every leaf under a command, in declaration order. */
export function leaves(c: Command): Leaf[] {
  return isGroup(c) ? c.commands.flatMap(leaves) : [c];
}

/** `usage:` lines: a leaf's synopsis; a group's, one per verb; the root's, one line. */
function usageLines(c: Command): string[] {
  if (!isGroup(c)) return [`usage: ${synopsis(c)}`];
  if (c.path === "") return ["usage: stalwart <command> [<verb>] [options]"];
  return leaves(c).map((l, i) => `${i === 0 ? "usage: " : "       "}${synopsis(l)}`);
}

function groupHelp(group: Group): string {
  const what = group.path === "" ? "command" : "verb";
  return [
    ...usageLines(group),
    "",
    group.summary,
    "",
    `${what}s:`,
    ...table(leaves(group).map((l) => [l.path.slice(group.path.length).trim(), l.summary])),
    "",
    `\`stalwart ${group.path ? `${group.path} ` : ""}<${what}> --help\` shows the options of one.`,
    ...(group.details ? [group.details] : []),
  ].join("\n");
}

/** What follows a usage error: the usage lines and where the whole help is. */
function usageHint(c: Command): string {
  const lines = c.path === "" ? [] : usageLines(c);
  return [...lines, `\`stalwart ${c.path ? `${c.path} ` : ""}--help\` says more.`].join("\n");
}

// ---- parsing -----------------------------------------------------------------------------------

type ParseOptions = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

function parseOptions(leaf: Leaf): ParseOptions {
  const out: ParseOptions = {};
  for (const [name, o] of Object.entries({ ...leaf.options, help: HELP })) out[name] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) };
  return out;
}

/** The words before any `--`: this command's own (after it, a command's operands). */
function ownWords(argv: readonly string[]): readonly string[] {
  const end = argv.indexOf("--");
  return end < 0 ? argv : argv.slice(0, end);
}

/** `--help` or `-h` before any `--`: the help, whatever else is on the line. */
function asksHelp(argv: readonly string[]): boolean {
  const head = ownWords(argv);
  return head.includes("--help") || head.includes("-h");
}

/** The option a strict parse refused, found again in a lenient parse: a usage error naming it. */
function optionError(leaf: Leaf, argv: string[], options: ParseOptions): StalwartError {
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  const names = Object.entries(options).flatMap(([n, o]) => [`--${n}`, ...(o.short ? [`-${o.short}`] : [])]);
  for (const t of tokens ?? []) {
    if (t.kind !== "option") continue;
    const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (!spec) {
      const near = closest(t.rawName, names);
      return usageError(`unknown option \`${t.rawName}\``, near ? `did you mean \`${near}\`?` : `the options of \`stalwart ${leaf.path}\`: ${names.join(", ")}`);
    }
    const declared = Object.hasOwn(leaf.options, t.name) ? leaf.options[t.name] : undefined;
    if (spec.type === "string" && (t.value === undefined || (!t.inlineValue && t.value.startsWith("-")))) {
      // `--call-timeout -5`: a negative number (or `-`) starts with a dash, so the parser took it for an option
      const dashed = t.value !== undefined && !t.inlineValue && /^-(\d|\.\d|$)/.test(t.value) ? `; \`${t.value}\` starts with a dash, so it was read as an option (write \`--${t.name}=${t.value}\` if it is the value)` : "";
      return usageError(`\`${t.rawName}\` needs a value${dashed}`, `e.g. \`${t.rawName} ${declared?.value ?? "VALUE"}\``);
    }
    if (spec.type === "boolean" && t.value !== undefined) return usageError(`\`${t.rawName}\` takes no value`);
  }
  return usageError("the options do not parse");
}

/**
 * `argv` with `--` put before the first operand that is not a verb, for a leaf whose operands are
 * a command (`ArgsSpec.command`); as it is when it has a `--` already, or no such operand.
 */
function commandEnded(leaf: Leaf, argv: string[], options: ParseOptions): string[] {
  const spec = leaf.args.command;
  if (!spec) return argv;
  // lenient: an unknown option is the strict parse's to name, not this one's
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  let operands = 0;
  for (const t of tokens ?? []) {
    if (t.kind === "option-terminator") return argv;
    if (t.kind !== "positional") continue;
    if (operands++ === 0 && spec.verbs.includes(t.value)) continue;
    return [...argv.slice(0, t.index), "--", ...argv.slice(t.index)];
  }
  return argv;
}

function parse(leaf: Leaf, argv: string[]): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[]; beforeEnd: number } {
  const options = parseOptions(leaf);
  let parsed: { values: Record<string, string | boolean | string[] | undefined>; positionals: string[]; beforeEnd: number };
  try {
    const { values, positionals, tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: true, tokens: true });
    const end = tokens.findIndex((t) => t.kind === "option-terminator");
    // only string options are `multiple`: their lists hold strings
    parsed = { values: values as Record<string, string | boolean | string[] | undefined>, positionals, beforeEnd: tokens.slice(0, end < 0 ? tokens.length : end).filter((t) => t.kind === "positional").length };
  } catch {
    throw optionError(leaf, argv, options);
  }
  const { min, max, missing, extra } = leaf.args;
  if (parsed.positionals.length < min) throw usageError(missing ?? `\`stalwart ${leaf.path}\` needs ${leaf.args.synopsis}`);
  if (parsed.positionals.length > max) throw usageError(extra ?? (max === 0 ? `\`stalwart ${leaf.path}\` takes no arguments` : `too many arguments`));
  for (const [name, o] of Object.entries(leaf.options)) {
    if (o.required && parsed.values[name] === undefined) throw usageError(o.required);
  }
  return parsed;
}

// ---- running -----------------------------------------------------------------------------------

const processIo = (): Io => ({ stdout: process.stdout, stderr: process.stderr });

/** A failure as its exit code: printed as JSON on stdout with `--json`, else on stderr. */
function report(err: unknown, io: Io, opts: { json: boolean; path: string; help: string }): number {
  if (!(err instanceof StalwartError)) {
    io.stderr.write(`stalwart: internal error: ${(err as Error)?.stack ?? String(err)}\n`);
    return 1;
  }
  const usage = err.code === "UsageError";
  // A CatalogueError's message is its problems, each already with its own hint: not said twice.
  const hint = err.hint && !err.message.includes(`hint: ${err.hint}`) ? err.hint : undefined;
  if (opts.json) {
    io.stdout.write(JSON.stringify({ error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } }, null, 2) + "\n");
  } else if (usage) {
    io.stderr.write(`stalwart${opts.path ? ` ${opts.path}` : ""}: ${err.message}${err.hint ? `\n  hint: ${err.hint}` : ""}\n\n${opts.help}\n`);
  } else {
    io.stderr.write(`stalwart: ${err.code}: ${err.message}${hint ? `\n  hint: ${hint}` : ""}\n`);
  }
  return usage ? 2 : 1;
}

export async function runLeaf(leaf: Leaf, given: string[], io: Io = processIo()): Promise<number> {
  // (the help asked for, and the options, end where a command's operands begin)
  const argv = commandEnded(leaf, given, parseOptions(leaf));
  if (asksHelp(argv)) {
    io.stdout.write(leafHelp(leaf) + "\n");
    return 0;
  }
  // (a tool server's own `--json`, after `--`, is not ours)
  const json = ownWords(argv).includes("--json");
  try {
    const { values, positionals, beforeEnd } = parse(leaf, argv);
    return await leaf.run({ values, positionals, beforeEnd, io });
  } catch (err) {
    return report(err, io, { json, path: leaf.path, help: usageHint(leaf) });
  }
}

export async function runGroup(group: Group, argv: string[], io: Io = processIo()): Promise<number> {
  const [word, ...rest] = argv;
  const what = group.path === "" ? "command" : "verb";
  if (word === "--help" || word === "-h" || word === "help") {
    // `stalwart help rules compile` is `stalwart rules compile --help`
    if (word === "help" && rest.length > 0) return runCommand(group, [...rest, "--help"], io);
    io.stdout.write(groupHelp(group) + "\n");
    return 0;
  }
  const words = group.commands.map(wordOf);
  // `--json` anywhere before `--`: a usage error is JSON on stdout too, as cli.md says of every error
  const json = ownWords(argv).includes("--json");
  const fail = (message: string, hint?: string) => report(usageError(message, hint), io, { json, path: group.path, help: usageHint(group) });
  // nothing named: the whole help, as a usage error
  if (word === undefined) return report(usageError(`name a ${what}: ${words.map((w) => `\`${w}\``).join(", ")}`), io, { json, path: group.path, help: groupHelp(group) });
  const next = group.commands.find((c) => wordOf(c) === word);
  if (!next) {
    const near = closest(word, words);
    const prefix = group.path ? `${group.path} ` : "";
    if (word.startsWith("-")) return fail(`\`${word}\` comes after the ${what}: \`stalwart ${prefix}<${what}> ${word}\``);
    return fail(`unknown ${what} \`${word}\``, near ? `did you mean \`${near}\`?` : `the ${what}s: ${words.join(", ")}`);
  }
  return runCommand(next, rest, io);
}

function runCommand(c: Command, argv: string[], io: Io = processIo()): Promise<number> {
  return isGroup(c) ? runGroup(c, argv, io) : runLeaf(c, argv, io);
}
