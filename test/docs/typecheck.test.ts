/**
 * Every ```ts block of README.md and docs/*.md compiles against the package's types: each block
 * is written as a module of its own into a temporary project whose `stalwart-agents` (and
 * `stalwart-agents/engine`) resolve to the package's sources, and `tsc` checks them all with the
 * repository's compiler settings. An error is reported at the document's own line.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO, codeBlocksOf, parse, userDocs } from "./markdown.js";

interface Block {
  doc: string;
  line: number;
  code: string;
}

function tsBlocks(): Block[] {
  return userDocs().flatMap((doc) =>
    codeBlocksOf(parse(doc))
      .filter((b) => b.lang === "ts" || b.lang === "typescript")
      .map((b) => ({ doc, line: b.line, code: b.code })),
  );
}

/** Type-checks the blocks; returns the errors as `doc:line: message` (empty: they compile). */
function typecheck(blocks: Block[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), "stalwart-doc-ts-"));
  mkdirSync(join(dir, "blocks"));
  const names = new Map<string, Block>();
  blocks.forEach((b, i) => {
    const name = `block${i}.ts`;
    names.set(name, b);
    // `export {}` makes every block a module of its own (top-level await, no shared names).
    writeFileSync(join(dir, "blocks", name), `${b.code}\nexport {};\n`);
  });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  // the frameworks a document imports beside ours (ai, zod, @openai/agents): the repository's own
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        lib: ["ES2023", "DOM"],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        esModuleInterop: true,
        resolveJsonModule: true,
        types: ["node"],
        typeRoots: [join(REPO, "node_modules/@types")],
        paths: {
          "stalwart-agents": [join(REPO, "cli/sdk/index.ts")],
          "stalwart-agents/engine": [join(REPO, "worker/portable/engine/index.ts")],
          "stalwart-agents/ai": [join(REPO, "cli/adapters/ai/index.ts")],
          "stalwart-agents/openai-agents": [join(REPO, "cli/adapters/openai-agents/index.ts")],
        },
      },
      include: ["blocks/*.ts", join(REPO, "types/**/*.d.ts")],
    }),
  );
  try {
    execFileSync(process.execPath, [join(REPO, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json"), "--pretty", "false"], { encoding: "utf8", stdio: "pipe" });
    return [];
  } catch (err) {
    const out = String((err as { stdout?: string }).stdout ?? "") + String((err as { stderr?: string }).stderr ?? "");
    // An error's further lines are indented: they belong to the line above.
    return out
      .replace(/\n[ \t]+/g, " ")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => {
        const m = /blocks[\\/](block\d+\.ts)\((\d+),(\d+)\): (.*)$/.exec(l);
        const b = m ? names.get(m[1]!) : undefined;
        return b && m ? `${b.doc}:${b.line + Number(m[2]) - 1}:${m[3]}: ${m[4]}` : l;
      });
  }
}

/** The README's example before it was fixed: a history entry is a union, narrowed by `kind`. */
const CANARY: Block = {
  doc: "(canary)",
  line: 1,
  code: `import { Client } from "stalwart-agents";\nconst s = new Client().session("b", { catalogue: "agent.yaml" });\ns.history.entries[0].text = "edited";\n`,
};

describe("TypeScript in the documentation", () => {
  const blocks = tsBlocks();
  // One compilation for all (tsc reads the package's sources once): the documents' blocks and a
  // canary that must fail, so that a check which passes everything cannot pass.
  let errors: string[] = [];
  beforeAll(() => {
    errors = typecheck([...blocks, CANARY]);
  }, 180_000);

  it("finds the blocks: the README's example and the docs'", () => {
    expect(blocks.map((b) => b.doc)).toContain("README.md");
    expect(blocks.length).toBeGreaterThanOrEqual(8);
  });

  it("every ```ts block of README.md and docs/ compiles against the package's types", () => {
    expect(errors.filter((e) => !e.startsWith("(canary)"))).toEqual([]);
  });

  it("the check can fail: the canary's misuse is reported at its own line", () => {
    expect(errors.join("\n")).toMatch(/^\(canary\):3:\d+: error TS\d+: .*text/m);
  });
});
