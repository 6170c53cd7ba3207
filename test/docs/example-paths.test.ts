/**
 * The code examples run for someone who installed the package, not only in a checkout of the
 * repository: no ```ts / ```js block of README.md or docs/*.md reads a file by a path of the
 * checkout (`"examples/store/agent.yaml"` exists only at the root of the repository, so in a
 * project it throws `CatalogueError`), and every `stalwart-agents/examples/…` a block resolves
 * through the package is a file the package exports and packs.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO, codeBlocksOf, parse, userDocs } from "./markdown.js";

const blocks = () =>
  userDocs().flatMap((doc) =>
    codeBlocksOf(parse(doc))
      .filter((b) => ["ts", "typescript", "js", "javascript", "mjs"].includes(b.lang))
      .map((b) => ({ where: `${doc}:${b.line}`, code: b.code })),
  );

describe("the documents' code examples run in an installed project", () => {
  it("no block reads a file by a path that exists only in a checkout", () => {
    const checkoutOnly = blocks().flatMap(({ where, code }) =>
      [...code.matchAll(/["'`](\.?\/?(?:examples|test|worker|cli)\/[^"'`\s]+)["'`]/g)].map((m) => `${where}: ${m[1]}`),
    );
    expect(checkoutOnly).toEqual([]);
  });

  it("every stalwart-agents/examples/… a block resolves is a file the package exports and packs", () => {
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { exports: Record<string, unknown>; files: string[] };
    expect(pkg.exports["./examples/*"]).toBe("./examples/*");
    expect(pkg.files).toContain("examples");
    const resolved = blocks().flatMap(({ where, code }) => [...code.matchAll(/"stalwart-agents\/(examples\/[^"]+)"/g)].map((m) => ({ where, path: m[1]! })));
    expect(resolved.length).toBeGreaterThanOrEqual(6);
    expect(resolved.filter((r) => !existsSync(join(REPO, r.path))).map((r) => `${r.where}: ${r.path}`)).toEqual([]);
  });
});
