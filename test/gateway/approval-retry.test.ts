/**
 * A person's approval in the store that a call found, entered in the session's history as a
 * receipt, and then did not use up (here: the store could not mark it used) is found again when
 * the client sends the same call. The receipt is not entered twice (the history takes one
 * decision per ask): the retry is checked again with the approval's token, which the first
 * attempt spent, so the person is asked again under a new pending id. It is not refused as a
 * decision that could not be recorded, and the call has not run.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { decide } from "../../worker/portable/engine/index.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { startGateway } from "../../cli/gateway/index.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { Client as Sdk } from "../../cli/sdk/index.js";
import { allowedDir, downstreamClient, filesystemCatalogue, FILESYSTEM, home, overHttp, sessionOver, text } from "./helpers.js";

describe("an approval found again after its receipt was recorded", { timeout: 60_000 }, () => {
  it("is not recorded twice; the retry's spent token asks the person again, and nothing runs", async () => {
    const dir = allowedDir();
    const h = home();
    const gw = await startGateway({ catalogue: filesystemCatalogue(dir, join(dir, "..", `agent-retry-${Date.now()}.yaml`)), upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: () => undefined });
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const file = join(dir, "retried.txt");
    let restore = () => undefined as void;
    const write = async () => {
      const r = await client.callTool({ name: "write_file", arguments: { path: file, content: "once" } });
      return { r, check: r._meta?.["stalwart-agents/check"] as { decision?: string; reasons?: string[]; pending?: string } | undefined };
    };
    try {
      const asked = await write();
      expect(asked.check?.pending, text(asked.r)).toBeTruthy();
      await decide(gw.pending, homeMac(h), asked.check!.pending!, { decision: "approve", by: "the person", at: Date.now() });
      // the store fails as the approved call is about to run (both marks: the session's, which it
      // passes over, and the gateway's): the call fails closed, unrun, its record not marked used
      const proto = FileApprovalStore.prototype;
      const markUsed = proto.markUsed;
      let failures = 2;
      proto.markUsed = function (this: FileApprovalStore, id: string) {
        if (failures-- > 0) throw new Error("disk full");
        return markUsed.call(this, id);
      };
      restore = () => void (proto.markUsed = markUsed);
      const failed = await write();
      expect(failed.r.isError).toBe(true);
      expect(failed.check).toMatchObject({ decision: "refuse", reasons: ["internal_error"] });
      expect(existsSync(file)).toBe(false);
      expect(failures).toBe(0);
      const again = await write();
      expect(again.r.isError).toBe(true);
      expect(text(again.r)).not.toContain("could not be recorded");
      // the spent token does not cover it: the person is asked again, under a new pending id
      expect(again.check).toMatchObject({ decision: "confirm", detail: { confirmation: "used" } });
      expect(again.check?.pending).toMatch(/^p_/);
      expect(again.check?.pending).not.toBe(asked.check!.pending);
      expect(existsSync(file)).toBe(false);
      // one receipt for the ask in the history
      expect(gw.entries().filter((e) => e.kind === "receipt").length).toBe(1);
    } finally {
      restore();
      await client.close();
      await gw.close();
    }
  });
});

describe("an approval whose receipt cannot be entered in the history", { timeout: 60_000 }, () => {
  it("does not run, and the answer carries the check's decision and reasons", async () => {
    const dir = allowedDir();
    const h = home();
    const sdk = new Sdk({ home: h });
    const catalogue = filesystemCatalogue(dir, join(dir, "..", `agent-unrecorded-${Date.now()}.yaml`));
    const inner = sdk.session("gateway", { catalogue });
    const session = sessionOver(inner, {
      receipt: async () => {
        throw new Error("disk full");
      },
    });
    const gw = await startGateway({ catalogue, session, upstream: { command: process.execPath, args: [FILESYSTEM, dir] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: () => undefined });
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    const file = join(dir, "unrecorded.txt");
    try {
      const write = () => client.callTool({ name: "write_file", arguments: { path: file, content: "once" } });
      const asked = await write();
      const pending = (asked._meta?.["stalwart-agents/check"] as { pending?: string }).pending!;
      await decide(gw.pending, homeMac(h), pending, { decision: "approve", by: "the person", at: Date.now() });
      const r = await write();
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("could not be recorded in the history; it did not run");
      expect(r._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
      expect(existsSync(file)).toBe(false);
    } finally {
      await client.close();
      await gw.close();
      sdk.close();
    }
  });
});
