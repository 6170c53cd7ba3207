/**
 * A lock file of the home that is not a regular file — a directory (a stray mkdir, a restore
 * gone wrong), a pipe, a symbolic link to a directory — in place of `state.mdb-lock`,
 * `state.gate-lock` or `licence/counters.gate-lock`. lmdb@3.5.6 killed every process opening it
 * (SIGSEGV, in its error path after the lock file failed to open): every check, `stalwart
 * counters status` and `stalwart doctor`, which for the licence's gate said all was well
 * (outside audit (state) F5). Now the typed error of a file that cannot be read, naming it, and
 * doctor says what to do. The check and the commands run as processes of their own.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { licensedHome } from "../helpers/licensed-home.js";
import { builtCli } from "../helpers/built-cli.js";
import { stalwart } from "../helpers/licence-cli.js";

const repo = resolve(import.meta.dirname, "../..");

/** A home whose store, gate and licence counts' gate exist: one check made and its counts written. */
function usedHome(): string {
  const home = licensedHome("lock-not-file");
  const r = check(home);
  expect({ status: r.status, out: r.stdout.trim() }, r.stderr).toEqual({ status: 0, out: "allow" });
  for (const f of ["state.mdb-lock", "state.gate-lock", "licence/counters.gate-lock"]) expect(existsSync(join(home, f)), f).toBe(true);
  return home;
}

function check(home: string) {
  builtCli(); // the child runs the build: refused when it is older than the sources
  return spawnSync(process.execPath, [join(repo, "test/fixtures/check-child.mjs"), home], { cwd: repo, encoding: "utf8", timeout: 60_000 });
}

const put: Record<string, (file: string) => void> = {
  "a directory": (file) => mkdirSync(file),
  "a pipe": (file) => execFileSync("mkfifo", [file]),
  "a link to a directory": (file) => {
    mkdirSync(`${file}.target`);
    symlinkSync(`${file}.target`, file);
  },
};

const CASES: [string, string][] = [
  ["state.mdb-lock", "SessionStateUnreadable"],
  ["state.gate-lock", "SessionStateUnreadable"],
  ["licence/counters.gate-lock", "LicenceFileUnreadable"],
];

describe("a lock file of the home that is not a regular file", () => {
  for (const [name, code] of CASES) {
    for (const [what, make] of Object.entries(put)) {
      it(`${name} as ${what}: the check is ${code} naming it, the process lives`, () => {
        const home = usedHome();
        const file = join(home, name);
        rmSync(file);
        make(file);
        const r = check(home);
        expect({ status: r.status, signal: r.signal }, r.stderr).toEqual({ status: 1, signal: null });
        expect(r.stderr).toContain(`${code}: `);
        expect(r.stderr).toContain(`\`${file}\``);
      }, 90_000);
    }

    it(`${name} as a directory: \`counters status\` and \`doctor\` say so, naming it and the fix`, async () => {
      const home = usedHome();
      const file = join(home, name);
      rmSync(file);
      mkdirSync(file);
      const env = { STALWART_HOME: home, STALWART_LICENCE_URL: "http://127.0.0.1:9" };

      const status = await stalwart(["counters", "status", "--json", "--home", home], env);
      if (code === "SessionStateUnreadable") {
        expect(status.code, status.stderr).toBe(1);
        expect(status.json()).toMatchObject({ healthy: false, problem: { code, where: file, message: expect.stringContaining("is a directory"), hint: expect.stringContaining(`remove \`${file}\``) } });
        const human = await stalwart(["counters", "status", "--home", home], env);
        expect(human.code).toBe(1);
        expect(human.stdout).toMatch(/UNREADABLE \(SessionStateUnreadable\)/);
      } else {
        expect(status.code, status.stderr).toBe(0); // the store itself is fine: the licence's gate is not its file
      }

      const doctor = await stalwart(["doctor", "--json"], env);
      expect(doctor.code, doctor.stderr).toBe(1);
      const missing = (doctor.json() as { missing: string[] }).missing.join("\n");
      expect(missing).toContain(`\`${file}\` cannot be opened: it is a directory`);
      expect(missing).toContain(`remove \`${file}\``);
      const human = await stalwart(["doctor"], env);
      expect(human.code).toBe(1);
      expect(human.stdout).toContain(file);
    }, 90_000);
  }

  it("`counters reset` refuses with the lock file a directory, and moves nothing aside", async () => {
    const home = usedHome();
    const lock = join(home, "state.mdb-lock");
    rmSync(lock);
    mkdirSync(lock);
    const r = await stalwart(["counters", "reset", "--home", home], {});
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("SessionStateUnreadable");
    expect(r.stderr).toContain(`\`${lock}\``);
    expect(readdirSync(home).filter((f) => f.includes(".reset-"))).toEqual([]);
    rmSync(lock, { recursive: true });
    expect(check(home).status).toBe(0); // removed, as the hint says: the next process makes a new one
  }, 90_000);
});
