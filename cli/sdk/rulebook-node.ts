/**
 * Node glue for the rulebook (interfaces.md SDK `rulebook`: "path / text / compiled registry
 * folder"): read it from a path to a `.yaml` / `.yml` / `.csv` rulebook, a registry folder (or its
 * `registry.json`), or take YAML / CSV / registry JSON text or an object; compile or load it once
 * per distinct input. The engine itself (worker/portable/engine/rulebook) does no I/O.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { notUtf8, utf8Text } from "./utf8-text.js";
import type { CompiledCatalogue } from "../../worker/portable/engine/index.js";
import { BoundedCache, CatalogueError, type CatalogueProblem } from "../../worker/portable/engine/index.js";
import { compileRulebook, lintRulebook, loadRegistry, REGISTRY_FILE, type CompiledRulebook } from "../../worker/portable/engine/index.js";

export interface NodeRulebookOptions {
  /** name used in messages for text; a path names itself */
  file?: string;
  /** when given, tool names, `from` fields and `args.<name>` are checked against it */
  catalogue?: CompiledCatalogue;
  sha256?: (b: Uint8Array) => Uint8Array;
}

/** What an input turned out to be, read. */
export type RulebookInput =
  | { kind: "rulebook"; text: string; file?: string }
  | { kind: "registry"; text: string; file: string }
  | { kind: "object"; value: object; registry: boolean };

const MAX_BYTES = 16 * 1024 * 1024;

/** A string is a path when it is one line and names an existing file or folder, or ends like one. */
export function looksLikeRulebookPath(s: string): boolean {
  if (s.includes("\n") || s.length > 4096 || s.trim() === "") return false;
  return /\.(ya?ml|csv|json)$/i.test(s.trim()) || /[\\/]$/.test(s) || existsSync(s);
}

function fail(file: string, message: string, hint: string): never {
  throw new CatalogueError([{ file, line: 1, column: 1, pointer: "", message, hint }]);
}

function readText(path: string, what: string): string {
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    return fail(path, `cannot read \`${path}\`: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}`, `check the path to the ${what}`);
  }
  // (a device, a pipe or a socket would be read forever, or wait for a writer; a folder is answered below as a folder)
  if (!st.isFile() && !st.isDirectory()) fail(path, `\`${path}\` is not a regular file`, `name the ${what} file itself, not a device, pipe or socket`);
  if (st.size > MAX_BYTES) fail(path, `\`${path}\` is ${st.size} bytes; a ${what} is read up to 16 MiB`, "check that this is the right file");
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    return fail(path, `cannot read \`${path}\`: ${(e as Error).message}`, "check the file's permissions");
  }
  const text = utf8Text(bytes);
  if (!text.ok) {
    const { message, hint } = notUtf8(what, text);
    throw new CatalogueError([{ file: path, line: text.line, column: text.column, pointer: "", message, hint }]);
  }
  return text.text;
}

const parseOrUndefined = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // YAML in braces, or broken JSON: read as a rulebook, the YAML reader says where
  }
};
const isRegistryObject = (v: unknown): boolean => v !== null && typeof v === "object" && !Array.isArray(v) && "digest" in v && "v" in v && "rules" in v;

/** Reads a rulebook input (a path, text or an object) without compiling it. */
export function readRulebookInput(input: string | object, options: NodeRulebookOptions = {}): RulebookInput {
  if (typeof input === "object" && input !== null) return { kind: "object", value: input, registry: isRegistryObject(input) };
  if (typeof input !== "string") return fail(options.file ?? "<rulebook>", "a rulebook is a path, YAML or CSV text, registry JSON, or an object", 'pass `rulebook: "rulebook.yaml"`, `"rules.csv"` or a registry folder');
  if (looksLikeRulebookPath(input)) {
    const path = input.trim();
    if (!existsSync(path)) fail(path, `cannot read \`${path}\`: no such file or folder`, "check the path, relative to the current folder");
    if (statSync(path).isDirectory()) {
      const file = join(path, REGISTRY_FILE);
      if (!existsSync(file)) fail(path, `\`${path}\` is a folder without \`${REGISTRY_FILE}\``, `compile a rulebook into it: \`stalwart rules compile rulebook.yaml -o ${path}\``);
      return { kind: "registry", text: readText(file, "registry"), file };
    }
    if (/\.json$/i.test(path)) return { kind: "registry", text: readText(path, "registry"), file: path };
    return { kind: "rulebook", text: readText(path, "rulebook"), file: path };
  }
  if (input.trimStart().startsWith("{") && isRegistryObject(parseOrUndefined(input))) return { kind: "registry", text: input, file: options.file ?? REGISTRY_FILE };
  return { kind: "rulebook", text: input, ...(options.file ? { file: options.file } : {}) };
}

const cache = new BoundedCache<string, CompiledRulebook>(64);

/** A compiled rulebook from a path, text, registry folder or object; throws CatalogueError. */
export function loadRulebookNode(input: string | object, options: NodeRulebookOptions = {}): CompiledRulebook {
  const r = readRulebookInput(input, options);
  const common = { ...(options.catalogue ? { catalogue: options.catalogue } : {}), ...(options.sha256 ? { sha256: options.sha256 } : {}) };
  if (r.kind === "object") {
    const file = options.file ?? (r.registry ? REGISTRY_FILE : undefined);
    return r.registry ? loadRegistry(r.value, { ...common, ...(file ? { file } : {}) }) : compileRulebook(r.value, { ...common, ...(file ? { file } : {}) });
  }
  const key = `${r.kind}\u0000${r.file ?? ""}\u0000${options.catalogue?.digest ?? ""}\u0000${r.text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const compiled = r.kind === "registry" ? loadRegistry(r.text, { ...common, file: r.file }) : compileRulebook(r.text, { ...common, ...(r.file ? { file: r.file } : {}) });
  cache.set(key, compiled);
  return compiled;
}

/** Every problem of a rulebook (or registry) input; [] when it is clean. */
export function lintRulebookNode(input: string | object, options: NodeRulebookOptions = {}): CatalogueProblem[] {
  try {
    const r = readRulebookInput(input, options);
    if (r.kind === "rulebook") return lintRulebook(r.text, { ...(r.file ? { file: r.file } : {}), ...(options.catalogue ? { catalogue: options.catalogue } : {}) });
    loadRulebookNode(input, options);
    return [];
  } catch (e) {
    if (e instanceof CatalogueError) return [...e.problems];
    throw e;
  }
}
