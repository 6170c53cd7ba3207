/**
 * The documentation ships with the package: every docs/*.md is in what `npm pack` packs, and every
 * `docs/….md` the command line's own text cites (a `--help`, a hint) is one of them — so a user who
 * installed from npm can open what `stalwart` points at — and every relative link in a packed
 * Markdown file lands on a packed file, so the links work in the installed package too.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, linksOf, parse, userDocs } from "./markdown.js";

function sources(dir: string): string[] {
  return readdirSync(join(REPO, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

describe("the documentation in the package", () => {
  // --ignore-scripts: list what would be packed without building it (`prepack`).
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: REPO, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const packed = new Set<string>((JSON.parse(out)[0].files as { path: string }[]).map((f) => f.path));

  it("packs README.md and every document of docs/", () => {
    const docs = userDocs();
    expect(docs.length).toBeGreaterThanOrEqual(8);
    expect(docs.filter((d) => !packed.has(d))).toEqual([]);
  });

  it("every docs/ file the CLI's text cites is packed", () => {
    const cited = new Set<string>();
    for (const file of sources("cli")) for (const m of readFileSync(join(REPO, file), "utf8").matchAll(/\bdocs\/[\w.-]+\.md\b/g)) cited.add(m[0]);
    expect([...cited]).toContain("docs/trace-format.md");
    expect([...cited].filter((d) => !packed.has(d))).toEqual([]);
  });

  it("every relative link in a packed Markdown file points at something packed", () => {
    const dirs = new Set([...packed].flatMap((f) => f.split("/").slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join("/"))));
    const unpacked: string[] = [];
    for (const file of [...packed].filter((f) => f.endsWith(".md"))) {
      for (const { href } of linksOf(parse(file))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("#")) continue;
        const path = decodeURIComponent(href.split("#")[0]!);
        const target = posix.normalize(posix.join(dirname(file), path));
        if (!packed.has(target) && !dirs.has(target)) unpacked.push(`${file}: ${href}`);
      }
    }
    expect(unpacked).toEqual([]);
  });
});
