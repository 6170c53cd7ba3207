/**
 * Calls a client sends at once through one gateway (issue 11; "atomic spend ceilings"): twelve
 * payments of 100 against a ceiling of 500, sent together over streamable HTTP and over stdio, by
 * 2025-era clients (the gateway pushes `elicitation/create`) and 2026-07-28 clients (the answer
 * comes back as a retry). Each is approved by the person, so each is checked again with its token
 * at once beside the others: exactly five reach the tool server, whatever order the checks run in.
 * Asks the person declines hold nothing: with every other one declined, the approved six still
 * find room for five. The gateway's `--trace` of such a burst, its calls, answers and outcomes
 * interleaved as they happened, replays to the gateway's own answers.
 */
import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { startGateway } from "../../cli/gateway/index.js";
import { run as replay } from "../../cli/commands/replay.js";
import { replayHome } from "../helpers/replay-home.js";
import { allowedDir, home, overHttp, overStdio, PAY, PAY_CATALOGUE as CATALOGUE, text, type Downstream } from "./helpers.js";

replayHome();


/** A client that approves each ask, or with `declineEvery`, declines every such one (the 2nd, 4th, …). */
function person(modern: boolean, declineEvery?: number): Downstream & { answers: string[] } {
  const answers: string[] = [];
  const client = new Client({ name: "test-host", version: "1.0.0" }, { capabilities: { elicitation: {} }, ...(modern ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {}) });
  client.setRequestHandler("elicitation/create", async () => {
    const decline = declineEvery !== undefined && (answers.length + 1) % declineEvery === 0;
    answers.push(decline ? "decline" : "accept");
    return decline ? { action: "decline" } : { action: "accept", content: { approve: true } };
  });
  return { client, asked: [], answers };
}

const paid = (log: string) => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean) : []);

describe("payments sent at once through one gateway", { timeout: 60_000 }, () => {
  for (const over of ["http", "stdio"] as const) {
    for (const modern of [false, true]) {
      it(`over ${over}, ${modern ? "2026-07-28" : "2025-era"} client: five of twelve approved payments run against a ceiling of five`, async () => {
        const dir = allowedDir();
        writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
        const log = join(dir, "pay.log");
        const env = { ...(process.env as Record<string, string>), PAY_LOG: log };
        const gw = over === "http" ? await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: [PAY], env }, listen: { host: "127.0.0.1", port: 0 }, home: home() }) : undefined;
        const d = person(modern);
        if (gw) await overHttp(d, gw.url!);
        else await overStdio(d, ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, PAY], { PAY_LOG: log });
        try {
          const results = await Promise.all(Array.from({ length: 12 }, () => d.client.callTool({ name: "pay", arguments: { amount: 100 } })));
          const ran = results.filter((r) => !r.isError);
          expect(ran.map(text)).toEqual(Array(5).fill("paid 100"));
          for (const r of results.filter((x) => x.isError)) expect(r._meta?.["stalwart-agents/check"], text(r)).toMatchObject({ decision: "refuse", reasons: ["spend_exceeded"] });
          expect(paid(log)).toHaveLength(5);
          expect(d.answers.length).toBeGreaterThanOrEqual(5);
        } finally {
          await d.client.close();
          await gw?.close();
        }
      });
    }
  }

  it("declined asks hold nothing: six of twelve approved, five of them run", async () => {
    const dir = allowedDir();
    writeFileSync(join(dir, "agent.yaml"), CATALOGUE);
    const log = join(dir, "pay.log");
    const d = person(false, 2);
    await overStdio(d, ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, PAY], { PAY_LOG: log });
    try {
      const results = await Promise.all(Array.from({ length: 12 }, () => d.client.callTool({ name: "pay", arguments: { amount: 100 } })));
      expect(d.answers.filter((a) => a === "decline")).toHaveLength(6);
      expect(results.filter((r) => !r.isError).map(text)).toEqual(Array(5).fill("paid 100"));
      expect(results.filter((r) => /not approved/.test(text(r)))).toHaveLength(6);
      expect(paid(log)).toHaveLength(5);
    } finally {
      await d.client.close();
    }
  });

  for (const modern of [false, true]) {
    it(`the trace of such a burst (${modern ? "2026-07-28" : "2025-era"} client, every third ask declined) replays to what ran`, async () => {
      const dir = allowedDir();
      const catalogue = join(dir, "agent.yaml");
      writeFileSync(catalogue, CATALOGUE);
      const trace = join(mkdtempSync(join(tmpdir(), "stalwart-burst-trace-")), "calls.jsonl");
      const gw = await startGateway({ catalogue, upstream: { command: process.execPath, args: [PAY] }, listen: { host: "127.0.0.1", port: 0 }, home: home(), trace, log: () => undefined });
      const d = person(modern, 3);
      await overHttp(d, gw.url!);
      // amounts 60 to 71: which fit under 500 depends on the order the approvals come back in
      let live: number[];
      try {
        const results = await Promise.all(Array.from({ length: 12 }, (_, i) => d.client.callTool({ name: "pay", arguments: { amount: 60 + i } })));
        live = results.filter((r) => !r.isError).map((r) => Number(text(r).replace("paid ", "")));
      } finally {
        await d.client.close();
        await gw.close();
      }
      expect(live.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(500);
      expect(live.length).toBeGreaterThanOrEqual(6);

      const amountOf = new Map<string, number>();
      for (const line of readFileSync(trace, "utf8").trim().split("\n")) {
        const e = JSON.parse(line) as { type: string; id?: string; args?: { amount: number } };
        if (e.type === "call") amountOf.set(e.id!, e.args!.amount);
      }
      let stdout = "";
      let stderr = "";
      const code = await replay([trace, "--catalogue", catalogue, "--json"], { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s), isTTY: false } });
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const calls = (JSON.parse(stdout) as { calls: { id: string; would_run: boolean; outcomes: string[] }[] }).calls;
      expect(calls).toHaveLength(12);
      const replayed = calls.filter((c) => c.would_run).map((c) => amountOf.get(c.id)!);
      expect(replayed.sort((a, b) => a - b)).toEqual([...live].sort((a, b) => a - b));
      for (const c of calls) expect(c.outcomes, c.id).toEqual(c.would_run ? ["ran"] : []);
    });
  }
});
