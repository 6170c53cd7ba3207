/**
 * Calls a client sends at once through one gateway (issue 11; "atomic spend ceilings"): twelve
 * payments of 100 against a ceiling of 500, sent together over streamable HTTP and over stdio, by
 * 2025-era clients (the gateway pushes `elicitation/create`) and 2026-07-28 clients (the answer
 * comes back as a retry). Each is approved by the person, so each is checked again with its token
 * at once beside the others: exactly five reach the tool server, whatever order the checks run in.
 * Asks the person declines hold nothing: with every other one declined, the approved six still
 * find room for five.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, home, MAIN, overHttp, overStdio, text, type Downstream } from "./helpers.js";

const PAY = join(import.meta.dirname, "fixtures/pay-server.ts");
const CATALOGUE = `
settings: {language: en}
tools:
  - name: pay
    writes: true
    spend: [{field: amount, at_most: 500, per: month, pool: wallet}]
    currency: USD
    args: {type: object, properties: {amount: {type: number, minimum: 0}}, required: [amount], additionalProperties: false}
`;

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
        const gw = over === "http" ? await startGateway({ catalogue: join(dir, "agent.yaml"), upstream: { command: process.execPath, args: ["--import", "tsx", PAY], env }, listen: { host: "127.0.0.1", port: 0 }, home: home() }) : undefined;
        const d = person(modern);
        if (gw) await overHttp(d, gw.url!);
        else await overStdio(d, ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, "--import", "tsx", PAY], { PAY_LOG: log });
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
    await overStdio(d, ["--home", home(), "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, "--import", "tsx", PAY], { PAY_LOG: log });
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
});
