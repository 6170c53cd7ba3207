/**
 * The pending confirmations a gateway leaves in the home's store for a client without elicitation.
 *
 * The same call made again while its record waits undecided waits on that record: a person is
 * asked once, however often the model retries. An ask that reads otherwise (here: an argument
 * now copied from a result) is a record of its own.
 *
 * A gateway's session lives in its memory: once it stops, nothing can spend a token it handed
 * out, so the pending confirmations it left would ask a person to decide calls that can no longer
 * run (and their approval would let nothing through). As it stops, it withdraws each one still
 * open; one already used stays used, and a person who then tries to decide a withdrawn one is told
 * why.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { approvalStatus, decide } from "../../worker/portable/engine/index.js";
import { statusWords } from "../../worker/portable/approvals/words.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, overHttp, text } from "./helpers.js";

/** A gateway over HTTP in front of the filesystem server, a client without elicitation, and its log. */
async function started(tag: string) {
  const dir = allowedDir();
  const h = home();
  const lines: string[] = [];
  const gw = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-${tag}-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: (l) => lines.push(l) });
  const { client } = await overHttp(downstreamClient({}), gw.url!);
  /** a call, and the pending id it got (if any) */
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    return { r, pending: (r._meta?.["stalwart-agents/check"] as { pending?: string } | undefined)?.pending };
  };
  return { dir, h, lines, gw, client, call };
}

/** `id` approved in the home's store: the same call (`write`) then runs once, writing `content` to `target`, and the next one is a new ask (returned). */
async function approvedRunsOnce(gw: { pending: FileApprovalStore }, h: string, id: string, write: () => Promise<{ r: { isError?: unknown; content?: unknown }; pending: string | undefined }>, target: string, content: string) {
  await decide(gw.pending, homeMac(h), id, { decision: "approve", by: "ana", at: Date.now() });
  const ran = await write();
  expect(ran.r.isError, text(ran.r)).toBeFalsy();
  expect(readFileSync(target, "utf8")).toBe(content);
  const after = await write();
  expect(after.pending, "its record is used: the next call is a new ask").toMatch(/^p_/);
  expect(after.pending).not.toBe(id);
  return after;
}

describe("the same call asked again", { timeout: 60_000 }, () => {
  it("waits on the record that waits for it; once that is used, a new one; an ask that reads otherwise has its own", async () => {
    const { dir, h, lines, gw, client, call } = await started("again");
    const target = join(dir, "note.txt");
    const write = () => call("write_file", { path: target, content: "hello" });
    try {
      const first = await write();
      expect(first.pending).toMatch(/^p_/);
      for (let i = 0; i < 2; i++) expect((await write()).pending, "a retry waits on the same record").toBe(first.pending);
      expect((await gw.pending.list()).length).toBe(1);
      expect(lines).toContain(`confirm write_file argument_origin: still waiting (asked again) as ${first.pending}`);
      await approvedRunsOnce(gw, h, first.pending!, write, target, "hello");

      // another content, asked about as the model's; then a read brings it: the same call, shown
      // otherwise, so a record of its own. (Not "hello": a read that hands back what a call that
      // ran was sent does not vouch for it, test/gateway/echo-launder.test.ts.)
      const writeOther = () => call("write_file", { path: target, content: "from the source" });
      const asked = await writeOther();
      expect(asked.pending).toMatch(/^p_/);
      writeFileSync(join(dir, "source.txt"), "from the source");
      const read = await call("read_text_file", { path: join(dir, "source.txt") });
      expect(read.r.isError, text(read.r)).toBeFalsy();
      const copied = await writeOther();
      expect(copied.pending).toMatch(/^p_/);
      expect(copied.pending).not.toBe(asked.pending);
      const record = (await gw.pending.get(copied.pending!))!.record;
      expect(record.origins.content!.origin).toMatch(/^result:\d+/);
      expect((await gw.pending.get(asked.pending!))!.record.origins.content!.origin).toBe("model");
    } finally {
      await client.close();
      await gw.close();
    }
  });
});

describe("pending confirmations of a gateway that stops", { timeout: 60_000 }, () => {
  it("are withdrawn, undecided or approved and unrun; a used one stays used", async () => {
    const { dir, h, lines, gw, client, call } = await started("withdraw");
    const write = (name: string) => call("write_file", { path: join(dir, name), content: name });
    const mac = homeMac(h);
    let undecided: string, approved: string, used: string;
    try {
      undecided = (await write("a.txt")).pending!;
      approved = (await write("b.txt")).pending!;
      const ran = await write("c.txt");
      used = ran.pending!;
      for (const id of [undecided, approved, used]) expect(id).toMatch(/^p_/);
      await decide(gw.pending, mac, approved, { decision: "approve", by: "ana", at: Date.now() });
      await decide(gw.pending, mac, used, { decision: "approve", by: "ana", at: Date.now() });
      const again = await write("c.txt");
      expect(again.r.isError, text(again.r)).toBeFalsy();
      expect(existsSync(join(dir, "c.txt"))).toBe(true);
    } finally {
      await client.close();
      await gw.close();
    }
    // another process reads the home as it is now
    const store = new FileApprovalStore(h);
    const status = (id: string) => approvalStatus(store.get(id)!, Date.now());
    expect(status(undecided)).toBe("withdrawn");
    expect(status(approved)).toBe("withdrawn");
    expect(status(used)).toBe("used");
    expect(statusWords("withdrawn", store.get(approved)!)).toBe("approved by ana, withdrawn unrun (the gateway that asked stopped)");
    await expect(decide(store, mac, undecided, { decision: "approve", by: "bob", at: Date.now() })).rejects.toThrow(/withdrawn: the gateway that asked stopped/);
    expect(lines).toContain("withdrew 2 pending confirmations: this gateway's session ends as it stops, so no later call can use them");
    expect(existsSync(join(dir, "a.txt")) || existsSync(join(dir, "b.txt")), "nothing withdrawn ran").toBe(false);
  });
});

describe("the records a home keeps from earlier sessions", { timeout: 60_000 }, () => {
  it("are not read for this gateway's confirms: one damaged stops none of them, and its approval still runs the call once", async () => {
    const { dir, h, gw, client, call } = await started("kept");
    try {
      // what an earlier session left, edited by hand since (its arguments no longer the ones its digest covers)
      const pendingDir = join(h, "approvals", "pending");
      mkdirSync(pendingDir, { recursive: true });
      const id = "p_0000000000000000";
      const old = { v: 1, id, session: "an-earlier-session", step: 2, tool: "write_file", agent: null, args: { path: "/x", content: "edited" }, digest: "0".repeat(64), origins: {}, reasons: ["write"], wording: "write_file changes something.", counters: [], token: "t", created: 1, expires: 2 };
      writeFileSync(join(pendingDir, `${id}.json`), JSON.stringify(old));
      const target = join(dir, "kept.txt");
      const write = () => call("write_file", { path: target, content: "kept" });
      const first = await write();
      expect(first.pending, text(first.r)).toMatch(/^p_/);
      await approvedRunsOnce(gw, h, first.pending!, write, target, "kept");
      // the store as a whole still says what is wrong with it, where a person reads it
      expect(() => new FileApprovalStore(h).list()).toThrow(/is unusable/);
    } finally {
      await client.close();
      await gw.close();
    }
  });
});
