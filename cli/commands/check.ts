/**
 * `stalwart check [agent.yaml] [--json]` (interfaces.md CLI): lint a catalogue the way a compiler
 * does — every problem as `file:line:column: error: message` with a `hint:` line, on stderr —
 * and exit 1; exit 0 with `agent.yaml: ok (N tools)`. Warnings (the catalogue loads, but e.g. a
 * tool declares no `args`) are printed the same way as `warning:` and do not change the exit
 * code. Works without a licence.
 */
import { CatalogueError, formatProblem, formatWarning, loadCatalogue, MAX_LINT_PROBLEMS, type CatalogueProblem } from "../../worker/portable/engine/index.js";
import { defineCommand, runLeaf, type Io } from "../command.js";
import { ajvCompiler } from "../sdk/ajv-compiler.js";
import { readCatalogueFile } from "../sdk/catalogue-node.js";
import { lintRulebookNode } from "../sdk/rulebook-node.js";

const plain = ({ file, line, column, message, hint, pointer }: CatalogueProblem) => ({ file, line, column, message, hint: hint ?? null, pointer });

export const command = defineCommand({
  path: "check",
  summary: "lint a catalogue, and a rulebook against it: every error with file:line:column; exit 1 on an error",
  details: "The catalogue defaults to agent.yaml in the current folder. Warnings do not change the exit code. Works without a licence.",
  args: { synopsis: "[agent.yaml]", min: 0, max: 1, extra: "one catalogue at a time" },
  options: {
    rulebook: { type: "string", value: "RULEBOOK", help: "a rulebook (.yaml or .csv) or a compiled registry folder, checked against the catalogue" },
    json: { type: "boolean", help: "print {ok, tools, problems: [{file, line, column, message, hint, pointer}], warnings: [same], stopped_at} (stopped_at: the analysis stopped at 1,000; there may be more)" },
  },
  async run({ values, positionals, io }) {
    const file = positionals[0] ?? "agent.yaml";
    let problems: readonly CatalogueProblem[] = [];
    let warnings: readonly CatalogueProblem[] = [];
    let tools = 0;
    let caught = false;
    try {
      // read the file here, so a path without a .yaml ending is still read as a path
      const catalogue = loadCatalogue(readCatalogueFile(file), { file, schemaCompiler: ajvCompiler });
      tools = catalogue.tools.size;
      warnings = catalogue.warnings;
      if (values.rulebook !== undefined) problems = lintRulebookNode(values.rulebook, { catalogue });
    } catch (err) {
      if (!(err instanceof CatalogueError)) throw err;
      caught = true;
      problems = err.problems;
      warnings = err.warnings;
    }
    // The catalogue's analysis stops at 1,000 problems (and 1,000 warnings): that many is where it
    // stopped, not a count. A rulebook's problems (linted once the catalogue is clean) are all listed.
    const stopped = warnings.length >= MAX_LINT_PROBLEMS || (caught && problems.length >= MAX_LINT_PROBLEMS);
    if (values.json) {
      const out = { ok: problems.length === 0, ...(problems.length === 0 ? { tools } : {}), problems: problems.map(plain), warnings: warnings.map(plain), ...(stopped ? { stopped_at: MAX_LINT_PROBLEMS } : {}) };
      io.stdout.write(JSON.stringify(out, null, 2) + "\n");
      return problems.length === 0 ? 0 : 1;
    }
    const w = (warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? "" : "s"}` : "") + (stopped ? STOPPED : "");
    if (problems.length === 0) {
      if (warnings.length > 0) io.stderr.write(warnings.map(formatWarning).join("\n") + "\n");
      io.stdout.write(`${file}: ok (${tools} tool${tools === 1 ? "" : "s"}${w})\n`);
      return 0;
    }
    io.stderr.write([...problems.map(formatProblem), ...warnings.map(formatWarning)].join("\n") + "\n");
    io.stderr.write(`${file}: ${problems.length} error${problems.length === 1 ? "" : "s"}${w}\n`);
    return 1;
  },
});

const STOPPED = `; the analysis stopped at ${MAX_LINT_PROBLEMS.toLocaleString("en")}, so there may be more: fix these and check again`;

const summary = command.summary;
const run = (argv: string[], io?: Io): Promise<number> => runLeaf(command, argv, io);
