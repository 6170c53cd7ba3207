/**
 * The `stalwart` commands that read a file the user names, given something that is not a file: a
 * symlink to /dev/zero (reads forever) or a FIFO (blocks until a writer comes). Each is a clear
 * error naming the path, exit 1 (docs/cli.md), at once — never a hang or a process eating memory.
 */
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { licensedHome } from "../helpers/licensed-home.js";
import { builtCli } from "../helpers/built-cli.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "stalwart-special-"));
const zero = join(dir, "zero.yaml");
symlinkSync("/dev/zero", zero);
const fifo = join(dir, "fifo.jsonl");
execFileSync("mkfifo", [fifo]);
const trace = join(dir, "t.jsonl");
writeFileSync(trace, "");
const catalogue = join(root, "test/approvals/fixtures/refunds.yaml");

/** The CLI as a user runs it; killed after 20 s (a hang is what this file looks for). */
function stalwart(args: string[], home = join(dir, "home")): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, STALWART_HOME: home, NO_COLOR: "1" };
    delete env.QLS_API_KEY;
    const child = spawn(process.execPath, [builtCli(), ...args], { cwd: dir, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

describe("a path that is not a regular file", () => {
  // replay reads its files under a licence
  const licensed = licensedHome("special");
  const cases: [string, string[], string][] = [
    ["check, /dev/zero", ["check", zero], zero],
    ["check, a FIFO", ["check", fifo], fifo],
    ["replay, a trace that is /dev/zero", ["replay", zero, "--catalogue", catalogue], zero],
    ["replay, a trace that is a FIFO", ["replay", fifo, "--catalogue", catalogue], fifo],
    ["replay, a catalogue that is a FIFO", ["replay", trace, "--catalogue", fifo], fifo],
    ["check, a rulebook that is a FIFO", ["check", catalogue, "--rulebook", fifo], fifo],
    ["licence install, /dev/zero", ["licence", "install", zero], zero],
    ["licence answer, a FIFO", ["licence", "answer", fifo], fifo],
  ];
  it.each(cases)("%s: exit 1 at once, naming the file", async (_name, args, file) => {
    const r = await stalwart(args, args[0] === "replay" ? licensed : undefined);
    expect(r.stderr).toContain(`\`${file}\` is not a regular file`);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(r.code).toBe(1);
  }, 30_000);
});
