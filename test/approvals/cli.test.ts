/**
 * `stalwart approvals list | show | approve | deny` (issue 12) over a home where a `run()` waits:
 * the CLI's decision is a signed receipt the waiting run records before the tool runs.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runGroup, type Io } from "../../cli/command.js";
import { root } from "../../cli/commands/index.js";
import { Client } from "../../cli/sdk/index.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { receiptProblem } from "../../worker/portable/engine/index.js";
import { copyLicence } from "../helpers/licensed-home.js";

const catalogue = join(import.meta.dirname, "fixtures/refunds.yaml");

async function stalwart(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: Io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  const code = await runGroup(root, argv, io);
  return { code, stdout, stderr };
}

/** A run() of a refund waiting for a person in a new home, and its record's id once listed. */
async function refundWaiting(prefix: string) {
  const home = copyLicence(mkdtempSync(join(tmpdir(), prefix)));
  const s = new Client({ home }).session("refunds", { catalogue });
  const ran = { n: 0 };
  const waiting = s.run("refund_card", { order_id: "4411", amount: 40 }, { origins: { order_id: "context", amount: "model" }, wait: 30_000 }, () => void ran.n++);
  let id = "";
  for (let i = 0; i < 100 && !id; i++) {
    id = (JSON.parse((await stalwart(["approvals", "list", "--home", home, "--json"])).stdout) as { record: { id: string } }[])[0]?.record.id ?? "";
    if (!id) await new Promise((r) => setTimeout(r, 50));
  }
  return { home, waiting, id, runs: () => ran.n };
}

