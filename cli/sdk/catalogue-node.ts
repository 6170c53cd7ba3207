/**
 * Node glue for the catalogue: read `agent.yaml` from a path (or take YAML text / an object) and
 * load it with the ajv adapter. The engine itself (worker/portable/engine/catalogue) does no I/O.
 */
import { notUtf8, utf8Text } from "./utf8-text.js";
import { existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { lintCatalogue, loadCatalogue } from "../../worker/portable/engine/index.js";
import type { CompiledCatalogue, SchemaCompiler } from "../../worker/portable/engine/index.js";
import { CatalogueError, type CatalogueProblem } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "./ajv-compiler.js";

export interface NodeCatalogueOptions {
  /** name used in messages for YAML text; a path names itself */
  file?: string;
  schemaCompiler?: SchemaCompiler;
  sha256?: (b: Uint8Array) => Uint8Array;
}

/** A string is a path when it is one line and names an existing file or a .yaml/.yml/.json file. */
export function looksLikePath(s: string): boolean {
  if (s.includes("\n") || s.length > 4096) return false;
  return /\.(ya?ml|json)$/i.test(s.trim()) || existsSync(s);
}

/** The text of a catalogue file, or a CatalogueError saying why it cannot be read. */
export function readCatalogueFile(path: string): string {
  const fail = (message: string, hint: string): never => {
    throw new CatalogueError([{ file: path, line: 1, column: 1, pointer: "", message, hint }]);
  };
  if (!existsSync(path)) fail(`cannot read \`${path}\`: no such file`, isAbsolute(path) ? "check the path" : `check the path: a relative one is read from the current folder, \`${process.cwd()}\``);
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    return fail(`cannot read \`${path}\`: ${(e as Error).message}`, "check the file's permissions");
  }
  if (st.isDirectory()) fail(`\`${path}\` is a folder, not a catalogue file`, `name the file, e.g. \`${path.replace(/\/$/, "")}/agent.yaml\``);
  // (a device, a pipe or a socket would be read forever, or wait for a writer)
  if (!st.isFile()) fail(`\`${path}\` is not a regular file`, "name the catalogue file itself, not a device, pipe or socket");
  if (st.size > 16 * 1024 * 1024) fail(`\`${path}\` is ${st.size} bytes; a catalogue is read up to 16 MiB`, "check that this is the right file");
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return fail(`cannot read \`${path}\`: ${(e as Error).message}`, "check the file's permissions");
  }
  const text = utf8Text(bytes);
  if (!text.ok) {
    const { message, hint } = notUtf8("catalogue", text);
    throw new CatalogueError([{ file: path, line: text.line, column: text.column, pointer: "", message, hint }]);
  }
  return text.text;
}

function resolveInput(input: string | object, options: NodeCatalogueOptions): { input: string | object; file?: string } {
  if (typeof input === "string" && looksLikePath(input)) return { input: readCatalogueFile(input), file: input };
  return { input, ...(options.file ? { file: options.file } : {}) };
}

/** Loads a catalogue given as a path, YAML text or an object; throws CatalogueError. */
export function loadCatalogueNode(input: string | object, options: NodeCatalogueOptions = {}): CompiledCatalogue {
  const r = resolveInput(input, options);
  return loadCatalogue(r.input, {
    schemaCompiler: options.schemaCompiler ?? ajvCompiler,
    ...(r.file ? { file: r.file } : {}),
    ...(options.sha256 ? { sha256: options.sha256 } : {}),
  });
}

/** Every problem of a catalogue given as a path, YAML text or an object; [] when clean. */
function lintCatalogueNode(input: string | object, options: NodeCatalogueOptions = {}): CatalogueProblem[] {
  let r;
  try {
    r = resolveInput(input, options);
  } catch (e) {
    if (e instanceof CatalogueError) return [...e.problems];
    throw e;
  }
  return lintCatalogue(r.input, { schemaCompiler: options.schemaCompiler ?? ajvCompiler, ...(r.file ? { file: r.file } : {}) });
}
