/**
 * The catalogue (`agent.yaml`): parse → lint → compile, once; every check reuses the result.
 *
 *   1. source.ts       YAML text (or a plain object) → JSON data + a position for every node
 *   2. lint-format.ts  the shape, against the catalogue's JSON Schema (ajv standalone, no eval)
 *   3. lint-meaning.ts what it means: names that exist, words on the right kind of tool, schemas
 *   4. compile.ts      the deep-frozen CompiledCatalogue (types.ts)
 *
 * Every problem of steps 1–3 is collected (not just the first) with file:line:column, a message
 * naming the word in backticks, and a hint. Runtime-neutral: runs in Node and in workerd (pass
 * `cfworkerCompiler` there, `ajvCompiler` in Node).
 */
import { CatalogueError, sortProblems, type CatalogueProblem } from "../errors.js";
import { compile } from "./compile.js";
import { contextOf } from "./describe.js";
import { lintFormat } from "./lint-format.js";
import { isObj, lintMeaning } from "./lint-meaning.js";
import { OBJECT_FILE, positionOf, readObject, readYaml, type Source } from "./source.js";
import type { CompiledCatalogue, SchemaCheck, SchemaCompiler } from "./types.js";

export type * from "./types.js";
;
export { parsePath, declares,  } from "./paths.js";
export { parseDuration,  } from "./compile.js";
export { MAX_CATALOGUE_VALUES } from "./source.js";

export interface CatalogueOptions {
  /** the file name used in messages; default `agent.yaml` for text, `<object>` for an object */
  file?: string;
  /** builds `args` validators: `ajvCompiler` (Node) or `cfworkerCompiler` (workerd) */
  schemaCompiler: SchemaCompiler;
  /** an equal SHA-256 for the digest (e.g. the WASM core's); default: canonical/sha256.ts */
  sha256?: (b: Uint8Array) => Uint8Array;
}

/**
 * Problems one analysis finds at most. Each costs a position, a context and often a did-you-mean:
 * 17,000 unknown words took seconds (outside audit 14, F1), and nobody reads past the first few.
 */
export const MAX_LINT_PROBLEMS = 1000;

interface Analysis {
  source: Source;
  problems: CatalogueProblem[];
  /** what loads but likely does not do what the author means (no `args`, a `from` with no join) */
  warnings: CatalogueProblem[];
  validators: Map<string, SchemaCheck>;
}

function analyse(input: unknown, options: CatalogueOptions): Analysis {
  const file = options.file ?? (typeof input === "string" ? "agent.yaml" : OBJECT_FILE);
  const validators = new Map<string, SchemaCheck>();
  let source: Source = { file, data: undefined, positions: new Map(), problems: [], fromObject: typeof input !== "string" };
  const problems: CatalogueProblem[] = [];
  const warnings: CatalogueProblem[] = [];
  try {
    if (typeof input === "string") source = readYaml(input, file);
    else if (input !== null && typeof input === "object") {
      source = readObject(input, file);
    } else {
      problems.push({ file, line: 1, column: 1, pointer: "", message: `a catalogue is YAML text or an object, not ${input === null ? "null" : typeof input}`, hint: "pass the text of agent.yaml, or its parsed object" });
      return { source, problems, warnings, validators };
    }
    problems.push(...source.problems);
    // After a problem at one value (`.inf`, a tag), the other passes still read the rest. What they
    // say at that value, inside it or around it is left out: it reads as null there, and a problem
    // about it (`declares no tools` for `tools: !!seq …`) would only repeat the first.
    const yamlAt = source.problems.map((p) => p.pointer);
    if (source.problems.length === 0 || (source.valuesOnly === true && !yamlAt.includes(""))) {
      const at = problems.length;
      if (!isObj(source.data)) {
        problems.push({ ...positionOf(source, ""), pointer: "", message: "the catalogue must be a map of words (`tools:`, `settings:`, …)", hint: "start with `tools:` and a list of tools" });
      } else {
        problems.push(...lintFormat(source, MAX_LINT_PROBLEMS));
        const report = (pointer: string, message: string, hint?: string, atKey = false) => {
          if (problems.length >= MAX_LINT_PROBLEMS) return;
          const where = source.fromObject ? ` (at \`${pointer || "/"}\`)` : "";
          problems.push({ ...positionOf(source, pointer, atKey), pointer, message: contextOf(source.data, pointer) + message + where, ...(hint ? { hint } : {}) });
        };
        const warn = (pointer: string, message: string, hint?: string, atKey = false) => {
          if (warnings.length >= MAX_LINT_PROBLEMS) return;
          const where = source.fromObject ? ` (at \`${pointer || "/"}\`)` : "";
          warnings.push({ ...positionOf(source, pointer, atKey), pointer, message: contextOf(source.data, pointer) + message + where, ...(hint ? { hint } : {}) });
        };
        if (problems.length < MAX_LINT_PROBLEMS) lintMeaning(source.data, { report, warn, position: (p, atKey) => positionOf(source, p, atKey), schemaCompiler: options.schemaCompiler, validators });
      }
      if (yamlAt.length > 0) {
        const repeats = (pointer: string) => yamlAt.some((y) => pointer === y || pointer.startsWith(y + "/") || y.startsWith(pointer + "/") || pointer === "");
        const later = problems.splice(at).filter((p) => !repeats(p.pointer));
        problems.push(...later);
        const kept = warnings.filter((w) => !repeats(w.pointer));
        warnings.length = 0;
        warnings.push(...kept);
      }
    }
  } catch (err) {
    // fail closed with a typed error, never a crash: a catalogue that breaks the reader is refused
    const deep = err instanceof RangeError;
    problems.push({
      file: source.file,
      line: 1,
      column: 1,
      pointer: "",
      message: deep ? "the catalogue is nested too deeply to read" : `internal error while reading the catalogue: ${String((err as Error)?.message ?? err).slice(0, 200)}`,
      hint: deep ? "flatten it: no catalogue word needs this depth" : "please report this with the catalogue that caused it",
    });
  }
  return { source, problems: sortProblems(problems), warnings: sortProblems(warnings), validators };
}


/** Every problem of a catalogue, in file order; [] when it is clean. Never throws. */
export function lintCatalogue(input: string | object, options: CatalogueOptions): CatalogueProblem[] {
  return analyse(input, options).problems;
}

/** Every problem and every warning of a catalogue, each in file order. Never throws. */
export function lintCatalogueWarnings(input: string | object, options: CatalogueOptions): { problems: CatalogueProblem[]; warnings: CatalogueProblem[] } {
  const { problems, warnings } = analyse(input, options);
  return { problems, warnings };
}

/** Parses, lints and compiles a catalogue; throws `CatalogueError` (every problem) when it is not clean. */
export function loadCatalogue(input: string | object, options: CatalogueOptions): CompiledCatalogue {
  const { source, problems, warnings, validators } = analyse(input, options);
  if (problems.length > 0) {
    const err = new CatalogueError(problems);
    err.warnings = warnings;
    throw err;
  }
  try {
    return compile({
      data: source.data as Record<string, unknown>,
      file: source.file,
      position: (p) => positionOf(source, p),
      validators,
      warnings,
      schemaCompiler: options.schemaCompiler,
      ...(options.sha256 ? { sha256: options.sha256 } : {}),
    });
  } catch (err) {
    if (err instanceof CatalogueError) throw err;
    throw new CatalogueError([
      { file: source.file, line: 1, column: 1, pointer: "", message: `internal error while compiling the catalogue: ${String((err as Error)?.message ?? err).slice(0, 200)}`, hint: "please report this with the catalogue that caused it" },
    ]);
  }
}
