/**
 * The approvals under a home that this user may not read or write (mode 000) are an
 * ApprovalUnreadable naming them — never "nothing waits for a person", which `stalwart approvals
 * list` said while a confirmation waited, and never a bare EACCES from `run()`. Each case runs in
 * a child process, as `nobody` when the tests run as root (root may open any file).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import type { PendingRecord } from "../../worker/portable/engine/index.js";
import { argsDigest } from "../helpers/pending-record.js";
import { builtCli, builtModule } from "../helpers/built-cli.js";

const repo = resolve(import.meta.dirname, "../..");
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
const as = asRoot ? { uid: NOBODY, gid: NOBODY } : {};

const record: PendingRecord = {
  v: 1, id: "p_00000000000000c1", session: "s".repeat(32), step: 1, tool: "refund_card", agent: null, args: { order_id: "4411" },
  digest: argsDigest({ order_id: "4411" }), origins: {}, reasons: ["write"], wording: "Allow refund_card?", counters: [], token: "t", created: 0, expires: 8.64e15,
};

function homeWithPendingLocked(): string {
  const home = mkdtempSync(join(tmpdir(), "stalwart-approvals-access-"));
  new FileApprovalStore(home).add(record);
  if (asRoot) for (const f of [home, ...readdirSync(home, { recursive: true }).map((f) => join(home, String(f)))]) chownSync(f, NOBODY, NOBODY);
  chmodSync(join(home, "approvals", "pending"), 0o000);
  return home;
}

describe("approvals this user may not open", () => {
  it("`stalwart approvals list` says they cannot be read (exit 1), not that nothing waits", () => {
    const home = homeWithPendingLocked();
    const r = spawnSync(process.execPath, [builtCli(), "approvals", "list", "--home", home], { cwd: repo, encoding: "utf8", timeout: 60_000, ...as });
    expect(r.stdout).not.toContain("nothing waits");
    expect([r.status, r.stderr]).toEqual([1, expect.stringContaining(`ApprovalUnreadable: the approval store's \`${join(home, "approvals", "pending")}\` is unusable`)]);
  });

  it("a record that cannot be written is ApprovalUnreadable, not a bare EACCES", () => {
    const home = homeWithPendingLocked();
    const code = `
      import { FileApprovalStore } from ${JSON.stringify(builtModule("cli/approvals/store.js"))};
      try { new FileApprovalStore(${JSON.stringify(home)}).add(${JSON.stringify({ ...record, id: "p_00000000000000c2" })}); console.log("written"); }
      catch (e) { console.log(e.code); }`;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: repo, encoding: "utf8", timeout: 60_000, ...as });
    expect(r.stdout.trim()).toBe("ApprovalUnreadable");
  });
});
