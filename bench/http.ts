/**
 * The HTTP path of `npm run bench`: checks per second through the local check worker under
 * `wrangler dev` with N concurrent clients (N = 1, 8, 64), with p50/p99 latency. Every request
 * carries the same 20-entry session (a typical write check, the worker verifying the whole
 * history each time, as it must: it keeps none).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error — plain .mjs helper shared with scripts/dev.mjs
import { startWrangler } from "../scripts/wrangler-server.mjs";

export interface HttpRow {
  /** what was sent: the write check, or the floor (a route that does nothing: 404) */
  what: "check" | "floor";
  clients: number;
  checksPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export async function httpBench(seconds = 5): Promise<HttpRow[]> {
  // The worker answers nothing without a licence: give it the dev-signed fixture the tests use.
  const { workerLicence } = await import("../test/helpers/licensed-home.js");
  const licenceVars = `STALWART_LICENCE='${workerLicence}'\n`;
  const dir = mkdtempSync(join(tmpdir(), "stalwart-bench-http-"));
  const key = `sk_bench_${randomBytes(12).toString("hex")}`;
  const envFile = join(dir, "vars.env");
  writeFileSync(envFile, `STALWART_API_KEYS="bench:${key}"\nSTALWART_HISTORY_SECRET="${randomBytes(32).toString("hex")}"\n${licenceVars}`);
  const w = await startWrangler({ envFile, persistTo: join(dir, "state") });
  try {
    const H = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const yaml = readFileSync(join(import.meta.dirname, "../examples/store/agent.yaml"), "utf8");
    const put = await fetch(`${w.url}/v1/catalogues/store`, { method: "PUT", headers: { ...H, "content-type": "application/yaml" }, body: yaml });
    if (!put.ok) throw new Error(`catalogue: ${put.status} ${await put.text()}`);
    let session = (await (await fetch(`${w.url}/v1/sessions`, { method: "POST", headers: H, body: JSON.stringify({ catalogue: "store", name: "billing" }) })).json()).session;
    session = (await (await fetch(`${w.url}/v1/sessions/read`, { method: "POST", headers: H, body: JSON.stringify({ session, text: "estorne 40,00 do pedido 4411" }) })).json()).session;
    const call = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };
    while (session.entries.length < 20) {
      session = (await (await fetch(`${w.url}/v1/check`, { method: "POST", headers: H, body: JSON.stringify({ session, ...call }) })).json()).session;
    }
    const body = JSON.stringify({ session, ...call });
    const rows: HttpRow[] = [];
    const check = async () => {
      const r = await fetch(`${w.url}/v1/check`, { method: "POST", headers: H, body });
      const j = (await r.json()) as { check?: { decision: string } };
      return r.ok && j.check?.decision === "confirm";
    };
    // The floor: what the local runtime costs for a request that does nothing at all.
    const floor = async () => {
      const r = await fetch(`${w.url}/nothing-here`);
      await r.text();
      return r.status === 404;
    };
    for (const [what, send] of [["check", check], ["floor", floor]] as const) {
      for (const clients of [1, 8, 64]) {
        const latencies: number[] = [];
        let errors = 0;
        const until = Date.now() + seconds * 1000;
        const t0 = process.hrtime.bigint();
        await Promise.all(
          Array.from({ length: clients }, async () => {
            while (Date.now() < until) {
              const s = process.hrtime.bigint();
              if (!(await send())) errors++;
              latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
            }
          }),
        );
        const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
        latencies.sort((a, b) => a - b);
        rows.push({ what, clients, checksPerSecond: latencies.length / elapsed, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), errors });
      }
    }
    return rows;
  } finally {
    await w.stop();
  }
}
