/**
 * A file of the home's store this user may not read and write (mode 000): the check refuses with
 * SessionStateUnreadable naming it, and `stalwart counters status` says so — the process lives.
 * lmdb@3.5.6 crashed it (SIGSEGV inside `open`) on a lock file it could not open. Each case runs
 * in a child process, as `nobody` when the tests run as root (root may open any file).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { closeState } from "../../cli/sdk/state/index.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { builtModule } from "../helpers/built-cli.js";

const repo = resolve(import.meta.dirname, "../..");
const catalogue = join(repo, "test/approvals/fixtures/refunds.yaml");
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** The child's check and status on `home`, as JSON. */
function inChild(home: string): { status: number | null; signal: string | null; out: string; err: string } {
  const code = `
    import { Client } from ${JSON.stringify(builtModule("cli/sdk/index.js"))};
    import { stateStatus } from ${JSON.stringify(builtModule("cli/sdk/state/index.js"))};
    const s = new Client({ home: ${JSON.stringify(home)} }).session("access", { catalogue: ${JSON.stringify(catalogue)} });
    const r = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "context" } });
    const st = stateStatus(${JSON.stringify(home)});
    console.log(JSON.stringify({ decision: r.decision, error: r.detail.error, wording: r.detail.wording, healthy: st.healthy, problem: st.problem }));`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    cwd: repo, encoding: "utf8", timeout: 60_000, ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  });
  return { status: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

describe("a store file this user may not open", () => {
  it.each(["state.mdb-lock", "state.gate-lock", "state.gate", "state.mdb"])("%s at mode 000: refused as SessionStateUnreadable naming it, the process lives", async (name) => {
    const home = licensedHome("access");
    const s = new Client({ home }).session("setup", { catalogue });
    expect((await s.checkToolCall("get_order", { order_id: "1" }, { origins: { order_id: "context" } })).decision).toBe("allow");
    closeState(home);
    if (asRoot) for (const f of [home, ...readdirSync(home, { recursive: true }).map((f) => join(home, String(f)))]) chownSync(f, NOBODY, NOBODY);
    const file = join(home, name);
    expect(statSync(file).isFile()).toBe(true);
    chmodSync(file, 0o000);
    const r = inChild(home);
    expect({ status: r.status, signal: r.signal }, r.err).toEqual({ status: 0, signal: null });
    const got = JSON.parse(r.out.trim().split("\n").pop()!);
    expect(got).toMatchObject({ decision: "refuse", error: "SessionStateUnreadable", healthy: false, problem: { code: "SessionStateUnreadable", where: file } });
    expect(got.wording).toContain(file);
  }, 90_000);

  it("history.key at mode 000: KeyUnreadable naming it, not a bare EACCES", async () => {
    const home = licensedHome("access");
    const s = new Client({ home }).session("setup", { catalogue });
    await s.read("hello");
    if (asRoot) for (const f of [home, ...readdirSync(home, { recursive: true }).map((f) => join(home, String(f)))]) chownSync(f, NOBODY, NOBODY);
    chmodSync(join(home, "history.key"), 0o000);
    const code = `
      import { Client } from ${JSON.stringify(builtModule("cli/sdk/index.js"))};
      try { new Client({ home: ${JSON.stringify(home)} }).session("k", { catalogue: ${JSON.stringify(catalogue)} }); console.log("no error"); }
      catch (e) { console.log(JSON.stringify({ code: e.code, message: e.message })); }`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: repo, encoding: "utf8", timeout: 60_000, ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}) });
    expect(JSON.parse(r.stdout.trim().split("\n").pop()!)).toEqual({ code: "KeyUnreadable", message: expect.stringContaining(join(home, "history.key")) });
  }, 90_000);
});
