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
import type { CompiledCatalogue } from "../../worker/portable/engine/index.js";
import { CatalogueError, formatProblem, type CatalogueProblem } from "../../worker/portable/engine/index.js";
import { REGISTRY_FILE, registryText, type CompiledRulebook } from "../../worker/portable/engine/index.js";
import { loadCatalogueNode } from "../sdk/catalogue-node.js";
import { lintRulebookNode, loadRulebookNode, readRulebookInput } from "../sdk/rulebook-node.js";
import { requireLicence } from "../sdk/licence-gate.js";

export const summary = "compile a rulebook (YAML or CSV) into the registry the check reads; check one";

const USAGE = `usage: stalwart rules compile RULEBOOK -o DIR [--catalogue agent.yaml] [--json]
       stalwart rules check RULEBOOK [--catalogue agent.yaml] [--json]

  compile   lint RULEBOOK (rulebook.yaml or rules.csv) and write DIR/registry.json
  check     lint only; RULEBOOK may also be a registry folder (its digest is verified)
  -o, --out DIR          the registry folder (created if needed)
  --catalogue FILE       check tool names, \`from\` fields and arguments against this catalogue
  --json                 print {ok, rules, flows, digest, registry} or {ok: false, problems}`;

interface Args {
  verb?: string;
  files: string[];
  out?: string;
  catalogue?: string;
  json: boolean;
  help: boolean;
  error?: string;
}

function parse(argv: string[]): Args {
  const a: Args = { files: [], json: false, help: false };
  const value = (i: number, flag: string): string | undefined => {
    const v = argv[i + 1];
    if (v === undefined || v.startsWith("-")) a.error ??= `\`${flag}\` needs a value`;
    return v;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf("=");
    const [flag, inline] = arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (flag === "--json") a.json = true;
    else if (flag === "--help" || flag === "-h") a.help = true;
    else if (flag === "-o" || flag === "--out") a.out = inline ?? value(i++, flag);
    else if (flag === "--catalogue") a.catalogue = inline ?? value(i++, flag);
    else if (arg.startsWith("-") && arg !== "-") a.error ??= `unknown option \`${arg}\``;
    else if (a.verb === undefined) a.verb = arg;
    else a.files.push(arg);
  }
  return a;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export async function run(argv: string[]): Promise<number> {
  const args = parse(argv);
  if (args.help) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  const usage = (message: string) => {
    process.stderr.write(`stalwart rules: ${message}\n\n${USAGE}\n`);
    return 2;
  };
  if (args.error) return usage(args.error);
  if (args.verb !== "compile" && args.verb !== "check") return usage(args.verb === undefined ? "name a verb: `compile` or `check`" : `unknown verb \`${args.verb}\``);
  if (args.files.length !== 1) return usage(args.files.length === 0 ? "name the rulebook, e.g. `rulebook.yaml` or `rules.csv`" : "one rulebook at a time");
  if (args.verb === "compile" && !args.out) return usage("name the registry folder: `-o DIR`");
  if (args.verb === "check" && args.out) return usage("`-o` is for `compile`");
  await requireLicence(); // licensing.md: only `licence activate`, `doctor` and `check` work without one
  const file = args.files[0]!;

  const problemsOut = (problems: readonly CatalogueProblem[], what: string): number => {
    if (args.json) {
      const out = { ok: false, problems: problems.map(({ file, line, column, message, hint, pointer }) => ({ file, line, column, message, hint: hint ?? null, pointer })) };
      process.stdout.write(JSON.stringify(out, null, 2) + "\n");
    } else {
      process.stderr.write(problems.map(formatProblem).join("\n") + "\n");
      process.stderr.write(`${what}: ${plural(problems.length, "error")}\n`);
    }
    return 1;
  };

  let catalogue: CompiledCatalogue | undefined;
  if (args.catalogue) {
    try {
      catalogue = loadCatalogueNode(args.catalogue);
    } catch (err) {
      if (!(err instanceof CatalogueError)) throw err;
      return problemsOut(err.problems, args.catalogue);
    }
  }
  const options = catalogue ? { catalogue } : {};

  if (args.verb === "check") {
    const problems = lintRulebookNode(file, options);
    if (problems.length > 0) return problemsOut(problems, file);
    const rb = loadRulebookNode(file, options);
    return done(args.json, rb, `${file}: ok (${counts(rb)})`, {});
  }

  // compile: a rulebook file, never a registry (that is already compiled)
  let rb: CompiledRulebook;
  try {
    const input = readRulebookInput(file, options);
    if (input.kind !== "rulebook") return usage(`\`${file}\` is a registry already; \`compile\` reads a rulebook (.yaml, .yml or .csv)`);
    rb = loadRulebookNode(file, options);
  } catch (err) {
    if (!(err instanceof CatalogueError)) throw err;
    return problemsOut(err.problems, file);
  }
  const out = args.out!;
  const target = join(out, REGISTRY_FILE);
  const temp = join(out, `.${REGISTRY_FILE}.${process.pid}.tmp`);
  try {
    mkdirSync(out, { recursive: true });
    // written beside and renamed: a reader never sees half a registry
    writeFileSync(temp, registryText(rb, { source: basename(file) }));
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    process.stderr.write(`stalwart rules compile: cannot write \`${target}\`: ${(err as Error).message}\n  hint: check that \`${out}\` is a folder you can write to\n`);
    return 1;
  }
  return done(args.json, rb, `${counts(rb)} → ${target}`, { registry: target });
}

function counts(rb: CompiledRulebook): string {
  return `${plural(rb.rules.length, "rule")}, ${plural(rb.flows.length, "flow")}`;
}

function done(json: boolean, rb: CompiledRulebook, line: string, extra: Record<string, unknown>): number {
  if (json) process.stdout.write(JSON.stringify({ ok: true, rules: rb.rules.length, flows: rb.flows.length, digest: rb.digest, source: rb.source, ...extra }, null, 2) + "\n");
  else process.stdout.write(line + "\n");
  return 0;
}
