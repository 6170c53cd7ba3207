/**
 * A person's approval in the store (given, or standing: "always for this session") covers a later
 * ask of the same call only when it is asked for the same holds, each argument from the same
 * place (outside audit 10, F5). The person approved `pay` with the arguments as the model's own
 * (`argument_origin`); the same arguments copied since out of an untrusted read are held
 * `tainted_call` too, a question they never saw: asked again as a record of its own, never run on
 * the old approval. A client without elicitation; the tool server: fixtures/broken-results-server.mjs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { decide } from "../../worker/portable/engine/index.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { allowedDir, BROKEN_RESULTS, BROKEN_RESULTS_CATALOGUE as CATALOGUE, downstreamClient, home, overHttp, text, type Downstream } from "./helpers.js";

type Check = { decision: string; reasons: string[]; pending?: string };
const meta = (r: { _meta?: Record<string, unknown> | undefined }) => r._meta?.["stalwart-agents/check"] as Check | undefined;

const open: { gw: RunningGateway; d: Downstream }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.d.client.close().catch(() => undefined);
    await o.gw.close();
  }
});

async function gateway() {
  const dir = allowedDir();
  writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
  const h = home();
  const gw = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [BROKEN_RESULTS] }, listen: { host: "127.0.0.1", port: 0 }, home: h, log: () => undefined });
  const d = await overHttp(downstreamClient({}), gw.url!);
  open.push({ gw, d });
  const pay = () => d.client.callTool({ name: "pay", arguments: { account: "ACCT-T5", amount: 40 } });
  const approve = (id: string, always = false) => decide(gw.pending, homeMac(h), id, { decision: "approve", by: "the person", at: Date.now(), always });
  return { gw, d, pay, approve };
}

describe("an approval in the store, and holds that changed since", { timeout: 60_000 }, () => {
  for (const always of [false, true]) {
    it(`approved${always ? " for the session (always)" : ""} as the model's own, the same call carrying an untrusted read's values is asked, not run`, async () => {
      const { d, pay, approve } = await gateway();
      const asked = await pay();
      expect(meta(asked)).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
      await approve(meta(asked)!.pending!, always);
      if (always) {
        // the same ask again: covered, and run
        expect(text(await pay())).toBe("paid");
      }
      expect((await d.client.callTool({ name: "read_inbox", arguments: { account: "ACCT-T5" } })).isError ?? false).toBe(false);
      const tainted = await pay();
      expect(tainted.isError, text(tainted)).toBe(true);
      expect(text(tainted)).toContain("waits for a person (pending p_");
      expect(meta(tainted)!.reasons).toContain("tainted_call");
      expect(meta(tainted)!.pending).not.toBe(meta(asked)!.pending);
    });
  }

  it("the record that holds the tainted ask is the one whose approval runs it", async () => {
    const { d, pay, approve } = await gateway();
    const first = await pay();
    expect((await d.client.callTool({ name: "read_inbox", arguments: { account: "ACCT-T5" } })).isError ?? false).toBe(false);
    const tainted = await pay();
    expect(meta(tainted)!.reasons).toContain("tainted_call");
    // the person approves the older, harmless-looking ask: the tainted one is still theirs to decide
    await approve(meta(first)!.pending!);
    const again = await pay();
    expect(again.isError, text(again)).toBe(true);
    expect(meta(again)!.pending).toBe(meta(tainted)!.pending);
    await approve(meta(tainted)!.pending!);
    expect(text(await pay())).toBe("paid");
  });
});
