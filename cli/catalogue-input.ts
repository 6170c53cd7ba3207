/**
 * A catalogue as the SDK takes it — a path to agent.yaml, its YAML text, or the parsed object —
 * compiled once per distinct input and cached (compile once, check many).
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { loadCatalogue } from "../worker/engine/catalogue/index.js";
import type { CompiledCatalogue, SchemaCompiler } from "../worker/engine/catalogue/types.js";
import { CatalogueError } from "../worker/engine/errors.js";

const cache = new Map<string, CompiledCatalogue>();
const objectCache = new WeakMap<object, CompiledCatalogue>();

function looksLikePath(s: string): boolean {
  return !s.includes("\n") && /\.(ya?ml|json)$/i.test(s.trim());
}

export function catalogueFrom(input: string | object, opts: { schemaCompiler: SchemaCompiler; sha256: (b: Uint8Array) => Uint8Array }): CompiledCatalogue {
  if (typeof input === "object" && input !== null) {
    const hit = objectCache.get(input);
    if (hit) return hit;
    const compiled = loadCatalogue(input, opts);
    objectCache.set(input, compiled);
    return compiled;
  }
  if (typeof input !== "string") {
    throw new CatalogueError([{ file: "<catalogue>", line: 1, column: 1, pointer: "", message: "a catalogue is a path, YAML text or an object", hint: "pass `catalogue: \"agent.yaml\"`" }]);
  }
  let text = input;
  let file = "<catalogue>";
  if (looksLikePath(input)) {
    file = resolve(input);
    if (!existsSync(file)) {
      throw new CatalogueError([{ file: input, line: 1, column: 1, pointer: "", message: `catalogue file \`${input}\` does not exist`, hint: "check the path, relative to the current directory" }]);
    }
    text = readFileSync(file, "utf8");
  }
  const key = `${file}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const compiled = loadCatalogue(text, { ...opts, file: file === "<catalogue>" ? "<catalogue>" : input });
  cache.set(key, compiled);
  return compiled;
}