describe("stalwart approvals", () => {
  it("lists, shows, approves with --as and -m; the waiting run goes on once", async () => {
    const { home, waiting, id, runs } = await refundWaiting("stalwart-approvals-cli-");
    expect(id).toMatch(/^p_[0-9a-f]{16}$/);
    const text = await stalwart(["approvals", "list", "--home", home]);
    expect(text.stdout).toContain(`${id}  pending    refund_card`);
    const show = await stalwart(["approvals", "show", id, "--home", home]);
    expect(show.stdout).toContain('amount = 40  — written by the model  [!]');
    expect(show.stdout).toContain("spend refund_card (USD): 0 → 40 of 500 per month");
    const ok = await stalwart(["approvals", "approve", id, "--home", home, "--as", "ana", "-m", "checked", "--json"]);
    expect(ok.code, ok.stderr).toBe(0);
    const receipt = JSON.parse(ok.stdout);
    expect(receipt).toMatchObject({ id, by: "ana", decision: "approve", message: "checked" });
    expect(receiptProblem(homeMac(home), receipt)).toBeNull();
    expect(await waiting).toMatchObject({ status: "ran", receipt: { by: "ana" } });
    expect(runs()).toBe(1);
    const again = await stalwart(["approvals", "deny", id, "--home", home]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("approved by ana");
    const missing = await stalwart(["approvals", "show", "p_0000000000000000", "--home", home]);
    expect(missing.code).toBe(1);
    expect((await stalwart(["approvals", "show", "nope", "--home", home])).code).not.toBe(0);
  }, 60_000);

  it("a receipt edited by hand (the decision flipped, the name changed) is unreadable to list and show: never shown as the person's", async () => {
    const { home, waiting, id, runs } = await refundWaiting("stalwart-approvals-forged-");
    expect((await stalwart(["approvals", "deny", id, "--home", home, "--as", "ana"])).code).toBe(0);
    expect(await waiting).toMatchObject({ receipt: { decision: "deny", by: "ana" } });
    const file = join(home, "approvals", "receipts", `${id}.json`);
    const denied = JSON.parse(readFileSync(file, "utf8"));
    for (const forged of [{ ...denied, decision: "approve" }, { ...denied, by: "zed" }]) {
      writeFileSync(file, JSON.stringify(forged, null, 2) + "\n");
      for (const argv of [["approvals", "show", id], ["approvals", "list"]]) {
        const r = await stalwart([...argv, "--home", home]);
        expect(r.code, argv.join(" ")).toBe(1);
        expect(r.stderr, argv.join(" ")).toContain("ApprovalUnreadable");
        expect(r.stderr, argv.join(" ")).toContain("the receipt's MAC does not verify");
      }
    }
    expect(runs()).toBe(0);
  }, 60_000);

  it("a record whose shown parts were edited by hand (an origin, the wording), or that has no MAC, is unreadable: never shown as the check's", async () => {
    const { home, waiting, id, runs } = await refundWaiting("stalwart-approvals-edited-record-");
    const file = join(home, "approvals", "pending", `${id}.json`);
    const record = JSON.parse(readFileSync(file, "utf8"));
    expect(record.mac).toMatch(/^[0-9a-f]{64}$/);
    const { mac: _mac, ...unsigned } = record;
    for (const [edited, why] of [
      [{ ...record, origins: { ...record.origins, amount: { origin: "typed", labels: [] } } }, "its MAC does not verify"],
      [{ ...record, wording: "Routine refund, nothing to check." }, "its MAC does not verify"],
      [unsigned, "it carries no MAC"],
    ] as const) {
      writeFileSync(file, JSON.stringify(edited, null, 2) + "\n");
      for (const argv of [["approvals", "show", id], ["approvals", "list"], ["approvals", "approve", id]]) {
        const r = await stalwart([...argv, "--home", home]);
        expect(r.code, argv.join(" ")).toBe(1);
        expect(r.stderr, argv.join(" ")).toContain("ApprovalUnreadable");
        expect(r.stderr, argv.join(" ")).toContain(why);
      }
    }
    expect(existsSync(join(home, "approvals", "receipts", `${id}.json`))).toBe(false);
    // put back as written, it reads and can be decided
    writeFileSync(file, JSON.stringify(record, null, 2) + "\n");
    expect((await stalwart(["approvals", "deny", id, "--home", home, "--as", "ana"])).code).toBe(0);
    expect(await waiting).toMatchObject({ status: "refused" });
    expect(runs()).toBe(0);
  }, 60_000);

  it("a denied record whose receipt was deleted cannot be decided again: the refusal kept in the home's store says so", async () => {
    const { home, waiting, id, runs } = await refundWaiting("stalwart-approvals-unreceipted-");
    expect((await stalwart(["approvals", "deny", id, "--home", home, "--as", "ana"])).code).toBe(0);
    await waiting;
    rmSync(join(home, "approvals", "receipts", `${id}.json`));
    const again = await stalwart(["approvals", "approve", id, "--home", home, "--as", "mallory"]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("ApprovalUnreadable");
    expect(again.stderr).toContain("the home's store keeps a person's refusal of this call");
    expect(existsSync(join(home, "approvals", "receipts", `${id}.json`))).toBe(false);
    // nor is it shown as waiting for someone: list and show name it as unreadable, and why
    for (const argv of [["approvals", "list"], ["approvals", "show", id]]) {
      const r = await stalwart([...argv, "--home", home]);
      expect(r.code, argv.join(" ")).toBe(1);
      expect(r.stdout, argv.join(" ")).not.toContain("pending");
      expect(r.stderr, argv.join(" ")).toContain("the home's store keeps a person's refusal of this call");
    }
    expect(runs()).toBe(0);
  }, 60_000);

  it("one record that cannot be read does not hide the others: list shows what reads, names what does not, and exits 1", async () => {
    const { home, waiting, id, runs } = await refundWaiting("stalwart-approvals-onebad-");
    const bad = "p_00000000000000ff";
    writeFileSync(join(home, "approvals", "pending", `${bad}.json`), '{"v": 1, "id": "p_000');
    const text = await stalwart(["approvals", "list", "--home", home]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`${id}  pending    refund_card`);
    expect(text.stderr).toContain(`${bad} cannot be read (ApprovalUnreadable)`);
    expect(text.stderr).toContain("it is not JSON");
    expect(text.stderr).toContain("hint: ");
    const json = await stalwart(["approvals", "list", "--home", home, "--json"]);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as { record: { id: string } }[]).map((a) => a.record.id)).toEqual([id]);
    expect(json.stderr).toContain(bad);
    // the one that reads can still be decided, and runs once
    expect((await stalwart(["approvals", "approve", id, "--home", home, "--as", "ana"])).code).toBe(0);
    expect(await waiting).toMatchObject({ status: "ran" });
    expect(runs()).toBe(1);
    // with nothing readable left waiting, the list does not say that nothing waits
    const after = await stalwart(["approvals", "list", "--home", home]);
    expect(after.stdout).toBe("nothing that can be read waits for a person (1 record cannot be read)\n");
    expect(after.code).toBe(1);
  }, 60_000);

  it("deciding an id that is in no home (a mistyped id or --home) makes no home and no key; listing one says so", async () => {
    const nowhere = join(mkdtempSync(join(tmpdir(), "stalwart-approvals-cli-")), "typo");
    for (const verb of ["approve", "deny"]) {
      const r = await stalwart(["approvals", verb, "p_0123456789abcdef", "--home", nowhere]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("ApprovalNotFound");
      expect((await stalwart(["approvals", verb, "nope", "--home", nowhere])).stderr).toContain("is not a pending confirmation id");
    }
    const listed = await stalwart(["approvals", "list", "--home", nowhere]);
    expect([listed.code, listed.stdout]).toEqual([0, "nothing waits for a person\n"]);
    expect(listed.stderr).toContain(`there is no home at \`${nowhere}\``);
    expect(existsSync(nowhere)).toBe(false);
  }, 60_000);
});
