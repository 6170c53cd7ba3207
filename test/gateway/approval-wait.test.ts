/**
 * `--approval-wait SECS` (issue 11, item 3, a client without elicitation): the gateway keeps the
 * call open while a person decides it in the approvals store — here `stalwart approvals approve
 * ID` / `deny ID` run as a second process, as the person would — and then runs it once if
 * approved, never if denied; undecided when the wait ends, the client gets the "waits for a
 * person" answer with the pending id. The disk of the real filesystem server says what ran.
 */
import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { approvalStatus, decide } from "../../worker/portable/engine/index.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, MAIN, overHttp, overStdio, ROOT, text } from "./helpers.js";

const run = promisify(execFile);

/** The id of the one pending record that appears for `path`, as the person would find it (`stalwart approvals list`). */
async function pendingFor(store: FileApprovalStore, path: string, ms = 30_000): Promise<string> {
  const end = Date.now() + ms;
  for (;;) {
    const a = store.list().find((x) => x.record.args.path === path && approvalStatus(x, Date.now()) === "pending");
    if (a) return a.record.id;
    if (Date.now() > end) throw new Error(`no pending confirmation for ${path}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const approvals = (h: string, verb: "approve" | "deny", id: string) => run(process.execPath, [MAIN, "approvals", verb, id, "--home", h, "--as", "the person"], { cwd: ROOT, timeout: 60_000 });

/** An in-process gateway over HTTP in front of the filesystem server, waiting `approvalWaitMs` for a person. */
async function filesystemGateway(tag: string, approvalWaitMs: number) {
  const dir = allowedDir();
  const h = home();
  const gw = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-${tag}-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, approvalWaitMs, log: () => undefined });
  return { dir, h, gw };
}

describe("--approval-wait", () => {
  it("approved by `stalwart approvals approve` within the wait: the call runs once; denied: it does not run", async () => {
    const dir = allowedDir();
    const h = home();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-wait-${Date.now()}.yaml`));
    const d = await overStdio(downstreamClient({}), ["--home", h, "--approval-wait", "60", "--catalogue", catalogue, "--", process.execPath, FILESYSTEM, dir]);
    const store = new FileApprovalStore(h);
    try {
      const file = join(dir, "waited.txt");
      const call = d.client.callTool({ name: "write_file", arguments: { path: file, content: "after the person said yes" } }, { timeout: 120_000 });
      const id = await pendingFor(store, file);
      expect(existsSync(file)).toBe(false);
      const decided = await approvals(h, "approve", id);
      expect(decided.stdout).toContain(`${id}: approved by the person`);
      const r = await call;
      expect(r.isError, text(r)).toBeFalsy();
      expect(readFileSync(file, "utf8")).toBe("after the person said yes");
      expect(approvalStatus(store.get(id)!, Date.now())).toBe("used");

      const no = join(dir, "denied.txt");
      const call2 = d.client.callTool({ name: "write_file", arguments: { path: no, content: "no" } }, { timeout: 120_000 });
      const id2 = await pendingFor(store, no);
      await approvals(h, "deny", id2);
      const r2 = await call2;
      expect(r2.isError).toBe(true);
      expect(text(r2)).toContain("write_file was denied by the person, and it did not run.");
      expect(r2._meta?.["stalwart-agents/check"]).toMatchObject({ pending: id2, approved: false });
      expect(existsSync(no)).toBe(false);
    } finally {
      await d.client.close();
    }
  }, 180_000);

  it("undecided when the wait ends: isError, the call waits for a person with its pending id, and nothing ran", async () => {
    const { dir, h, gw } = await filesystemGateway("wait2", 800);
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      const file = join(dir, "undecided.txt");
      const t0 = Date.now();
      const r = await client.callTool({ name: "write_file", arguments: { path: file, content: "x" } });
      expect(Date.now() - t0).toBeGreaterThanOrEqual(700);
      expect(r.isError).toBe(true);
      const id = (r._meta?.["stalwart-agents/check"] as { pending?: string } | undefined)?.pending;
      expect(id).toMatch(/^p_/);
      expect(text(r)).toContain(`This call waits for a person (pending ${id}); it did not run.`);
      expect(approvalStatus(gw.pending.get(id!)!, Date.now())).toBe("pending");
      expect(existsSync(file)).toBe(false);
      await client.close();
    } finally {
      await gw.close();
    }
  }, 60_000);

  it("`approve --always`: later asks of the same call in the session run at once, each with its own receipt; other arguments still wait", async () => {
    const dir = allowedDir();
    const h = home();
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-always-${Date.now()}.yaml`));
    const d = await overStdio(downstreamClient({}), ["--home", h, "--catalogue", catalogue, "--", process.execPath, FILESYSTEM, dir]);
    const store = new FileApprovalStore(h);
    try {
      const file = join(dir, "always.txt");
      const call = () => d.client.callTool({ name: "write_file", arguments: { path: file, content: "again" } });
      const first = await call();
      const id = (first._meta?.["stalwart-agents/check"] as { pending: string }).pending;
      await run(process.execPath, [MAIN, "approvals", "approve", id, "--home", h, "--as", "the person", "--always"], { cwd: ROOT, timeout: 60_000 });
      for (let i = 0; i < 3; i++) {
        rmSync(file, { force: true });
        // before: only the first ran; each later one made a new pending record and waited for a person
        const r = await call();
        expect(r.isError, text(r)).toBeFalsy();
        expect(readFileSync(file, "utf8")).toBe("again");
      }
      const decided = store.list().filter((a) => a.record.args.path === file);
      expect(decided.map((a) => approvalStatus(a, Date.now()))).toEqual(["used", "used", "used"]);
      expect(decided.every((a) => a.receipt?.by === "the person")).toBe(true);
      const other = await d.client.callTool({ name: "write_file", arguments: { path: file, content: "other" } });
      expect(text(other)).toContain("waits for a person (pending p_");
      expect(readFileSync(file, "utf8")).toBe("again");
    } finally {
      await d.client.close();
    }
  }, 120_000);

  it("edited in the store and still needing a person: the new record says where each argument came from (the edit is `reply`), not `missing`", async () => {
    const { dir, h, gw } = await filesystemGateway("edit", 30_000);
    try {
      const { client } = await overHttp(downstreamClient({}), gw.url!);
      const file = join(dir, "edited.txt");
      const call = client.callTool({ name: "write_file", arguments: { path: file, content: "the model's" } }, { timeout: 120_000 });
      const id = await pendingFor(gw.pending, file);
      // the person changes the content and leaves the path, which is still the model's: asked again
      await decide(gw.pending, homeMac(h), id, { decision: "edit", by: "the person", at: Date.now(), edited: { path: file, content: "the person's" } });
      const again = await pendingFor(gw.pending, file);
      expect(again).not.toBe(id);
      expect(gw.pending.get(again)!.record.origins).toEqual({ path: { origin: "model", labels: [] }, content: { origin: "reply", labels: [] } });
      await decide(gw.pending, homeMac(h), again, { decision: "deny", by: "the person", at: Date.now() });
      expect((await call).isError).toBe(true);
      expect(existsSync(file)).toBe(false);
      await client.close();
    } finally {
      await gw.close();
    }
  }, 120_000);
});

