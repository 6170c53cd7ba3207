/**
 * A fleet of gateways sharing one set of ceilings (issue 11, item 2): two gateway processes, each
 * started as an MCP host starts it (stdio, `--check-url URL --key K`), check against one real
 * check worker under `wrangler dev`; a spend ceiling of 500 a month holds across both, and the
 * call over it never reaches either upstream, also when both send payments at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startCheckWorker, type RunningWorker } from "../helpers/check-worker.js";
import { startGateway } from "../../cli/gateway/index.js";
import { allowedDir, downstreamClient, home, overStdio, PAY, PAY_CATALOGUE as CATALOGUE, text, type Downstream } from "./helpers.js";
import { JOBS_CATALOGUE } from "../helpers/jobs.js";

const JOBS = join(import.meta.dirname, "fixtures/jobs-server.ts");

/**
 * One gateway process per session name, each as an MCP host starts it (stdio, `--check-url`), in
 * front of the pay server, with `catalogue` as agent.yaml and the person approving every ask; the
 * payments every upstream received, in `log`.
 */
async function payGateways(catalogue: string, sessions: string[]) {
  const dir = allowedDir();
  writeFileSync(join(dir, "agent.yaml"), catalogue);
  const log = join(dir, "pay.log");
  const gateways = await Promise.all(
    sessions.map((session) => overStdio(downstreamClient({ answer: "accept" }), ["--home", home(), "--check-url", worker.url, "--key", worker.keys[0]!, "--check-timeout", "60", "--session", session, "--catalogue", join(dir, "agent.yaml"), "--", process.execPath, PAY], { PAY_LOG: log })),
  );
  return { log, gateways: gateways as [Downstream, Downstream] };
}

let worker: RunningWorker;
beforeAll(async () => {
  worker = await startCheckWorker(["fleet"]);
}, 180_000);
afterAll(async () => {
  await worker?.stop();
});

