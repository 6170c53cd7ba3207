/**
 * A file of the licence folder replaced by something that is not a regular file (a directory, a
 * pipe): `counters.json`, `counters.witness.json`, `installation.json` threw a plain `Error` with
 * no `code` from the client's first operation (outside audit (state) F6). Now `LicenceFileUnreadable`
 * naming the file, and `stalwart doctor` reports it (exit 1) rather than throwing. The check runs
 * as a process of its own.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { licensedHome } from "../helpers/licensed-home.js";
import { builtCli } from "../helpers/built-cli.js";
import { stalwart } from "../helpers/licence-cli.js";

const repo = resolve(import.meta.dirname, "../..");

function check(home: string) {
  builtCli(); // the child runs the build: refused when it is older than the sources
  return spawnSync(process.execPath, [join(repo, "test/fixtures/check-child.mjs"), home], { cwd: repo, encoding: "utf8", timeout: 60_000 });
}

/** A home whose licence has counted (its counts and their witness written). */
function usedHome(): string {
  const home = licensedHome("licence-not-file");
  const r = check(home);
  expect({ status: r.status, out: r.stdout.trim() }, r.stderr).toEqual({ status: 0, out: "allow" });
  return home;
}

const put: Record<string, (file: string) => void> = {
  "a directory": (file) => mkdirSync(file),
  "a pipe": (file) => execFileSync("mkfifo", [file]),
};

const doctor = (home: string, json = true) => stalwart(["doctor", ...(json ? ["--json"] : [])], { STALWART_HOME: home, STALWART_LICENCE_URL: "http://127.0.0.1:9" });

describe("a licence file that is not a regular file", () => {
  for (const name of ["counters.json", "counters.witness.json", "installation.json"]) {
    for (const [what, make] of Object.entries(put)) {
      it(`${name} as ${what}: LicenceFileUnreadable naming it, from the check and from doctor`, async () => {
        const home = usedHome();
        const file = join(home, "licence", name);
        expect(existsSync(file)).toBe(true);
        rmSync(file);
        make(file);

        const r = check(home);
        expect({ status: r.status, signal: r.signal }, r.stderr).toEqual({ status: 1, signal: null });
        expect(r.stderr).toContain(`LicenceFileUnreadable: \`${file}\` cannot be read`);

        const d = await doctor(home);
        expect(d.code, d.stderr).toBe(1);
        const report = d.json() as { licence: { ok: boolean; code?: string; message?: string }; missing: string[] };
        expect(report.licence).toMatchObject({ ok: false, code: "LicenceFileUnreadable", message: expect.stringContaining(`\`${file}\``) });
        expect(report.missing.join("\n")).toContain(`licence files the runtime can read: \`${file}\` cannot be read`);
      }, 90_000);
    }
  }

  it("the licence folder replaced by a file: LicenceFileUnreadable naming the folder, not \"no activated licence\" (outside audit 17, F12)", async () => {
    const home = usedHome();
    const dir = join(home, "licence");
    rmSync(dir, { recursive: true });
    writeFileSync(dir, "x\n");

    const r = check(home);
    expect({ status: r.status, signal: r.signal }, r.stderr).toEqual({ status: 1, signal: null });
    expect(r.stderr).toContain(`LicenceFileUnreadable: \`${dir}\` is not a folder`);
    expect(r.stderr).not.toContain("no activated licence");

    const d = await doctor(home);
    expect(d.code, d.stderr).toBe(1);
    const report = d.json() as { licence: { ok: boolean; code?: string; message?: string } };
    expect(report.licence).toMatchObject({ ok: false, code: "LicenceFileUnreadable", message: expect.stringContaining(`\`${dir}\` is not a folder`) });
  }, 90_000);

  it("the dev API key as a directory: doctor reports it, naming it, rather than throwing", async () => {
    const home = usedHome();
    const file = join(home, "licence", "dev-api-key");
    mkdirSync(file);
    const d = await doctor(home, false);
    expect(d.code, d.stderr).toBe(1);
    expect(d.stderr).toBe("");
    expect(d.stdout).toContain(`licence files the runtime can read: \`${file}\` cannot be read (\`${file}\` is a directory, not a regular file)`);
  }, 90_000);
});
