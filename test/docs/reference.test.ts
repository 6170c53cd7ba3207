/**
 * The references stay complete as the code grows: every word the catalogue's schema knows is in
 * docs/catalogue.md, every reason code a check can answer (REASON_CODES) is in docs/checks.md, and every error
 * code the SDK and the engine throw is in docs/sdk.md, and the README's documentation table lists
 * every page of docs/.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogueSchema } from "../../worker/portable/engine/catalogue/schema.js";
import { REASON_CODES } from "../../worker/portable/engine/index.js";
import { REPO } from "./markdown.js";

const doc = (name: string) => readFileSync(join(REPO, "docs", name), "utf8");
/** Mentioned as code: `word`, or a word inside a code span (`{count, per}`). */
const mentions = (text: string, word: string) => new RegExp("`[^`\\n]*\\b" + word + "\\b[^`\\n]*`").test(text);

/** Every property name anywhere in the catalogue's JSON Schema (the words of agent.yaml). */
function schemaWords(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => schemaWords(n, out));
  else if (node !== null && typeof node === "object") {
    for (const [k, v] of Object.entries(node)) {
      if (k === "properties" && v !== null && typeof v === "object") for (const w of Object.keys(v)) out.add(w);
      schemaWords(v, out);
    }
  }
  return out;
}

function sources(dir: string): string[] {
  return readdirSync(join(REPO, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("the references are complete", () => {
  it("docs/catalogue.md names every word of agent.yaml", () => {
    const words = [...schemaWords(catalogueSchema)];
    expect(words.length).toBeGreaterThan(60);
    const text = doc("catalogue.md");
    expect(words.filter((w) => !mentions(text, w))).toEqual([]);
  });

  it("docs/checks.md explains every reason code", () => {
    const codes: readonly string[] = REASON_CODES;
    expect(codes.length).toBeGreaterThan(20);
    const text = doc("checks.md");
    expect(codes.filter((c) => !new RegExp("\\*\\*`" + c + "`").test(text) && !mentions(text, c))).toEqual([]);
  });

  it("docs/sdk.md lists every error code the SDK and the engine throw", () => {
    const codes = new Set<string>();
    for (const dir of ["cli/sdk", "worker/portable/engine", "worker/portable/licensing"]) {
      for (const f of sources(dir)) for (const m of readFileSync(join(REPO, f), "utf8").matchAll(/(?:new (?:StalwartError|WasmCoreError)|super)\(\s*"(\w+)"/g)) codes.add(m[1]!);
    }
    expect(codes.size).toBeGreaterThan(15);
    const text = doc("sdk.md");
    expect([...codes].filter((c) => !mentions(text, c))).toEqual([]);
  });

  it("the README's documentation table lists every page of docs/", () => {
    const pages = readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md"));
    expect(pages.length).toBeGreaterThan(8);
    const readme = readFileSync(join(REPO, "README.md"), "utf8");
    const table = /## Documentation\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
    expect(pages.filter((p) => !table.includes(`| [docs/${p}](docs/${p}) |`))).toEqual([]);
  });
});
