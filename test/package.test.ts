/**
 * The package as users get it: `npm pack`, install the tarball into a temporary project, and
 * `import { Client } from "stalwart-agents"` from plain Node ESM — then check a call with it and
 * lint a catalogue with the installed `stalwart` binary; and, with nothing from the repository,
 * `stalwart licence dev` and then the README's 20-line example (its catalogue is the package's).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import ts from "typescript";
import { copyLicence } from "./helpers/licensed-home.js";

const repo = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { scripts: Record<string, string>; files: string[]; version: string };

let dir: string;
let app: string;
let files: string[];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "stalwart-pack-"));
  // `npm test` built the package already: packing here skips `prepack` (its build would rewrite
  // dist/ under the other test files); that `prepack` builds is asserted below.
  const out = execFileSync("npm", ["pack", "--ignore-scripts", "--pack-destination", dir, "--json"], { cwd: repo, encoding: "utf8" });
  const tarball = join(dir, JSON.parse(out)[0].filename);
  files = JSON.parse(out)[0].files.map((f: { path: string }) => f.path);
  app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], { cwd: app, encoding: "utf8", stdio: "pipe" });
}, 180_000);

describe("npm package", () => {
  it("ships what it needs: dist/, LICENSE, CHANGELOG.md; `npm pack` builds first", () => {
    expect(files).toContain("dist/build/core.wasm");
    expect(files).toContain("dist/cli/sdk/index.js");
    expect(files).toContain("dist/cli/sdk/index.d.ts");
    expect(files).toContain("dist/worker/workerd/licence-service/index.js"); // `stalwart licence dev` runs it
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "CHANGELOG.md", "README.md"]));
    expect(files.some((f) => f.startsWith("test/"))).toBe(false);
    expect(readFileSync(join(app, "node_modules/stalwart-agents/LICENSE"), "utf8")).toMatch(/^\s*Apache License\s+Version 2\.0, January 2004/);
    expect(readFileSync(join(app, "node_modules/stalwart-agents/CHANGELOG.md"), "utf8")).toContain(`## [${pkg.version}]`);
    expect(pkg.scripts.prepack).toBe("npm run build");
    expect(execFileSync(join(app, "node_modules/.bin/stalwart"), ["--version"], { cwd: app, encoding: "utf8" })).toBe(`stalwart ${pkg.version}\n`);
  });

  it("packs, installs and runs from plain Node ESM", () => {
    cpSync(join(repo, "examples/store/agent.yaml"), join(app, "agent.yaml"), { recursive: true });
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
    // the examples are files, not modules: a shipped one resolves by the package's name, wherever it is installed
    const example = execFileSync("node", ["--input-type=module", "-e", `console.log(import.meta.resolve("stalwart-agents/examples/store/agent.yaml"))`], { cwd: app, encoding: "utf8" }).trim();
    expect(readFileSync(new URL(example), "utf8")).toBe(readFileSync(join(repo, "examples/store/agent.yaml"), "utf8"));
    for (const sub of Object.keys(pkg.exports).filter((k) => !k.includes("*"))) {
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

  it("`stalwart licence dev`, then the README's 20-line example gives its documented decisions", () => {
    // a project of its own, with nothing from the repository: the package, as `npm install` puts it
    const project = join(app, "readme");
    mkdirSync(project);
    cpSync(join(app, "node_modules"), join(project, "node_modules"), { recursive: true, verbatimSymlinks: true });
    const { STALWART_LICENCE_URL: _url, QLS_API_KEY: _key, ...inherited } = process.env;
    const env = { ...inherited, HOME: project, STALWART_HOME: join(project, ".stalwart") };

    // before: the SDK stops with LicenceRequired, and its hint names the one command
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    const example = /## In 20 lines\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, "README.md has the `## In 20 lines` TypeScript block").toBeDefined();
    const js = ts.transpileModule(example ?? "", { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext } }).outputText;
    // every check the example makes, recorded in order (the example itself prints nothing)
    const record = `import { Client as RecordedClient } from "stalwart-agents";
const seen = [];
const openSession = RecordedClient.prototype.session;
RecordedClient.prototype.session = function (...a) {
  const s = openSession.apply(this, a);
  const check = s.checkToolCall.bind(s);
  s.checkToolCall = async (...b) => { const r = await check(...b); seen.push([r.decision, r.reasons]); return r; };
  return s;
};
process.on("beforeExit", () => { if (!process.exitCode) console.log(JSON.stringify(seen)); });
`;
    writeFileSync(join(project, "example.mjs"), record + js);
    let refused = "";
    try {
      execFileSync("node", ["example.mjs"], { cwd: project, env, encoding: "utf8", stdio: "pipe" });
    } catch (err) {
      refused = String((err as { stderr?: string }).stderr);
    }
    expect(refused).toContain("LicenceRequired");
    expect(refused).toContain("stalwart licence dev");

    const dev = execFileSync(join(project, "node_modules/.bin/stalwart"), ["licence", "dev"], { cwd: project, env, encoding: "utf8" });
    expect(dev).toMatch(/^DEVELOPMENT LICENCE — .*dev keys.*never for production/);
    expect(readdirSync(join(project, ".stalwart/licence"))).toContain("installation.json");

    const seen = JSON.parse(execFileSync("node", ["example.mjs"], { cwd: project, env, encoding: "utf8" })) as [string, string[]][];
    const documented = [...(example ?? "").matchAll(/\/\/ → (allow|confirm|refuse) (\[[^\]]*\])/g)].map((m) => [m[1], JSON.parse(m[2] ?? "[]")]);
    expect(documented.length).toBeGreaterThanOrEqual(5);
    expect(seen).toEqual(documented);
  }, 120_000);
});

describe("the installed `stalwart gateway`", () => {
  it("writes a starter catalogue from the tool server, which `stalwart check` passes, and checks calls in front of it, as the README's host config runs it", async () => {
    const { Client } = await import("@modelcontextprotocol/client");
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    const filesystem = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-filesystem/dist/index.js");
    const project = mkdtempSync(join(tmpdir(), "stalwart-pack-gateway-"));
    const notes = realpathSync(mkdtempSync(join(tmpdir(), "stalwart-pack-notes-")));
    writeFileSync(join(notes, "hello.txt"), "hello\n");
    const home = copyLicence(join(project, ".stalwart"));
    const bin = join(app, "node_modules/.bin/stalwart");
    const env = { ...(process.env as Record<string, string>), STALWART_HOME: home };
    execFileSync(bin, ["gateway", "init", "-o", "agent.yaml", "--", process.execPath, filesystem, notes], { cwd: project, env, encoding: "utf8", stdio: "pipe" });
    expect(execFileSync(bin, ["check", "agent.yaml"], { cwd: project, env, encoding: "utf8" })).toMatch(/ok/);

    const client = new Client({ name: "host", version: "1.0.0" }, { capabilities: {} });
    await client.connect(new StdioClientTransport({ command: bin, args: ["gateway", "--catalogue", "agent.yaml", "--", process.execPath, filesystem, notes], cwd: project, env, stderr: "pipe" }), { timeout: 60_000 });
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["read_text_file", "write_file"]));
      const read = await client.callTool({ name: "read_text_file", arguments: { path: join(notes, "hello.txt") } });
      expect(read.isError).toBeFalsy();
      expect(JSON.stringify(read.content)).toContain("hello");
      const write = await client.callTool({ name: "write_file", arguments: { path: join(notes, "new.txt"), content: "x" } });
      expect(write.isError).toBe(true);
      expect(write._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "confirm", pending: expect.stringMatching(/^p_/) });
      expect(existsSync(join(notes, "new.txt"))).toBe(false);
    } finally {
      await client.close();
    }
  }, 120_000);

  it("started by npx as the docs write it for a host outside the project (`npx -y -p stalwart-agents stalwart gateway … -- npx -y SERVER`): the tool server's npx runs the tool server", async () => {
    // The outer npx puts its own options (`-p`, `-y`) in the gateway's environment; handed on to the
    // tool server's npx they made it run the server's name inside stalwart-agents ("not found").
    const { Client } = await import("@modelcontextprotocol/client");
    const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
    // the tool server installed beside the package (a link to the repository's copy: no registry)
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", join(repo, "node_modules/@modelcontextprotocol/server-memory")], { cwd: app, encoding: "utf8", stdio: "pipe" });
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-pack-npx-home-")));
    const catalogue = join(home, "agent.yaml");
    writeFileSync(catalogue, "settings: {language: en}\ntools:\n  - {name: read_graph, args: {type: object}}\n");
    const client = new Client({ name: "host", version: "1.0.0" }, { capabilities: {} });
    const env = { ...(process.env as Record<string, string>), STALWART_HOME: home };
    await client.connect(new StdioClientTransport({ command: "npx", args: ["-y", "-p", "stalwart-agents", "stalwart", "gateway", "--catalogue", catalogue, "--", "npx", "-y", "@modelcontextprotocol/server-memory"], cwd: app, env, stderr: "pipe" }), { timeout: 60_000 });
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["read_graph"]);
      const graph = await client.callTool({ name: "read_graph", arguments: {} });
      expect(graph.isError, JSON.stringify(graph.content)).toBeFalsy();
    } finally {
      await client.close();
    }
  }, 120_000);
});
