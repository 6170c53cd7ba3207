/**
 * Fail closed, never crash: mutated rulebooks (YAML and CSV) and mutated registries either load or
 * are refused with a CatalogueError whose problems all carry a file, a line and a column — never
 * another exception. Seeded, so a failure reproduces.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CatalogueError } from "../../worker/portable/engine/errors.js";
import { compileRulebook, lintRulebook, loadRegistry, registryText } from "../../worker/portable/engine/rulebook/index.js";
import { prng as makePrng } from "../helpers/prng.js";

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), "utf8");


const PIECES = ['"', ",", "\n", "\r\n", ":", "- ", "[", "]", "{", "}", "|", "from:", "is", "over", "ask", "refuse", "facts.", "args.", "__proto__", "0", "1e999", "''", "#", "&a", "*a", "\t", " "];

function mutate(text: string, rand: () => number): string {
  let s = text;
  const edits = 1 + Math.floor(rand() * 4);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(rand() * (s.length + 1));
    const r = rand();
    if (r < 0.4) s = s.slice(0, at) + PIECES[Math.floor(rand() * PIECES.length)] + s.slice(at);
    else if (r < 0.8) s = s.slice(0, at) + s.slice(at + 1 + Math.floor(rand() * 6));
    else {
      const from = Math.floor(rand() * s.length);
      s = s.slice(0, at) + s.slice(from, from + Math.floor(rand() * 20)) + s.slice(at);
    }
  }
  return s;
}

function neverCrashes(load: () => unknown): "ok" | "refused" {
  try {
    load();
    return "ok";
  } catch (e) {
    expect(e).toBeInstanceOf(CatalogueError);
    for (const p of (e as CatalogueError).problems) {
      expect(p.line).toBeGreaterThanOrEqual(1);
      expect(p.column).toBeGreaterThanOrEqual(1);
      expect(typeof p.file).toBe("string");
      expect(p.message.length).toBeGreaterThan(0);
    }
    return "refused";
  }
}

describe("fuzz", () => {
  it.each([
    ["rich.yaml", "test/fixtures/rulebooks/rich.yaml", 11],
    ["rich.csv", "test/fixtures/rulebooks/rich.csv", 12],
  ])("mutated %s: loads or is refused with positions", (file, rel, seed) => {
    const text = read(rel);
    const rand = makePrng(seed);
    const seen = { ok: 0, refused: 0 };
    for (let i = 0; i < 400; i++) {
      const m = mutate(text, rand);
      seen[neverCrashes(() => compileRulebook(m, { file }))]++;
      expect(Array.isArray(lintRulebook(m, { file }))).toBe(true);
    }
    expect(seen.refused).toBeGreaterThan(0);
  });

  it("mutated registries load only when nothing that matters changed", () => {
    const good = registryText(compileRulebook(read("test/fixtures/rulebooks/rich.yaml"), { file: "rich.yaml" }));
    const digest = JSON.parse(good).digest as string;
    const rand = makePrng(13);
    for (let i = 0; i < 400; i++) {
      const m = mutate(good, rand);
      let loaded: { digest: string } | undefined;
      const outcome = neverCrashes(() => (loaded = loadRegistry(m, { file: "registry.json" })));
      // whatever loads is exactly the rules that were compiled (whitespace or `source` edits only)
      if (outcome === "ok") expect(loaded!.digest).toBe(digest);
    }
  });
});
