/**
 * A gateway's session lives in its memory: once it stops, nothing can spend a token it handed
 * out, so the pending confirmations it left in the home's store would ask a person to decide
 * calls that can no longer run (and their approval would let nothing through). As it stops, it
 * withdraws each one still open; one already used stays used, and a person who then tries to
 * decide a withdrawn one is told why.
 */
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { approvalStatus, decide } from "../../worker/portable/engine/index.js";
import { statusWords } from "../../worker/portable/approvals/words.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, overHttp, text } from "./helpers.js";

describe("pending confirmations of a gateway that stops", { timeout: 60_000 }, () => {
  it("are withdrawn, undecided or approved and unrun; a used one stays used", async () => {
    const dir = allowedDir();
    const h = home();
    const lines: string[] = [];
    const gw = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-withdraw-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: (l) => lines.push(l) });
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const write = async (name: string) => {
      const r = await client.callTool({ name: "write_file", arguments: { path: join(dir, name), content: name } });
      return { r, pending: (r._meta?.["stalwart-agents/check"] as { pending?: string } | undefined)?.pending };
    };
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
