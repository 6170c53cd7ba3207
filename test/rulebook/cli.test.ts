/**
 * `stalwart rules compile RULEBOOK -o DIR` and `stalwart rules check RULEBOOK`, run in-process
 * through the command's `run(argv)` (cli/main.ts dispatches `rules` to it): the summary line, the
 * registry written, `--json`, compiler-style errors with exit 1, usage errors with exit 2.
 */
import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { run, summary } from "../../cli/commands/rules.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { loadRegistry } from "../../worker/portable/engine/rulebook/index.js";

const repo = (rel: string) => fileURLToPath(new URL(`../../${rel}`, import.meta.url));
const STORE_YAML = repo("examples/store/rulebook.yaml");
const STORE_CSV = repo("examples/store/rules.csv");
const CATALOGUE = repo("examples/store/agent.yaml");

let out = "";
let err = "";
beforeEach(() => {
  out = "";
  err = "";
  vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
});
afterEach(() => vi.restoreAllMocks());
// `stalwart rules` needs an activated licence (licensing.md): the commands run under a licensed home.
const savedHome = process.env.STALWART_HOME;
beforeAll(() => void (process.env.STALWART_HOME = licensedHome("rules-cli")));
afterAll(() => (savedHome === undefined ? delete process.env.STALWART_HOME : (process.env.STALWART_HOME = savedHome)));

const temp = () => mkdtempSync(join(tmpdir(), "stalwart-rules-cli-"));

describe("stalwart rules compile", () => {
  it("writes DIR/registry.json and prints `N rules, M flows → DIR/registry.json`", async () => {
    const dir = join(temp(), "store-rules");
    expect(await run(["compile", STORE_YAML, "-o", dir, "--catalogue", CATALOGUE])).toBe(0);
    const target = join(dir, "registry.json");
    expect(out).toBe(`2 rules, 1 flow → ${target}\n`);
    expect(err).toBe("");
    const reg = JSON.parse(readFileSync(target, "utf8"));
    expect(reg).toMatchObject({ v: 1, source: "rulebook.yaml" });
    expect(loadRegistry(readFileSync(target, "utf8"), { file: target }).digest).toBe(reg.digest);
    expect(readdirSync(dir)).toEqual(["registry.json"]); // no temporary file left behind
  });

  it("a spreadsheet compiles to the same rules and digest", async () => {
    const a = temp();
    const b = temp();
    expect(await run(["compile", STORE_YAML, "-o", a])).toBe(0);
    expect(await run(["compile", STORE_CSV, "--out", b])).toBe(0);
    const ra = JSON.parse(readFileSync(join(a, "registry.json"), "utf8"));
    const rb = JSON.parse(readFileSync(join(b, "registry.json"), "utf8"));
    expect(rb.digest).toBe(ra.digest);
    expect(rb.rules).toEqual(ra.rules);
    expect(rb.source).toBe("rules.csv");
  });

  it("--json", async () => {
    const dir = temp();
    expect(await run(["compile", STORE_CSV, `--out=${dir}`, "--json"])).toBe(0);
    const answer = JSON.parse(out);
    expect(answer).toMatchObject({ ok: true, rules: 2, flows: 1, registry: join(dir, "registry.json") });
    expect(answer.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a bad rulebook: every error compiler-style on stderr, exit 1, nothing written", async () => {
    const dir = temp();
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "rules:\n  - {name: A, flow: f, then: refus}\n");
    const outDir = join(dir, "out");
    expect(await run(["compile", bad, "-o", outDir])).toBe(1);
    expect(out).toBe("");
    expect(err).toBe(
      `${bad}:2:12: error: rule \`A\`: a string \`A\` is not a valid rule \`name\`\n  hint: a rule's name is the reason code it refuses with: snake_case, at most 64 characters, e.g. \`a\`\n` +
        `${bad}:2:30: error: rule \`A\`: \`then\` must be one of \`refuse\`, \`ask\`, not a string \`refus\`\n  hint: did you mean \`refuse\`?\n` +
        `${bad}: 2 errors\n`,
    );
    expect(existsSync(outDir)).toBe(false);
  });

  it("a bad rulebook with --json: {ok: false, problems} on stdout", async () => {
    const dir = temp();
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, "name,flow,then\na,f,refus\n");
    expect(await run(["compile", bad, "-o", dir, "--json"])).toBe(1);
    expect(JSON.parse(out)).toEqual({ ok: false, problems: [{ file: bad, line: 2, column: 5, message: expect.stringContaining("`then` must be one of"), hint: "did you mean `refuse`?", pointer: "/rules/0/then" }] });
  });

  it("a tool the catalogue does not have", async () => {
    const dir = temp();
    const bad = join(dir, "r.yaml");
    writeFileSync(bad, "rules:\n  - {name: a, flow: f, tools: [refnd_card], then: refuse}\n");
    expect(await run(["compile", bad, "-o", dir, "--catalogue", CATALOGUE])).toBe(1);
    expect(err).toContain(`${bad}:2:32: error: rule \`a\`: \`tools\` names \`refnd_card\`, which is not a tool in the catalogue\n  hint: did you mean \`refund_card\`?`);
    expect(await run(["compile", bad, "-o", dir])).toBe(0); // without the catalogue nobody can tell
  });

  it("a catalogue that does not load is reported as such", async () => {
    const dir = temp();
    const cat = join(dir, "agent.yaml");
    writeFileSync(cat, "tools:\n  - name: a\n    writs: true\n");
    expect(await run(["compile", STORE_YAML, "-o", dir, "--catalogue", cat])).toBe(1);
    expect(err).toContain(`${cat}:3:5: error: tool \`a\`: unknown word \`writs\``);
  });

  it("a missing rulebook is an error naming it", async () => {
    expect(await run(["compile", "/nonexistent/rulebook.yaml", "-o", temp()])).toBe(1);
    expect(err).toContain("/nonexistent/rulebook.yaml:1:1: error: cannot read `/nonexistent/rulebook.yaml`");
  });

  it("a registry is not compiled again", async () => {
    const dir = temp();
    await run(["compile", STORE_YAML, "-o", dir]);
    expect(await run(["compile", dir, "-o", temp()])).toBe(2);
    expect(err).toContain("is a registry already");
  });
});

