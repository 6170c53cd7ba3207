/**
 * The package as users get it: `npm pack`, install the tarball into a temporary project, and
 * `import { Client } from "stalwart-agents"` from plain Node ESM — then check a call with it and
 * lint a catalogue with the installed `stalwart` binary.
 */
import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { copyLicence } from "./helpers/licensed-home.js";

const repo = resolve(import.meta.dirname, "..");

describe("npm package", () => {
  it("packs, installs and runs from plain Node ESM", () => {
    const dir = mkdtempSync(join(tmpdir(), "stalwart-pack-"));
    const out = execFileSync("npm", ["pack", "--pack-destination", dir, "--json"], { cwd: repo, encoding: "utf8" });
    const tarball = join(dir, JSON.parse(out)[0].filename);
    const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
    expect(files).toContain("dist/build/core.wasm");
    expect(files).toContain("dist/cli/sdk/index.js");
    expect(files).toContain("dist/cli/sdk/index.d.ts");
    expect(files.some((f) => f.startsWith("test/"))).toBe(false);

    const app = join(dir, "app");
    cpSync(join(repo, "examples/store/agent.yaml"), join(app, "agent.yaml"), { recursive: true });
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], { cwd: app, encoding: "utf8", stdio: "pipe" });
    writeFileSync(
      join(app, "main.mjs"),
      `import { Client } from "stalwart-agents";
const client = new Client({ home: "./.stalwart" });
const billing = client.session("billing", { catalogue: "agent.yaml" });
await billing.read("estorne 40,00 do pedido 4411");
const check = await billing.checkToolCall("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "typed", amount: "model" } });
console.log(JSON.stringify({ decision: check.decision, reasons: check.reasons, arguments: check.detail.arguments }));
`,
    );
    copyLicence(join(app, ".stalwart")); // the app's home holds an activated installation
    const printed = execFileSync("node", ["main.mjs"], { cwd: app, encoding: "utf8" });
    expect(JSON.parse(printed)).toEqual({ decision: "confirm", reasons: ["argument_origin"], arguments: ["amount"] });
    const lint = execFileSync(join(app, "node_modules/.bin/stalwart"), ["check", "agent.yaml"], { cwd: app, encoding: "utf8" });
    expect(lint).toMatch(/ok/);

    // Every subpath the package exports imports from the tarball and gives what it documents —
    // the adapters too, with their frameworks (optional peers) not installed: only types name them.
    const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { exports: Record<string, { types: string }>; peerDependenciesMeta: Record<string, { optional: boolean }> };
    const documented: Record<string, string[]> = {
      ".": ["Client", "StalwartError"],
      "./engine": ["inferOrigins", "canonicalize"],
      "./ai": ["guard", "toolApproval", "guardOf", "MemoryApprovals", "ToolCallRefused", "SUPPORTED_AI_MAJORS"],
      "./openai-agents": ["guard", "guardTools", "readInput", "guardOf", "MemoryApprovals", "DEFAULT_TOOL_ERROR"],
    };
    expect(pkg.peerDependenciesMeta).toEqual({ ai: { optional: true }, "@openai/agents": { optional: true } });
    expect(() => execFileSync("node", ["-e", "require.resolve('ai')"], { cwd: app, stdio: "pipe" })).toThrow();
    for (const sub of Object.keys(pkg.exports)) {
      const name = sub === "." ? "stalwart-agents" : `stalwart-agents/${sub.slice(2)}`;
      const keys = execFileSync("node", ["--input-type=module", "-e", `const m = await import(${JSON.stringify(name)}); console.log(JSON.stringify(Object.keys(m)))`], { cwd: app, encoding: "utf8" });
      expect(JSON.parse(keys).length, name).toBeGreaterThan(0);
      expect(JSON.parse(keys), name).toEqual(expect.arrayContaining(documented[sub] ?? []));
      expect(files, name).toContain(pkg.exports[sub]!.types.slice(2));
    }
    writeFileSync(
      join(app, "engine.mjs"),
      `import { canonicalize, cfworkerCompiler, lintCatalogue } from "stalwart-agents/engine";
import { readFileSync } from "node:fs";
console.log(JSON.stringify({ jcs: canonicalize({ b: 1, a: [2, "x"] }), problems: lintCatalogue(readFileSync("agent.yaml", "utf8"), { file: "agent.yaml", schemaCompiler: cfworkerCompiler }).length }));
`,
    );
    expect(JSON.parse(execFileSync("node", ["engine.mjs"], { cwd: app, encoding: "utf8" }))).toEqual({ jcs: '{"a":[2,"x"],"b":1}', problems: 0 });
  }, 180_000);
});
