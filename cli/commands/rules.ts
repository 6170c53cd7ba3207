/**
 * `stalwart rules compile RULEBOOK -o DIR` and `stalwart rules check RULEBOOK` (interfaces.md CLI;
 * checks.md "Rulebook gate"). `compile` lints a YAML rulebook or a rules spreadsheet (CSV) and
 * writes the registry the check reads, `DIR/registry.json`; `check` only lints (a registry folder
 * too: its digest and its rules). With `--catalogue agent.yaml`, tool names, `from` fields and
 * arguments are checked against the catalogue. Errors are compiler-style on stderr — every
 * problem as `file:line:column: error: …` with a `hint:` line — and exit 1; usage errors exit 2.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import {
  CatalogueError,
  formatProblem,
  REGISTRY_FILE,
  registryText,
  type CatalogueProblem,
  type CompiledCatalogue,
  type CompiledRulebook,
} from "../../worker/portable/engine/index.js";
import { defineCommand, runGroup, usageError, type Group, type Io } from "../command.js";
import { loadCatalogueNode } from "../sdk/catalogue-node.js";
import { requireLicence } from "../sdk/licence-gate.js";
import { lintRulebookNode, loadRulebookNode, readRulebookInput } from "../sdk/rulebook-node.js";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

const common = {
  catalogue: { type: "string", value: "agent.yaml", help: "check tool names, `from` fields and arguments against this catalogue" },
  json: { type: "boolean", help: "print {ok, rules, flows, digest, registry} or {ok: false, problems}" },
} as const;

const rulebookArg = { synopsis: "RULEBOOK", min: 1, max: 1, missing: "name the rulebook, e.g. `rulebook.yaml` or `rules.csv`", extra: "one rulebook at a time" };

function problemsOut(io: Io, json: boolean | undefined, problems: readonly CatalogueProblem[], what: string): number {
  if (json) {
    const out = { ok: false, problems: problems.map(({ file, line, column, message, hint, pointer }) => ({ file, line, column, message, hint: hint ?? null, pointer })) };
    io.stdout.write(JSON.stringify(out, null, 2) + "\n");
  } else {
    io.stderr.write(problems.map(formatProblem).join("\n") + "\n");
    io.stderr.write(`${what}: ${plural(problems.length, "error")}\n`);
  }
  return 1;
}

/** The licence first (licensing.md: only `licence`, `doctor` and `check` work without one), then the catalogue. */
async function prepare(io: Io, values: { catalogue?: string | undefined; json?: boolean | undefined }): Promise<{ catalogue?: CompiledCatalogue } | number> {
  await requireLicence();
  if (values.catalogue === undefined) return {};
  try {
    return { catalogue: loadCatalogueNode(values.catalogue) };
  } catch (err) {
    if (!(err instanceof CatalogueError)) throw err;
    return problemsOut(io, values.json, err.problems, values.catalogue);
  }
}

function counts(rb: CompiledRulebook): string {
  return `${plural(rb.rules.length, "rule")}, ${plural(rb.flows.length, "flow")}`;
}

function done(io: Io, json: boolean | undefined, rb: CompiledRulebook, line: string, extra: Record<string, unknown>): number {
  if (json) io.stdout.write(JSON.stringify({ ok: true, rules: rb.rules.length, flows: rb.flows.length, digest: rb.digest, source: rb.source, ...extra }, null, 2) + "\n");
  else io.stdout.write(line + "\n");
  return 0;
}

const compile = defineCommand({
  path: "rules compile",
  summary: "compile a rulebook (YAML, or a rules spreadsheet as CSV) into the registry a session loads",
  details: "Lints RULEBOOK (rulebook.yaml or rules.csv) and writes DIR/registry.json.",
  args: rulebookArg,
  options: {
    out: { type: "string", short: "o", value: "DIR", help: "the registry folder (created if needed)", required: "name the registry folder: `-o DIR`" },
    ...common,
  },
  async run({ values, positionals, io }) {
    const file = positionals[0] ?? "";
    const out = values.out ?? "";
    const options = await prepare(io, values);
    if (typeof options === "number") return options;
    // a rulebook file, never a registry (that is already compiled)
    let rb: CompiledRulebook;
    try {
      const input = readRulebookInput(file, options);
      if (input.kind !== "rulebook") throw usageError(`\`${file}\` is a registry already; \`compile\` reads a rulebook (.yaml, .yml or .csv)`, `\`stalwart rules check ${file}\` verifies a registry`);
      rb = loadRulebookNode(file, options);
    } catch (err) {
      if (!(err instanceof CatalogueError)) throw err;
      return problemsOut(io, values.json, err.problems, file);
    }
    const target = join(out, REGISTRY_FILE);
    const temp = join(out, `.${REGISTRY_FILE}.${process.pid}.tmp`);
    try {
      mkdirSync(out, { recursive: true });
      // written beside and renamed: a reader never sees half a registry
      writeFileSync(temp, registryText(rb, { source: basename(file) }));
      renameSync(temp, target);
    } catch (err) {
      rmSync(temp, { force: true });
      io.stderr.write(`stalwart rules compile: cannot write \`${target}\`: ${(err as Error).message}\n  hint: check that \`${out}\` is a folder you can write to\n`);
      return 1;
    }
    return done(io, values.json, rb, `${counts(rb)} → ${target}`, { registry: target });
  },
});

const check = defineCommand({
  path: "rules check",
  summary: "lint a rulebook, or verify a compiled registry folder (its digest and its rules)",
  args: rulebookArg,
  options: common,
  async run({ values, positionals, io }) {
    const file = positionals[0] ?? "";
    const options = await prepare(io, values);
    if (typeof options === "number") return options;
    const problems = lintRulebookNode(file, options);
    if (problems.length > 0) return problemsOut(io, values.json, problems, file);
    const rb = loadRulebookNode(file, options);
    return done(io, values.json, rb, `${file}: ok (${counts(rb)})`, {});
  },
});

export const command: Group = {
  path: "rules",
  summary: "compile a rulebook (YAML or CSV) into the registry the check reads; check one",
  commands: [compile, check],
};

export const summary = command.summary;
export const run = (argv: string[], io?: Io): Promise<number> => runGroup(command, argv, io);
