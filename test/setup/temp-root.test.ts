import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import setup from "./temp-root.js";

describe("a test run's temporary files", () => {
  it("go under this run's directory, in the test and in the processes it starts", () => {
    expect(basename(tmpdir())).toMatch(/^stalwart-test-run-/);
    const child = execFileSync(process.execPath, ["-e", "process.stdout.write(require('node:os').tmpdir())"], { encoding: "utf8" });
    expect(child).toBe(tmpdir());
    // writable by every user, sticky, as /tmp is (a test runs processes as nobody)
    expect(statSync(tmpdir()).mode & 0o7777).toBe(0o1777);
  });

  it("are removed with it when the run ends, and the environment is given back", () => {
    const outer = process.env.TMPDIR;
    const teardown = setup();
    const root = tmpdir();
    expect(dirname(root)).toBe(outer);
    const made = mkdtempSync(join(tmpdir(), "stalwart-x-"));
    teardown();
    expect(existsSync(made)).toBe(false);
    expect(existsSync(root)).toBe(false);
    expect(process.env.TMPDIR).toBe(outer);
  });
});
