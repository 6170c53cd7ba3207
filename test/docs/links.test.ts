/**
 * Every link in the repository's Markdown goes somewhere inside it: a relative link resolves to a
 * file or folder of the repository, and its `#anchor` to a heading of that file. Nothing links
 * outside — no web URL, no path above the repository (`../shared/spec/…`), no root-absolute path —
 * and the documents users read do not point at the project's internal contract either.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, anchorsOf, linksOf, markdownFiles, parse, userDocs, type Parsed } from "./markdown.js";

/** What is wrong with one link, or null when it resolves. */
export function linkProblem(doc: Parsed, href: string, cache: Map<string, Set<string>> = new Map()): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("//")) return `\`${href}\` leaves the repository; link to a file in it`;
  const hash = href.indexOf("#");
  const path = decodeURIComponent(hash >= 0 ? href.slice(0, hash) : href);
  const anchor = hash >= 0 ? decodeURIComponent(href.slice(hash + 1)) : undefined;
  if (path.startsWith("/")) return `\`${href}\` is root-absolute; write it relative to \`${doc.file}\``;
  const target = path === "" ? join(REPO, doc.file) : resolve(REPO, dirname(doc.file), path);
  const inside = relative(REPO, target);
  if (inside.startsWith("..") || inside.split(sep)[0] === "..") return `\`${href}\` points above the repository`;
  if (!existsSync(target)) return `\`${href}\`: \`${inside}\` does not exist`;
  if (anchor !== undefined) {
    if (!statSync(target).isFile() || !target.endsWith(".md")) return `\`${href}\`: an anchor needs a Markdown file`;
    const key = relative(REPO, target);
    let anchors = cache.get(key);
    if (!anchors) cache.set(key, (anchors = anchorsOf(key === doc.file ? doc : parse(key))));
    if (!anchors.has(anchor)) return `\`${href}\`: \`${key}\` has no heading \`#${anchor}\``;
  }
  return null;
}

describe("links in the repository's Markdown", () => {
  const files = markdownFiles();
  const cache = new Map<string, Set<string>>();

  it("finds the documents (so that the checks below check something)", () => {
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/checks.md", "docs/catalogue.md", "docs/sdk.md", "docs/http.md", "docs/licences.md", "docs/trace-format.md", "docs/beyond-the-seed.md"]));
    const total = files.reduce((n, f) => n + linksOf(parse(f)).length, 0);
    expect(total).toBeGreaterThan(50);
  });

  for (const file of files) {
    it(`${file}: every link resolves inside the repository`, () => {
      const doc = parse(file);
      const problems = linksOf(doc).flatMap((l) => {
        const p = linkProblem(doc, l.href, cache);
        return p ? [`${file}:${l.line}: ${p}`] : [];
      });
      expect(problems).toEqual([]);
    });
  }

  it("the documents users read never cite the project's internal contract", () => {
    const docs = [...userDocs(), "worker/workerd/licence-service/README.md", "worker/portable/licensing/README.md", "worker/portable/engine/rulebook/README.md"];
    const problems = docs.flatMap((file) =>
      parse(file)
        .text.split("\n")
        .flatMap((line, i) => (/shared\/spec|\.\.\/shared\b/.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(problems).toEqual([]);
  });

  it("the check can fail: broken links of every kind are reported", () => {
    const doc = parse("docs/checks.md");
    expect(linkProblem(doc, "../shared/spec/checks.md")).toMatch(/above the repository|does not exist/);
    expect(linkProblem(doc, "https://example.com/")).toMatch(/leaves the repository/);
    expect(linkProblem(doc, "/docs/sdk.md")).toMatch(/root-absolute/);
    expect(linkProblem(doc, "nope.md")).toMatch(/does not exist/);
    expect(linkProblem(doc, "sdk.md#no-such-heading")).toMatch(/has no heading/);
    expect(linkProblem(doc, "#1-reach")).toBeNull();
    expect(linkProblem(doc, "sdk.md#errors")).toBeNull();
    expect(linkProblem(doc, "../examples/store/agent.yaml")).toBeNull();
  });
});
