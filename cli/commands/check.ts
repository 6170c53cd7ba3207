/**
 * `stalwart check [agent.yaml] [--json]` (interfaces.md CLI): lint a catalogue the way a compiler
 * does — every problem as `file:line:column: error: message` with a `hint:` line, on stderr —
 * and exit 1; exit 0 with `agent.yaml: ok (N tools)`. Warnings (the catalogue loads, but e.g. a
 * tool declares no `args`) are printed the same way as `warning:` and do not change the exit
 * code. Works without a licence.
 */
import { CatalogueError, formatProblem, formatWarning, type CatalogueProblem } from "../../worker/portable/engine/index.js";
import { loadCatalogue } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "../sdk/ajv-compiler.js";
import { readCatalogueFile } from "../sdk/catalogue-node.js";
import { lintRulebookNode } from "../sdk/rulebook-node.js";

export const summary = "lint a catalogue: every error with file:line:column; exit 1 on error";

const USAGE = `usage: stalwart check [agent.yaml] [--rulebook RULEBOOK] [--json]

  lint a catalogue (default: agent.yaml in the current folder), and a rulebook against it; exit 1 on error
  --rulebook   a rulebook (.yaml or .csv) or a compiled registry folder, checked against the catalogue
  --json       print {ok, problems: [{file, line, column, message, hint, pointer}], warnings: [same]}`;

export async function run(argv: string[]): Promise<number> {
  const json = argv.includes("--json");
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  let rulebook: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--rulebook") rulebook = argv[++i];
    else if (argv[i]!.startsWith("--rulebook=")) rulebook = argv[i]!.slice(11);
    else rest.push(argv[i]!);
  }
  if (argv.includes("--rulebook") && !rulebook) {
    process.stderr.write(`stalwart check: \`--rulebook\` needs a file\n\n${USAGE}\n`);
    return 2;
  }
  const unknown = rest.filter((a) => a.startsWith("-") && a !== "--json");
  const files = rest.filter((a) => !a.startsWith("-"));
  if (unknown.length > 0 || files.length > 1) {
    process.stderr.write(`stalwart check: ${unknown.length ? `unknown option \`${unknown[0]}\`` : "one catalogue at a time"}\n\n${USAGE}\n`);
    return 2;
  }
  const file = files[0] ?? "agent.yaml";
  let problems: readonly CatalogueProblem[] = [];
  let warnings: readonly CatalogueProblem[] = [];
  let tools = 0;
  try {
    // read the file here, so a path without a .yaml ending is still read as a path
    const catalogue = loadCatalogue(readCatalogueFile(file), { file, schemaCompiler: ajvCompiler });
    tools = catalogue.tools.size;
    warnings = catalogue.warnings;
    if (rulebook !== undefined) problems = lintRulebookNode(rulebook, { catalogue });
  } catch (err) {
    if (!(err instanceof CatalogueError)) throw err;
    problems = err.problems;
    warnings = err.warnings;
  }
  const plain = ({ file, line, column, message, hint, pointer }: CatalogueProblem) => ({ file, line, column, message, hint: hint ?? null, pointer });
  if (json) {
    const out = { ok: problems.length === 0, ...(problems.length === 0 ? { tools } : {}), problems: problems.map(plain), warnings: warnings.map(plain) };
    process.stdout.write(JSON.stringify(out, null, 2) + "\n");
    return problems.length === 0 ? 0 : 1;
  }
  const w = warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? "" : "s"}` : "";
  if (problems.length === 0) {
    if (warnings.length > 0) process.stderr.write(warnings.map(formatWarning).join("\n") + "\n");
    process.stdout.write(`${file}: ok (${tools} tool${tools === 1 ? "" : "s"}${w})\n`);
    return 0;
  }
  process.stderr.write([...problems.map(formatProblem), ...warnings.map(formatWarning)].join("\n") + "\n");
  process.stderr.write(`${file}: ${problems.length} error${problems.length === 1 ? "" : "s"}${w}\n`);
  return 1;
}
