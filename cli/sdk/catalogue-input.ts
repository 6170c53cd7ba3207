/**
 * A catalogue as the SDK takes it — a path to agent.yaml, its YAML text, or the parsed object —
 * compiled once per distinct input and cached (compile once, check many). Reading and errors are
 * catalogue-node.ts's; this adds the cache the SDK needs.
 */
import { resolve } from "node:path";
import { loadCatalogue } from "../../worker/portable/engine/index.js";
import type { CompiledCatalogue, SchemaCompiler } from "../../worker/portable/engine/index.js";
import { BoundedCache, CatalogueError } from "../../worker/portable/engine/index.js";
import { looksLikePath, readCatalogueFile } from "./catalogue-node.js";

/** by path and text; bounded, so that a process given a new text for each session does not keep them all */
const cache = new BoundedCache<string, CompiledCatalogue>(64);
const objectCache = new WeakMap<object, CompiledCatalogue>();
/** the YAML text a catalogue was compiled from, for the home's catalogue cache (catalogue-cache.ts) */
const texts = new WeakMap<CompiledCatalogue, string>();

/** The text `compiled` was compiled from, when it came from a path or YAML text. */
export function sourceTextOf(compiled: CompiledCatalogue): string | undefined {
  return texts.get(compiled);
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
  const isPath = looksLikePath(input);
  const text = isPath ? readCatalogueFile(input) : input;
  const file = isPath ? input : "<catalogue>";
  const key = `${isPath ? resolve(input) : ""}\u0000${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const compiled = loadCatalogue(text, { ...opts, file });
  cache.set(key, compiled);
  texts.set(compiled, text);
  return compiled;
}
