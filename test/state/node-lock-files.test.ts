/**
 * The files LMDB maps besides the store's data — its lock file and the open gate's two files —
 * cut short under a running process, or the gate zeroed between runs: LMDB trusts them and killed
 * the process (SIGBUS at the next touch, SIGSEGV at the opening). Each is now refused with
 * CounterStoreDamaged naming the file, and the process goes on and exits normally. Each case runs
 * in a process of its own: the host whose death is the defect.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { builtModule } from "../helpers/built-cli.js";

const repo = resolve(import.meta.dirname, "../..");

/** `act` (JS over `fs`, `f(name)`) run between a first commit and three operations, in a fresh process on `home`. */
function host(home: string, act: string): { code: number; lines: string[] } {
  const code = `
    import * as fs from "node:fs";
    import { join } from "node:path";
    import { nodeState } from ${JSON.stringify(builtModule("cli/sdk/state/index.js"))};
    const home = ${JSON.stringify(home)};
    const f = (n) => join(home, n);
    const s = nodeState(home);
    const op = (i) => { try { s.commit("s" + i, { expect: "restart", next: { count: 1, link: "1".padStart(64, "0") } }); s.load("s" + i); console.log("ok"); } catch (e) { console.log(e.code + " " + e.where + " " + e.message + " | " + e.hint); } };
    op(0);
    ${act};
    op(1); op(2); op(3);`;
  try {
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { code: 0, lines: out.trim().split("\n") };
  } catch (err: any) {
    return { code: err.status ?? err.signal, lines: String(err.stdout ?? "").trim().split("\n") };
  }
}

const home = () => mkdtempSync(join(tmpdir(), "stalwart-lockfiles-"));

describe("the files LMDB maps besides the store, damaged", () => {
  it.each(["state.mdb-lock", "state.gate", "state.gate-lock"])("%s cut to 0 bytes while in use: every operation is CounterStoreDamaged naming it, and the process lives on", (file) => {
    const h = home();
    const r = host(h, `fs.truncateSync(f(${JSON.stringify(file)}), 0)`);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toBe("ok");
    for (const line of r.lines.slice(1)) {
      expect(line).toContain(`CounterStoreDamaged ${join(h, file)} `);
      expect(line).toContain("was cut short while this process had it mapped (0 bytes");
      expect(line).toContain("restart every process that uses this home");
    }
    expect(r.lines).toHaveLength(4);
  }, 60_000);

  it("state.gate zeroed in place between runs: refused naming it and how to recover, not a crash at the opening", () => {
    const h = home();
    expect(host(h, "")).toEqual({ code: 0, lines: ["ok", "ok", "ok", "ok"] });
    execFileSync(process.execPath, ["-e", `const fs = require("fs"); const p = ${JSON.stringify(join(h, "state.gate"))}; fs.writeFileSync(p, Buffer.alloc(fs.statSync(p).size));`]);
    const after = host(h, "");
    expect(after.code).toBe(0);
    expect(after.lines).toHaveLength(4);
    for (const line of after.lines) {
      expect(line).toContain(`CounterStoreDamaged ${join(h, "state.gate")} `);
      expect(line).toContain("its open gate its header is not an LMDB store's");
      expect(line).toContain(`delete \`${join(h, "state.gate")}\` and \`${join(h, "state.gate")}-lock\``);
    }
  }, 60_000);
});
