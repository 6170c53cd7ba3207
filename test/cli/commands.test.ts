/**
 * Every `stalwart` command and verb, walked from the declarations (cli/commands/index.ts): its
 * `--help` exits 0 and prints its usage without acting, a misspelt option or verb exits 2 with a
 * did-you-mean, and the exit codes of docs/cli.md hold — 0 ok, 1 a finding or a missing licence,
 * 2 a usage error.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isGroup, leaves, runGroup, wordOf, type Command, type Group } from "../../cli/command.js";
import { root } from "../../cli/commands/index.js";
import { REPO } from "../conformance/runner.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { installationKey } from "../../cli/sdk/home.js";
import { argsDigest } from "../helpers/pending-record.js";
import { builtCli } from "../helpers/built-cli.js";

const temp = (tag: string) => mkdtempSync(join(tmpdir(), `stalwart-cli-${tag}-`));

// Every run gets an empty home and an empty working folder, so that "did nothing" can be seen.
const saved = { cwd: process.cwd(), HOME: process.env.HOME, STALWART_HOME: process.env.STALWART_HOME, STALWART_LICENCE_URL: process.env.STALWART_LICENCE_URL, QLS_API_KEY: process.env.QLS_API_KEY };
let home: string;
let cwd: string;
beforeAll(() => {
  process.env.STALWART_LICENCE_URL = "http://127.0.0.1:9"; // nothing listens there
  delete process.env.QLS_API_KEY;
});
afterAll(() => {
  process.chdir(saved.cwd);
  for (const k of ["HOME", "STALWART_HOME", "STALWART_LICENCE_URL", "QLS_API_KEY"] as const) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

async function stalwart(argv: string[], opts: { home?: string } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  home = opts.home ?? temp("home");
  cwd = temp("cwd");
  process.env.HOME = home;
  process.env.STALWART_HOME = home;
  process.chdir(cwd);
  let stdout = "";
  let stderr = "";
  try {
    const code = await runGroup(root, argv, { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } });
    return { code, stdout, stderr };
  } finally {
    process.chdir(saved.cwd);
  }
}

const untouched = () => expect([...readdirSync(home), ...readdirSync(cwd)]).toEqual([]);
const words = (path: string) => (path === "" ? [] : path.split(" "));

function groups(c: Command): Group[] {
  return isGroup(c) ? [c, ...c.commands.flatMap(groups)] : [];
}

describe("--help on every command and verb: exit 0, the usage, nothing done", () => {
  it.each(leaves(root).map((l) => [l.path, l] as const))("stalwart %s --help", async (path, leaf) => {
    for (const help of ["--help", "-h"]) {
      const r = await stalwart([...words(path), help]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
      expect(r.stdout.startsWith(`usage: stalwart ${path}`)).toBe(true);
      expect(r.stdout).toContain(leaf.summary);
      for (const name of Object.keys(leaf.options)) expect(r.stdout).toContain(`--${name}`);
      untouched();
    }
    // the help wins over anything else on the line, even a bad option or a missing argument
    const r = await stalwart([...words(path), "--bogus", "--help"]);
    expect(r.code).toBe(0);
    untouched();
  });

  it.each(groups(root).map((g) => [g.path || "(no command)", g] as const))("stalwart %s --help lists every verb with its summary", async (_, group) => {
    const r = await stalwart([...words(group.path), "--help"]);
    expect(r.code).toBe(0);
    for (const leaf of leaves(group)) expect(r.stdout).toContain(leaf.summary);
    untouched();
  });
});

describe("usage errors: exit 2 with a did-you-mean", () => {
  it.each(leaves(root).map((l) => [l.path] as const))("stalwart %s --jsno", async (path) => {
    const r = await stalwart([...words(path), "--jsno"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option `--jsno`");
    expect(r.stderr).toContain("did you mean `--json`?");
    expect(r.stderr).toContain(`usage: stalwart ${path}`);
    expect(r.stdout).toBe("");
    untouched();
  });

  it.each(groups(root).flatMap((g) => g.commands.map((c) => [g.path, wordOf(c)] as const)))("stalwart %s <%s, misspelt>", async (path, word) => {
    const r = await stalwart([...words(path), word.slice(0, -1)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`did you mean \`${word}\`?`);
    untouched();
  });

  it("`stalwart chek`, `stalwart` alone, a group alone, an argument too many", async () => {
    const chek = await stalwart(["chek"]);
    expect([chek.code, chek.stderr.split("\n").slice(0, 2)]).toEqual([2, ["stalwart: unknown command `chek`", "  hint: did you mean `check`?"]]);
    const alone = await stalwart([]);
    expect(alone.code).toBe(2);
    for (const leaf of leaves(root)) expect(alone.stderr).toContain(leaf.summary); // the usage text, on stderr
    for (const argv of [[], ["licence"], ["rules"], ["doctor", "now"], ["check", "a.yaml", "b.yaml"], ["replay", "t.jsonl"], ["rules", "compile", "r.yaml", "-o"]]) {
      const r = await stalwart(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr, argv.join(" ")).toMatch(/usage: stalwart|--help` says more/);
    }
  });

  it("with --json, an unknown command or verb is the JSON error on stdout, as every other error", async () => {
    for (const [argv, message] of [[["chek", "--json"], "unknown command `chek`"], [["licence", "bogus", "--json"], "unknown verb `bogus`"], [["approvals", "bogus", "--json"], "unknown verb `bogus`"], [["counters", "--json"], "`--json` comes after the verb"]] as const) {
      const r = await stalwart([...argv]);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr, argv.join(" ")).toBe("");
      expect(JSON.parse(r.stdout), argv.join(" ")).toMatchObject({ error: { code: "UsageError", message: expect.stringContaining(message) } });
    }
  });
});

describe("the exit codes of docs/cli.md", () => {
  const catalogue = join(REPO, "examples/store/agent.yaml");
  const rulebook = join(REPO, "examples/store/rulebook.yaml");
  const trace = join(REPO, "examples/store/trace.jsonl");

  it("docs/cli.md names every command and verb", () => {
    const doc = readFileSync(join(REPO, "docs/cli.md"), "utf8");
    for (const leaf of leaves(root)) expect(doc, leaf.path).toContain(`\`stalwart ${leaf.path}`);
  });

  it("0: a clean lint, a replay, a compile, doctor where checks can run", async () => {
    expect((await stalwart(["check", catalogue])).code).toBe(0);
    const licensed = licensedHome("cli-codes");
    expect((await stalwart(["replay", trace, "--catalogue", catalogue], { home: licensed })).code).toBe(0);
    expect((await stalwart(["rules", "compile", rulebook, "-o", join(temp("out"), "r")], { home: licensed })).code).toBe(0);
    expect((await stalwart(["licence", "status"], { home: licensed })).code).toBe(0);
    const doctor = await stalwart(["doctor", "--json"], { home: licensed });
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(JSON.parse(doctor.stdout)).toMatchObject({ api_key: { configured: false }, missing: [] });
  });

  it("1: a finding, and a missing licence from every command that needs one", async () => {
    expect((await stalwart(["check", join(REPO, "test/fixtures/catalogues/bad-words.yaml")])).code).toBe(1);
    for (const argv of [["replay", trace, "--catalogue", catalogue], ["rules", "compile", rulebook, "-o", "out"], ["rules", "check", rulebook], ["licence", "status"], ["licence", "release"]]) {
      const r = await stalwart(argv);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stderr, argv.join(" ")).toMatch(/^stalwart: LicenceRequired: .*\n {2}hint: .*stalwart licence dev/);
    }
    const json = await stalwart(["licence", "status", "--json"]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "LicenceRequired" } });
    const doctor = await stalwart(["doctor", "--json"]);
    expect(doctor.code).toBe(1);
    expect(JSON.parse(doctor.stdout).missing.join("\n")).toContain("stalwart licence dev");
    expect((await stalwart(["licence", "activate"])).code).toBe(1); // no API key
  });
});

describe("2: a value an option or argument cannot take is a usage error, on every command alike (outside audit 16, F2)", () => {
  const catalogue = join(REPO, "examples/store/agent.yaml");
  const gateway = (...flags: string[]) => ["gateway", "--catalogue", catalogue, ...flags, "--", "no-such-tool-server"];
  it.each([
    [gateway("--ask-timeout", "abc"), "`--ask-timeout abc` is not a number of seconds"],
    [gateway("--ask-timeout", "99999999"), "`--ask-timeout 99999999` is longer than the gateway can wait"],
    [gateway("--call-timeout", "0"), "`--call-timeout 0` is not a number of seconds"],
    [gateway("--listen", "nonsense"), "`--listen nonsense` is not HOST:PORT"],
    [gateway("--listen", "0.0.0.0:23720"), "`--listen 0.0.0.0:23720`: the gateway binds to loopback only"],
    [gateway("--listen", "127.0.0.1:0", "--max-sessions", "0"), "`--max-sessions 0` is not a whole number of at least 1"],
    [gateway("--language", "pt"), "`--language pt` is not en or pt-BR"],
    [["approvals", "serve", "--port", "abc"], "`--port` must be a port number, not `abc`"],
    [["approvals", "serve", "--host", "0.0.0.0"], "`--host` must be a loopback address"],
    [["approvals", "show", "nope"], "`nope` is not a pending confirmation id"],
    [["approvals", "approve", "nope"], "`nope` is not a pending confirmation id"],
    [["approvals", "deny", "nope", "--json"], "`nope` is not a pending confirmation id"],
  ])("stalwart %j", async (argv, says) => {
    const r = await stalwart(argv);
    expect(r.code).toBe(2);
    const said = argv.includes("--json") ? JSON.parse(r.stdout) : r.stderr;
    if (typeof said === "string") expect(said).toMatch(/^stalwart (gateway|approvals \w+): /);
    else expect(said).toMatchObject({ error: { code: "UsageError" } });
    expect(JSON.stringify(said)).toContain(JSON.stringify(says).slice(1, -1));
    untouched();
  });
});

describe("the built command, as a user runs it", () => {
  const run = (args: string[], env: Record<string, string>) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [builtCli(), ...args], { cwd: REPO, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });

  it("--version, --help, chek, and `licence activate --help` (which used to activate)", async () => {
    const h = temp("main-home");
    const env = { HOME: h, STALWART_HOME: h, QLS_API_KEY: "qls_live_notakeynotakeynotakey", STALWART_LICENCE_URL: "http://127.0.0.1:9" };
    const version = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version as string;
    const [v, help, chek, activate] = await Promise.all([run(["-v"], env), run(["--help"], env), run(["chek"], env), run(["licence", "activate", "--help"], env)]);
    expect([v.code, v.stdout]).toEqual([0, `stalwart ${version}\n`]);
    expect(help.code).toBe(0);
    for (const leaf of leaves(root)) expect(help.stdout).toContain(leaf.summary);
    expect([chek.code, chek.stderr]).toEqual([2, expect.stringContaining("did you mean `check`?")]);
    expect([activate.code, activate.stderr]).toEqual([0, ""]);
    expect(activate.stdout).toMatch(/^usage: stalwart licence activate/);
    expect(readdirSync(h)).toEqual([]);
  });

  it("a value an option or argument cannot take exits 2 from the process too (outside audit 16, F2)", async () => {
    const h = temp("main-values");
    const env = { HOME: h, STALWART_HOME: h };
    const catalogue = join(REPO, "examples/store/agent.yaml");
    const [listen, show] = await Promise.all([run(["gateway", "--listen", "nonsense", "--catalogue", catalogue, "--", "echo"], env), run(["approvals", "show", "nope"], env)]);
    expect([listen.code, listen.stderr]).toEqual([2, expect.stringContaining("stalwart gateway: `--listen nonsense` is not HOST:PORT")]);
    expect([show.code, show.stderr]).toEqual([2, expect.stringContaining("stalwart approvals show: `nope` is not a pending confirmation id")]);
    expect(readdirSync(h)).toEqual([]);
  });

  it("each command loads alone (cli/commands/load.ts): one loader per command of the root, giving that command", async () => {
    const { LOADERS, rootFor } = await import("../../cli/commands/load.js");
    expect(Object.keys(LOADERS).sort()).toEqual(root.commands.map(wordOf).sort());
    for (const c of root.commands) {
      const alone = await rootFor(wordOf(c));
      expect(alone.commands).toEqual([c]);
      expect(alone.commands[0]).toBe(c);
      expect({ ...alone, commands: [] }).toEqual({ ...root, commands: [] });
    }
    // any other first word: every command, for the usage and its suggestions
    for (const word of [undefined, "help", "--help", "chek", "constructor", "__proto__"]) expect(await rootFor(word)).toBe(root);
  });

  it("output larger than a pipe's buffer arrives whole (`process.exit` used to cut it at 64 KiB)", async () => {
    const h = temp("main-pipe");
    const note = "x".repeat(300_000);
    // signed under the home's key, as a session writes records (an unsigned one is unreadable)
    installationKey(h);
    new FileApprovalStore(h, () => homeMac(h)).add({
      v: 1, id: "p_00000000000000aa", session: "s".repeat(32), step: 1, tool: "refund_card", agent: null, args: { order_id: "4411", note },
      digest: argsDigest({ order_id: "4411", note }), origins: {}, reasons: ["write"], wording: "Allow refund_card?", counters: [], token: "t", created: 0, expires: 1,
    });
    const r = await run(["approvals", "show", "p_00000000000000aa", "--home", h, "--json"], { HOME: h, STALWART_HOME: h });
    expect([r.code, r.stderr]).toEqual([0, ""]);
    expect(JSON.parse(r.stdout).record.args.note).toBe(note);
  });
});