describe("two gateways, one check worker", () => {
  it("at the start, the worker is probed: its key taken, nothing to say; a key it refuses, said", async () => {
    const dir = allowedDir();
    const catalogue = join(dir, "agent.yaml");
    writeFileSync(catalogue, CATALOGUE);
    const warningsWith = async (key: string) => {
      const gw = await startGateway({ catalogue, home: home(), checkUrl: worker.url, key, listen: { host: "127.0.0.1", port: 0 }, upstream: { command: process.execPath, args: [PAY], env: { ...(process.env as Record<string, string>), PAY_LOG: join(dir, "pay.log") } } });
      await gw.close();
      return gw.warnings;
    };
    expect(await warningsWith(worker.keys[0]!)).toEqual([]);
    expect(await warningsWith("not-a-key-of-this-worker")).toEqual([`the check worker at ${worker.url.replace(/\/+$/, "")} refuses the key given with \`--key\` (401): every call is refused`]);
  });

  it("a spend ceiling is held across both gateway processes", async () => {
    const { log, gateways: [a, b] } = await payGateways(CATALOGUE, ["a", "b"]);
    try {
      const first = await a.client.callTool({ name: "pay", arguments: { amount: 300 } });
      expect(first.isError, text(first)).toBeFalsy();
      expect(text(first)).toBe("paid 300");
      const second = await b.client.callTool({ name: "pay", arguments: { amount: 150 } });
      expect(second.isError, text(second)).toBeFalsy();
      // 300 + 150 spent through two processes: 100 more would pass each gateway alone, not the pool
      const over = await b.client.callTool({ name: "pay", arguments: { amount: 100 } });
      expect(over.isError).toBe(true);
      expect(over._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["spend_exceeded"] });
      const overA = await a.client.callTool({ name: "pay", arguments: { amount: 60 } });
      expect(overA._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["spend_exceeded"] });
      const fits = await a.client.callTool({ name: "pay", arguments: { amount: 50 } });
      expect(fits.isError, text(fits)).toBeFalsy();
      // what the upstreams saw: only the allowed payments, from two processes
      const seen = readFileSync(log, "utf8").trim().split("\n").map((l) => l.split(" "));
      expect(seen.map((l) => Number(l[2]))).toEqual([300, 150, 50]);
      expect(new Set(seen.map((l) => l[0])).size).toBe(2);
      // each payment was asked about (a write) in the gateway that made it
      expect(a.asked.length).toBe(2);
      expect(b.asked.length).toBe(1);
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  }, 180_000);

  it("--agent and --rulebook reach the worker: the agent's tools, its rule applied there", async () => {
    const dir = allowedDir();
    const catalogue = join(dir, "agents.yaml");
    writeFileSync(catalogue, `settings: {language: en}\nagents:\n  - {name: desk, tools: [pay]}\n  - {name: viewer, tools: []}\ntools:\n  - name: pay\n    writes: true\n    args: {type: object, properties: {amount: {type: number, minimum: 0}}, required: [amount], additionalProperties: false}\n`);
    const rules = join(dir, "rules.yaml");
    writeFileSync(rules, "rules:\n  - {name: no_large_payments, flow: payments, tools: [pay], when: [{field: args.amount, over: 400}], then: refuse, because: Large payments go through finance.}\n");
    const log = join(dir, "pay.log");
    const d = await overStdio(downstreamClient({ answer: "accept" }), ["--home", home(), "--check-url", worker.url, "--key", worker.keys[0]!, "--check-timeout", "60", "--agent", "desk", "--rulebook", rules, "--catalogue", catalogue, "--", process.execPath, PAY], { PAY_LOG: log });
    try {
      expect((await d.client.listTools()).tools.map((t) => t.name)).toEqual(["pay"]);
      const big = await d.client.callTool({ name: "pay", arguments: { amount: 450 } });
      expect(big._meta?.["stalwart-agents/check"]).toMatchObject({ decision: "refuse", reasons: ["no_large_payments"] });
      const small = await d.client.callTool({ name: "pay", arguments: { amount: 20 } });
      expect(small.isError, text(small)).toBeFalsy();
      expect(readFileSync(log, "utf8").trim().split("\n").map((l) => Number(l.split(" ")[2]))).toEqual([20]);
    } finally {
      await d.client.close();
    }
  }, 180_000);

  it("a read's filter is applied by the check worker: only the kept records reach the client", async () => {
    // the same catalogue and server as filter.test.ts, with the session on the worker: the filter
    // is the worker's (/v1/filter), and reads the resume's skills from the result reported there
    const dir = allowedDir();
    const catalogue = join(dir, "agent.yaml");
    writeFileSync(catalogue, JOBS_CATALOGUE);
    const d = await overStdio(downstreamClient({}), ["--home", home(), "--check-url", worker.url, "--key", worker.keys[0]!, "--check-timeout", "60", "--session", "jobs", "--catalogue", catalogue, "--", process.execPath, "--import", "tsx", JOBS]);
    try {
      expect((await d.client.callTool({ name: "read_resume", arguments: {} })).isError ?? false).toBe(false);
      const r = await d.client.callTool({ name: "search_jobs", arguments: { as: "structured" } });
      expect(r.isError ?? false, text(r)).toBe(false);
      expect((r.structuredContent as { jobs: { id: string }[] }).jobs.map((j) => j.id)).toEqual(["a", "d"]);
      expect(r.content).toEqual([{ type: "text", text: JSON.stringify(r.structuredContent) }]);
      const prose = await d.client.callTool({ name: "search_jobs", arguments: { as: "prose" } });
      expect(prose.isError).toBe(true);
      expect(text(prose)).toMatch(/^search_jobs ran, but its result could not be filtered as the catalogue asks, so it is not passed on/);
    } finally {
      await d.client.close();
    }
  }, 180_000);

  it("payments sent at once through both gateways: five of twelve run against a pool of 500", async () => {
    // a pool of its own: the payments of the test above are this month's too, in the same tenant
    const { log, gateways: [a, b] } = await payGateways(CATALOGUE.replace("pool: wallet", "pool: burst"), ["burst-a", "burst-b"]);
    try {
      expect(existsSync(log)).toBe(false);
      const results = await Promise.all([a, b].flatMap((d) => Array.from({ length: 6 }, () => d.client.callTool({ name: "pay", arguments: { amount: 100 } }))));
      expect(results.filter((r) => !r.isError).map(text)).toEqual(Array(5).fill("paid 100"));
      for (const r of results.filter((x) => x.isError)) expect(r._meta?.["stalwart-agents/check"], text(r)).toMatchObject({ decision: "refuse", reasons: ["spend_exceeded"] });
      expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(5);
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  }, 180_000);
});
