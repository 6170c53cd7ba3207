/**
 * parse → lint → compile for a rulebook given as YAML text, CSV text or a plain object.
 * The format is `options.format`, else the file name's ending (`.csv`), else the text's first
 * line (`name,…` is a spreadsheet header; no YAML rulebook starts that way), else YAML.
 */
import type { CompiledCatalogue } from "../catalogue/types.js";
import { OBJECT_FILE, positionOf, readObject, readYaml, type Source } from "../catalogue/source.js";
import { CatalogueError, type CatalogueProblem } from "../errors.js";
import { compileRules } from "./compile.js";
import { readCsv } from "./from-csv.js";
import { lintRulebookData, sortProblems, type LintSource } from "./lint.js";
import type { CompiledRulebook } from "./types.js";

export interface RulebookOptions {
  /** the name used in messages; default `rulebook.yaml` / `rules.csv` for text, `<object>` for an object */
  file?: string;
  /** default: from the file name's ending, else from the text */
  format?: "yaml" | "csv";
  /** when given, tool names, `from` fields and `args.<name>` are checked against it */
  catalogue?: CompiledCatalogue;
  /** an equal SHA-256 for the digest (e.g. the WASM core's); default: canonical/sha256.ts */
  sha256?: (b: Uint8Array) => Uint8Array;
}

export function formatOf(input: string, options: RulebookOptions): "yaml" | "csv" {
  if (options.format) return options.format;
  if (options.file && /\.csv$/i.test(options.file)) return "csv";
  if (options.file && /\.ya?ml$/i.test(options.file)) return "yaml";
  const first = /^\ufeff?[ \t]*(?:\r?\n[ \t]*)*([^\r\n]*)/.exec(input)?.[1] ?? "";
  return /^"?name"?[ \t]*,/i.test(first) ? "csv" : "yaml";
}

/** YAML reader messages speak of a catalogue; this is a rulebook. */
function asRulebook(p: CatalogueProblem): CatalogueProblem {
  if (p.message === "the catalogue is empty") return { ...p, message: "the rulebook is empty", hint: "start with `rules:` and a list of rules" };
  const swap = (s: string) => s.replace(/\bcatalogue\b/g, "rulebook");
  return { ...p, message: swap(p.message), ...(p.hint ? { hint: swap(p.hint) } : {}) };
}

export interface Analysis {
  source: LintSource;
  problems: CatalogueProblem[];
}

export function analyse(input: unknown, options: RulebookOptions): Analysis {
  const format = typeof input === "string" ? formatOf(input, options) : "yaml";
  const file = options.file ?? (typeof input === "string" ? (format === "csv" ? "rules.csv" : "rulebook.yaml") : OBJECT_FILE);
  let source: LintSource = { file, data: undefined, positions: new Map(), problems: [], fromObject: typeof input !== "string" };
  const problems: CatalogueProblem[] = [];
  try {
    if (typeof input === "string") {
      source = format === "csv" ? readCsv(input, file) : readYaml(input, file);
    } else if (input !== null && typeof input === "object") {
      source = readObject(input);
      source.file = file;
      for (const l of source.positions.values()) l.value = { ...l.value, file };
    } else {
      problems.push({ file, line: 1, column: 1, pointer: "", message: `a rulebook is YAML or CSV text or an object, not ${input === null ? "null" : typeof input}`, hint: "pass the text of rulebook.yaml or rules.csv, or its parsed object" });
      return { source, problems };
    }
    problems.push(...source.problems.map(asRulebook));
    // a spreadsheet's row problems (a conflicting cell, a stray one) leave the rest readable: lint it too
    const readable = source.problems.length === 0 || (typeof input === "string" && format === "csv" && source.data !== undefined);
    if (readable) problems.push(...lintRulebookData(source, options.catalogue ? { catalogue: options.catalogue } : {}));
  } catch (err) {
    // fail closed with a typed error, never a crash
    const deep = err instanceof RangeError;
    problems.push({
      file: source.file, line: 1, column: 1, pointer: "",
      message: deep ? "the rulebook is nested too deeply to read" : `internal error while reading the rulebook: ${String((err as Error)?.message ?? err).slice(0, 200)}`,
      hint: deep ? "flatten it: no rulebook word needs this depth" : "please report this with the rulebook that caused it",
    });
  }
  return { source, problems: sortProblems(problems) };
}

/** Every problem of a rulebook, in file order; [] when it is clean. Never throws. */
export function lintRulebook(input: string | object, options: RulebookOptions = {}): CatalogueProblem[] {
  return analyse(input, options).problems;
}

/** Parses, lints and compiles a rulebook; throws `CatalogueError` (every problem) when it is not clean. */
export function compileRulebook(input: string | object, options: RulebookOptions = {}): CompiledRulebook {
  const { source, problems } = analyse(input, options);
  if (problems.length > 0) throw new CatalogueError(problems);
  return compileSource(source, options);
}

export function compileSource(source: Source, options: RulebookOptions): CompiledRulebook {
  try {
    return compileRules({
      data: source.data as Record<string, unknown>,
      file: source.file,
      position: (p) => positionOf(source, p),
      ...(options.sha256 ? { sha256: options.sha256 } : {}),
    });
  } catch (err) {
    throw new CatalogueError([
      { file: source.file, line: 1, column: 1, pointer: "", message: `internal error while compiling the rulebook: ${String((err as Error)?.message ?? err).slice(0, 200)}`, hint: "please report this with the rulebook that caused it" },
    ]);
  }
}
