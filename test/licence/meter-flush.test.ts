/**
 * Issue 9: the licence meter's background write never throws into the host. A client whose
 * `licence/counters.json` is damaged while it runs, or whose disk is full (ENOSPC), keeps living
 * (the child process exits 0); the failure is recorded; the next check answers by the contract —
 * `refuse` / `quota_exhausted` naming the meter, fail closed — and `stalwart doctor` shows it.
 * The child: test/fixtures/meter-flush-child.mjs.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { licensedHome } from "../helpers/licensed-home.js";
import { builtCli } from "../helpers/built-cli.js";

const root = join(import.meta.dirname, "../..");
const child = (home: string, mode: string) =>
  (builtCli(), spawnSync(process.execPath, [join(root, "test/fixtures/meter-flush-child.mjs"), home, mode], { cwd: root, encoding: "utf8", timeout: 120_000 }));

describe("the licence meter's background write", () => {
  it("counters.json damaged while the client runs: the process lives; the next check refuses quota_exhausted; doctor shows it", () => {
    const home = licensedHome("meter-damage");
    const r = child(home, "damage");
    expect(r.status, r.stderr).toBe(0);
    expect(r.signal).toBeNull();
    const out = JSON.parse(r.stdout.trim().split("\n").pop()!);
    expect(out.first).toMatchObject({ decision: "allow" });
    expect(out.afterFailure).toMatchObject({ decision: "refuse", reasons: ["quota_exhausted"], unrecorded: true });
    expect(out.afterFailure.wording).toContain("tool_checks");
    expect(out.afterFailure.wording).toContain("is not JSON");
    expect(out.doctor.licence).toBe("LicenceFileUnreadable");
    expect(out.doctor.meters.last_failure).toMatchObject({ code: "LicenceFileUnreadable" });
    expect(out.doctor.missing.join("\n")).toContain("meters the runtime can write");
    expect(r.stderr).not.toMatch(/Uncaught|LicenceFileUnreadable: /);
  }, 150_000);

  it("a full disk (ENOSPC): the process lives; checks refuse until the counts can be written, then answer again", () => {
    const home = licensedHome("meter-enospc");
    const r = child(home, "enospc");
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").pop()!);
    expect(out.first).toMatchObject({ decision: "allow" });
    expect(out.afterFailure).toMatchObject({ decision: "refuse", reasons: ["quota_exhausted"], unrecorded: true });
    expect(out.afterFailure.wording).toContain("ENOSPC");
    expect(out.doctor.meters).toMatchObject({ writable: false });
    expect(out.doctor.meters.detail).toContain("ENOSPC");
    expect(out.doctor.missing.join("\n")).toContain("meters the runtime can write");
    expect(out.afterRepair).toMatchObject({ decision: "allow" });
  }, 150_000);
});
