/** `stalwart check agent.yaml --rulebook R` lints the rulebook against the catalogue. */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { builtCli } from "../helpers/built-cli.js";

const repo = resolve(import.meta.dirname, "../..");
const stalwart = (...args: string[]) => spawnSync(process.execPath, [builtCli(), ...args], { cwd: repo, encoding: "utf8" });

describe("stalwart check --rulebook", () => {
  it("passes the store rulebook (YAML and CSV) and names a rule's unknown tool with its position", () => {
    expect(stalwart("check", "examples/store/agent.yaml", "--rulebook", "examples/store/rulebook.yaml").status).toBe(0);
    expect(stalwart("check", "examples/store/agent.yaml", "--rulebook=examples/store/rules.csv").status).toBe(0);
    const bad = join(mkdtempSync(join(tmpdir(), "stalwart-rb-")), "rb.yaml");
    writeFileSync(bad, "rules:\n  - name: x\n    flow: f\n    tools: [nope]\n    then: refuse\n");
    const r = stalwart("check", "examples/store/agent.yaml", "--rulebook", bad, "--json");
    expect(r.status).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out.problems[0]).toMatchObject({ file: bad, line: 4, column: 13 });
    expect(out.problems[0].message).toMatch(/`nope`/);
    expect(stalwart("check", "examples/store/agent.yaml", "--rulebook").status).toBe(2);
  }, 60_000);
});