describe("stalwart rules check", () => {
  it("lints a rulebook: `FILE: ok (N rules, M flows)`", async () => {
    expect(await run(["check", STORE_CSV, "--catalogue", CATALOGUE])).toBe(0);
    expect(out).toBe(`${STORE_CSV}: ok (2 rules, 1 flow)\n`);
  });

  it("verifies a registry folder, and refuses one edited by hand, naming the file", async () => {
    const dir = temp();
    await run(["compile", STORE_YAML, "-o", dir]);
    out = "";
    expect(await run(["check", dir])).toBe(0);
    expect(out).toBe(`${dir}: ok (2 rules, 1 flow)\n`);
    const file = join(dir, "registry.json");
    writeFileSync(file, readFileSync(file, "utf8").replace('"value": 500', '"value": 5000'));
    expect(await run(["check", dir])).toBe(1);
    expect(err).toContain(`${file}:1:1: error: \`${file}\`: the registry was changed after it was compiled`);
    expect(err).toContain("hint: do not edit a registry by hand");
  });

  it("--json on a clean rulebook", async () => {
    expect(await run(["check", STORE_YAML, "--json"])).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ ok: true, rules: 2, flows: 1 });
  });
});

describe("usage", () => {
  const COMPILE = "usage: stalwart rules compile RULEBOOK -o DIR";
  const CHECK = "usage: stalwart rules check RULEBOOK";
  it.each([
    [[], "name a verb", COMPILE],
    [["build", "x.yaml"], "unknown verb `build`", COMPILE],
    [["compile", "x.yaml"], "name the registry folder: `-o DIR`", COMPILE],
    [["compile"], "name the rulebook", COMPILE],
    [["check", "a.yaml", "b.yaml"], "one rulebook at a time", CHECK],
    [["check", "a.yaml", "-o", "d"], "unknown option `-o`", CHECK],
    [["compile", "a.yaml", "-o"], "`-o` needs a value", COMPILE],
    [["compile", "a.yaml", "-o", "-1"], "`-1` starts with a dash, so it was read as an option (write `--out=-1` if it is the value)", COMPILE],
    [["check", "a.yaml", "--verbose"], "unknown option `--verbose`", CHECK],
    [["compile", "a.yaml", "-o", "d", "--catalog", "x"], "did you mean `--catalogue`?", COMPILE],
  ])("%j → exit 2", async (argv, message, usage) => {
    expect(await run(argv as string[])).toBe(2);
    expect(err).toContain(message);
    expect(err).toContain(usage);
  });

  it("--help prints the usage, exit 0; the command has a summary", async () => {
    expect(await run(["--help"])).toBe(0);
    expect(out).toContain("usage: stalwart rules compile RULEBOOK -o DIR");
    expect(summary).toMatch(/rulebook/);
  });
});
