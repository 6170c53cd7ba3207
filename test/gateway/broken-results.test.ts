/**
 * A tool server's result that is valid MCP but not data a signed history holds as it is: a lone
 * UTF-16 surrogate (text cut in the middle of an emoji), a number JSON cannot hold, nesting deeper
 * than a history keeps. The call ran, so its outcome is recorded, with what the catalogue's
 * `returns` declares of the result made data: a lone surrogate becomes U+FFFD, what cannot be
 * kept is left out. So a value the model copies from a message read from outside is still
 * `result:<step>` with that read's `untrusted:` label, and a write carrying it is held
 * `tainted_call` (before: the report failed, the outcome was lost, and the value read as the
 * model's own).
 * Upstream: fixtures/broken-results-server.mjs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway, type RunningGateway } from "../../cli/gateway/index.js";
import { run as replay } from "../../cli/commands/replay.js";
import { reportOutcome } from "../../cli/gateway/result-value.js";
import { InputError } from "../../worker/portable/engine/index.js";
import { replayHome } from "../helpers/replay-home.js";
import { allowedDir, BROKEN_RESULTS, BROKEN_RESULTS_CATALOGUE as CATALOGUE, downstreamClient, home, overHttp, text, type Downstream } from "./helpers.js";

replayHome();

let gw: RunningGateway;
let d: Downstream;
const logs: string[] = [];
const meta = (r: { _meta?: Record<string, unknown> | undefined }) => r._meta?.["stalwart-agents/check"] as { decision: string; reasons: string[]; detail: Record<string, unknown> } | undefined;

beforeAll(async () => {
  const dir = allowedDir();
  writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
  gw = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [BROKEN_RESULTS] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), log: (l) => logs.push(l) });
  d = await overHttp(downstreamClient({}), gw.url!);
}, 60_000);

afterAll(async () => {
  await d?.client.close();
  await gw?.close();
});

const VARIANTS = ["surrogate-undeclared", "surrogate-declared", "surrogate-key", "huge-number", "deep-undeclared"] as const;

describe("a result the history cannot hold as it is", { timeout: 60_000 }, () => {
  let n = 0;
  for (const as of ["structured", "text"] as const) {
    for (const variant of VARIANTS) {
      it(`${variant} (${as}): the outcome is recorded, and a value copied from it is traced to it`, async () => {
        const account = `ACCT${1000 + n++}`;
        const from = logs.length;
        const read = await d.client.callTool({ name: "read_inbox", arguments: { variant, as, account } });
        expect(read.isError ?? false, text(read)).toBe(false);
        await gw.settled();
        const entries = gw.entries();
        const checked = entries.findLast((e) => e.kind === "check" && e.tool === "read_inbox")!;
        const report = entries.find((e) => e.kind === "report" && e.of === checked.step);
        expect(report, logs.join("\n")).toMatchObject({ outcome: "ran" });
        const kept = (report as { result: Record<string, unknown> }).result;
        expect(kept.account).toBe(account);
        if (variant === "surrogate-declared") expect(kept.sender).toBe("ana \ufffd");
        expect(Object.keys(kept).sort()).toEqual(["account", "amount", "sender"]);

        const pay = await d.client.callTool({ name: "pay", arguments: { account, amount: 5 } });
        const m = meta(pay)!;
        expect(m.decision).toBe("confirm");
        expect(m.reasons).toContain("tainted_call");
        expect(logs.slice(from).filter((l) => l.startsWith("report")), logs.join("\n")).toEqual([]);
      });
    }
  }

  for (const [uri, account] of [["inbox://cut", "ACCT-R1 \ufffd"], ["inbox://meta", "ACCT-M1"]] as const) {
    it(`a resource read from outside (${uri}): recorded, and a value copied from it is traced to it`, async () => {
      const from = logs.length;
      const read = await d.client.readResource({ uri });
      expect((read.contents[0] as { uri: string }).uri).toBe(uri);
      await gw.settled();
      const entries = gw.entries();
      const checked = entries.findLast((e) => e.kind === "check" && e.tool === "resources_read")!;
      const report = entries.find((e) => e.kind === "report" && e.of === checked.step) as { outcome: string; result: { contents: { text: string }[] } } | undefined;
      expect(report?.outcome, logs.join("\n")).toBe("ran");
      expect(report!.result.contents[0]!.text).toBe(account);
      const pay = await d.client.callTool({ name: "pay", arguments: { account, amount: 5 } });
      expect(meta(pay)!.reasons).toContain("tainted_call");
      expect(logs.slice(from).filter((l) => l.startsWith("report")), logs.join("\n")).toEqual([]);
    });
  }

  it("the trace holds the result as the gateway reported it, whole, and replays to the gateway's own answers", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const file = join(mkdtempSync(join(tmpdir(), "stalwart-broken-trace-")), "calls.jsonl");
    const traced = await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [BROKEN_RESULTS] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), trace: file, log: () => undefined });
    const t = await overHttp(downstreamClient({}), traced.url!);
    try {
      expect((await t.client.callTool({ name: "read_inbox", arguments: { variant: "surrogate-undeclared", account: "ACCT-T1" } })).isError ?? false).toBe(false);
      expect(meta(await t.client.callTool({ name: "pay", arguments: { account: "ACCT-T1", amount: 5 } }))!.reasons).toContain("tainted_call");
    } finally {
      await t.client.close();
      await traced.close();
    }
    const lines = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    // undeclared fields too: replay may run under a catalogue whose `returns` declares more
    expect(lines.find((l) => l.type === "outcome")).toMatchObject({ outcome: "ran" });
    expect(lines.find((l) => l.type === "outcome")!.result).toEqual({ sender: "ana", account: "ACCT-T1", amount: 40, preview: "cut \ufffd" });
    let stdout = "";
    let stderr = "";
    const code = await replay([file, "--catalogue", join(dir, "agent.yaml"), "--json"], { stdout: { write: (x: string) => (stdout += x) }, stderr: { write: (x: string) => (stderr += x), isTTY: false } });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const out = JSON.parse(stdout) as { calls: { tool: string; decision: string; reasons: string[]; outcomes: string[] }[] };
    expect(out.calls.map((c) => [c.tool, c.decision, c.outcomes])).toEqual([["read_inbox", "allow", ["ran"]], ["pay", "confirm", []]]);
    expect(out.calls[1]!.reasons).toContain("tainted_call");
  });
});

describe("reportOutcome", () => {
  it("records the outcome without the result when the history still refuses the result as data", async () => {
    const calls: unknown[][] = [];
    const lines: string[] = [];
    const session = {
      report: async (step: number, outcome: string, result?: unknown) => {
        calls.push(result === undefined ? [step, outcome] : [step, outcome, result]);
        if (result !== undefined) throw new InputError("string at `/result/x` holds a lone surrogate, not valid unicode", "/result/x");
        return { step: 9 };
      },
    };
    await reportOutcome(session, 3, "ran", { x: "y" }, (l) => lines.push(l));
    expect(calls).toEqual([[3, "ran", { x: "y" }], [3, "ran"]]);
    expect(lines).toEqual([expect.stringMatching(/^report of step 3: its result is not data the history holds \(.*lone surrogate.*\); the outcome is recorded without it$/)]);
  });

  it("says a report failed for anything else, and never throws", async () => {
    const lines: string[] = [];
    let n = 0;
    const session = { report: async () => { n++; throw new Error("the store is gone"); } };
    await reportOutcome(session, 4, "ran", { x: 1 }, (l) => lines.push(l));
    await reportOutcome(session, 5, "failed", undefined, (l) => lines.push(l));
    expect(n).toBe(2);
    expect(lines).toEqual(["report of step 4 failed: the store is gone", "report of step 5 failed: the store is gone"]);
  });
});
