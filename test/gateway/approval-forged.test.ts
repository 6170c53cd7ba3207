/**
 * The approval store is files anyone with the home can edit: a receipt moved onto another record,
 * or a standing approval ("always for this session") edited by hand, must approve nothing. A
 * client without elicitation, the gateway in front of the real filesystem server (the disk says
 * what ran), decisions signed as `stalwart approvals approve` signs them.
 */
import { describe, expect, it } from "vitest";
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decide } from "../../worker/portable/engine/index.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, overHttp, text } from "./helpers.js";

async function filesystemGateway(tag: string) {
  const dir = allowedDir();
  const h = home();
  const gw = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-${tag}-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: () => undefined });
  const { client } = await overHttp(downstreamClient({}), gw.url!);
  const write = async (path: string, content: string) => {
    const r = await client.callTool({ name: "write_file", arguments: { path, content } });
    return { r, pending: (r._meta?.["stalwart-agents/check"] as { pending?: string } | undefined)?.pending };
  };
  return { dir, h, gw, write, close: async () => { await client.close(); await gw.close(); } };
}

describe("a hand-made approval in the store", { timeout: 60_000 }, () => {
  it("a record's receipt file replaced by another record's approves neither call", async () => {
    const { dir, h, gw, write, close } = await filesystemGateway("swapped");
    try {
      const asked = join(dir, "asked.txt");
      const a = await write(asked, "never approved");
      const b = await write(join(dir, "other.txt"), "approved");
      expect(a.pending && b.pending).toBeTruthy();
      await decide(gw.pending, homeMac(h), b.pending!, { decision: "approve", by: "the person", at: Date.now() });
      // someone with the home copies B's genuine receipt in as A's
      copyFileSync(join(h, "approvals", "receipts", `${b.pending}.json`), join(h, "approvals", "receipts", `${a.pending}.json`));
      const again = await write(asked, "never approved");
      expect(again.r.isError).toBe(true);
      expect(existsSync(asked)).toBe(false);
      expect(text(again.r)).toContain("approvals/receipts");
    } finally {
      await close();
    }
  });

  it("a standing approval whose receipt was edited by hand (its MAC no longer verifies) approves no later ask", async () => {
    const { dir, h, gw, write, close } = await filesystemGateway("edited-standing");
    try {
      const file = join(dir, "always.txt");
      const first = await write(file, "again");
      await decide(gw.pending, homeMac(h), first.pending!, { decision: "approve", by: "the person", at: Date.now(), always: true });
      expect((await write(file, "again")).r.isError).toBeFalsy();
      rmSync(file);
      const receipt = join(h, "approvals", "receipts", `${first.pending}.json`);
      writeFileSync(receipt, readFileSync(receipt, "utf8").replace('"by": "the person"', '"by": "mallory"'));
      const later = await write(file, "again");
      expect(later.r.isError).toBe(true);
      expect(text(later.r)).toContain("waits for a person (pending p_");
      expect(existsSync(file)).toBe(false);
      expect(gw.pending.get(later.pending!)!.receipt).toBeNull();
    } finally {
      await close();
    }
  });

  it("a record whose arguments were edited by hand (the person would approve what they were shown, and another call would run) is unreadable", async () => {
    const { dir, h, gw, write, close } = await filesystemGateway("edited-record");
    try {
      const file = join(dir, "shown.txt");
      const asked = await write(file, "the model's words");
      const record = join(h, "approvals", "pending", `${asked.pending}.json`);
      const original = readFileSync(record, "utf8");
      // its expiry, its ask or its tool edited: not the call its token covers, so unreadable too
      for (const [from, to] of [[/"expires": \d+/, `"expires": 99999999999999`], [/"step": \d+/, `"step": 7`], [/"tool": "write_file"/, `"tool": "read_text_file"`]] as const) {
        writeFileSync(record, original.replace(from, to));
        expect(() => gw.pending.get(asked.pending!)).toThrow(/unusable/);
      }
      // the page and `approvals show` would show harmless words; the token still covers the model's
      writeFileSync(record, original.replace(`"content": "the model's words"`, `"content": "harmless words"`));
      await expect(decide(gw.pending, homeMac(h), asked.pending!, { decision: "approve", by: "the person", at: Date.now() })).rejects.toMatchObject({ code: "ApprovalUnreadable" });
      const again = await write(file, "the model's words");
      expect(again.r.isError).toBe(true);
      expect(existsSync(file)).toBe(false);
    } finally {
      await close();
    }
  });
});
