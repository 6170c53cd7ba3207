/**
 * The catalogues a client has compiled, by digest — in this process, and as files under the home
 * (`catalogues/<digest>.yaml`) — so that `client.resume(saved)` needs no options: a saved session
 * names its catalogue by digest, and the same home loaded that catalogue before. A file is the
 * catalogue's source text; it is used only when it compiles to the digest it is named by.
 * Writing is best-effort: a home that takes no writes costs a resume its options, nothing else.
 */
import { mkdirSync, renameSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { BoundedCache, canonicalize, type CompiledCatalogue } from "../../worker/portable/engine/index.js";
import { readRegular } from "./regular-file.js";

const DIGEST = /^[0-9a-f]{64}$/;

/** Where the home keeps the catalogue of `digest` (a checked digest only: it comes from saved data). */
function fileOf(home: string, digest: string): string | undefined {
  return DIGEST.test(digest) ? join(home, "catalogues", `${digest}.yaml`) : undefined;
}

export class CatalogueCache {
  /** bounded: one dropped is compiled again from the home's file when a resume names it */
  private readonly byDigest = new BoundedCache<string, CompiledCatalogue>(64);
  private readonly written = new BoundedCache<string, true>(1024);

  constructor(private readonly home: string) {}

  /** A catalogue this client compiled from `input` (a path, YAML text, or the parsed object). */
  remember(compiled: CompiledCatalogue, input: string | object, readText: () => string): void {
    this.byDigest.set(compiled.digest, compiled);
    if (this.written.get(compiled.digest)) return;
    this.written.set(compiled.digest, true);
    const file = fileOf(this.home, compiled.digest);
    if (!file || existsSync(file)) return;
    try {
      const text = typeof input === "object" ? canonicalize(input) : readText();
      mkdirSync(join(this.home, "catalogues"), { recursive: true, mode: 0o700 });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, text, { mode: 0o600 });
      renameSync(tmp, file);
    } catch {
      // best-effort (see above)
    }
  }

  /** The catalogue of `digest`: compiled before by this client, or kept under the home. */
  recall(digest: string, compile: (text: string, file: string) => CompiledCatalogue): CompiledCatalogue | undefined {
    const hit = this.byDigest.get(digest);
    if (hit) return hit;
    const file = fileOf(this.home, digest);
    if (!file || !existsSync(file)) return undefined;
    let compiled: CompiledCatalogue;
    try {
      compiled = compile(readRegular(file), file);
    } catch {
      return undefined; // damaged or from another version: as if absent
    }
    if (compiled.digest !== digest) return undefined;
    this.byDigest.set(digest, compiled);
    return compiled;
  }
}
