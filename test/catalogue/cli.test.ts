/** `stalwart check`, driven as a user runs it: `stalwart check FILE` (the built command, test/helpers/built-cli.ts). */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { builtCli } from "../helpers/built-cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const stalwart = (args: string[], cwd = root) =>
  spawnSync(process.execPath, [builtCli(), ...args], { cwd, encoding: "utf8", timeout: 60_000 });

describe("stalwart check", () => {
  it("a clean catalogue: exit 0, `file: ok (N tools)`", () => {
    const r = stalwart(["check", "examples/store/agent.yaml"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("examples/store/agent.yaml: ok (8 tools)\n");
    expect(r.status).toBe(0);
  });

  it("warnings compiler-style on stderr, exit 0: a tool with no `args` is named", () => {
    const r = stalwart(["check", "test/fixtures/catalogues/store.yaml"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("test/fixtures/catalogues/store.yaml: ok (7 tools, 3 warnings)\n");
    const warnings = r.stderr.split("\n").filter((l) => l.includes(": warning: "));
    expect(warnings).toEqual([
      "test/fixtures/catalogues/store.yaml:18:11: warning: tool `read_inbox`: declares no `args`, so every call that passes an argument is refused (`argument_schema`)",
      "test/fixtures/catalogues/store.yaml:50:11: warning: tool `cancel_order`: declares no `args`, so every call that passes an argument is refused (`argument_schema`)",
      "test/fixtures/catalogues/store.yaml:52:11: warning: tool `send_receipt`: declares no `args`, so every call that passes an argument is refused (`argument_schema`)",
    ]);
    expect(r.stderr).toContain("hint: declare its arguments: `args: {type: object, properties: {…}}`; a tool that takes none says `args: {type: object}`");
    const json = JSON.parse(stalwart(["check", "test/fixtures/catalogues/store.yaml", "--json"]).stdout);
    expect(json.ok).toBe(true);
    expect(json.warnings.map((w: { line: number }) => w.line)).toEqual([18, 50, 52]);
  });

  it("errors compiler-style on stderr, exit 1", () => {
    const r = stalwart(["check", "test/fixtures/catalogues/bad-words.yaml"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe("test/fixtures/catalogues/bad-words.yaml:2:13: error: settings: `language` must be one of `en`, `pt-BR`, not a string `pt`");
    expect(lines[1]).toBe("  hint: did you mean `pt-BR`?");
    expect(r.stderr).toContain("test/fixtures/catalogues/bad-words.yaml:6:5: error: tool `get_order`: unknown word `writs`\n  hint: did you mean `writes`?");
    expect(lines[lines.length - 1]).toBe("test/fixtures/catalogues/bad-words.yaml: 10 errors, 2 warnings");
  });

  it("--json", () => {
    const r = stalwart(["check", "test/fixtures/catalogues/bad-yaml.yaml", "--json"]);
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.ok).toBe(false);
    expect(out.problems[0]).toEqual({ file: "test/fixtures/catalogues/bad-yaml.yaml", line: 4, column: 5, message: "key `writes` appears twice in this map", hint: "each word may appear once per map; remove or merge the repeated one", pointer: "" });
    const ok = stalwart(["check", "test/fixtures/catalogues/conditions.yaml", "--json"]);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, tools: 7, problems: [] });
    expect(JSON.parse(ok.stdout).warnings).toHaveLength(6);
  });

  it("defaults to agent.yaml in the current folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "stalwart-check-"));
    const missing = stalwart(["check"], dir);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("agent.yaml:1:1: error: cannot read `agent.yaml`: no such file");
    // where a relative path was looked for (the hint named `stalwart check` even to an SDK caller)
    expect(missing.stderr).toContain(`hint: check the path: a relative one is read from the current folder, \``);
    expect(missing.stderr).toContain(`${dir}\``);
    writeFileSync(join(dir, "agent.yaml"), "tools:\n  - name: get_order\n");
    const ok = stalwart(["check"], dir);
    expect(ok.stdout).toBe("agent.yaml: ok (1 tool, 1 warning)\n");
    expect(ok.status).toBe(0);
  });

  it("a missing file or a folder: a clear error, exit 1", () => {
    const r = stalwart(["check", "nope/agent.yaml"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("nope/agent.yaml:1:1: error: cannot read `nope/agent.yaml`: no such file");
    const d = stalwart(["check", "test"]);
    expect(d.status).toBe(1);
    expect(d.stderr).toContain("`test` is a folder");
  });

  it("1,500 problems: it says the analysis stopped at 1,000, in words and in --json (outside audit 16, F4)", () => {
    const dir = mkdtempSync(join(tmpdir(), "stalwart-check-many-"));
    let yaml = "tools:\n";
    for (let i = 0; i < 1500; i++) yaml += `  - name: t${i}\n    write: true\n    args: {type: object}\n`;
    writeFileSync(join(dir, "many.yaml"), yaml);
    const r = stalwart(["check", "many.yaml"], dir);
    expect(r.status).toBe(1);
    expect(r.stderr.split("\n").filter((l) => l.includes(": error: "))).toHaveLength(1000);
    expect(r.stderr.trimEnd().split("\n").at(-1)).toBe("many.yaml: 1000 errors; the analysis stopped at 1,000, so there may be more: fix these and check again");
    const json = JSON.parse(stalwart(["check", "many.yaml", "--json"], dir).stdout);
    expect([json.ok, json.problems.length, json.stopped_at]).toEqual([false, 1000, 1000]);
    // under the limit nothing is said: the count is the count
    writeFileSync(join(dir, "few.yaml"), yaml.split("\n").slice(0, 1 + 3 * 999).join("\n") + "\n");
    expect(stalwart(["check", "few.yaml"], dir).stderr.trimEnd().split("\n").at(-1)).toBe("few.yaml: 999 errors");
    expect(JSON.parse(stalwart(["check", "few.yaml", "--json"], dir).stdout)).not.toHaveProperty("stopped_at");
  });

  it("bad usage: exit 2", () => {
    expect(stalwart(["check", "--bogus"]).status).toBe(2);
    expect(stalwart(["check", "a.yaml", "b.yaml"]).status).toBe(2);
  });
});
