/**
 * Issue 9's full fuzz run: generated hostile requests across the check worker's check, read,
 * report and catalogue routes (test/helpers/hostile-bodies.ts) — 0 responses ≥ 500, 0 allows,
 * 0 requests over 2 s. test/worker/fuzz.test.ts runs 5,000 of them in CI.
 *
 *   node --import tsx scripts/fuzz-worker.ts [count=100000] [seed=20260909]
 *   node --import tsx scripts/fuzz-worker.ts 100000 7 --url http://127.0.0.1:8787 --key sk_…
 *
 * Without `--url`: the worker's app in this process (Node core, memory stores). With it: a worker
 * you started (`npm run dev`). Exits 1 on any violation, printing the first ones.
 */
import { testApp } from "../test/worker/app-env.js";
import { runHostile } from "../test/helpers/hostile-bodies.js";

const args = process.argv.slice(2);
const flag = (n: string) => {
  const i = args.indexOf(n);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const url = flag("--url");
const key = flag("--key");
const count = Number(args[0] ?? 100_000);
const seed = Number(args[1] ?? 20260909);

const call = url
  ? (method: string, path: string, body?: unknown, _key?: string | null, type = "application/json") =>
      fetch(url.replace(/\/+$/, "") + path, { method, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": type }, ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}) })
  : testApp().call;

const t0 = performance.now();
const stats = await runHostile(call, count, seed);
const s = ((performance.now() - t0) / 1000).toFixed(1);
process.stdout.write(`${stats.total} requests in ${s} s (${JSON.stringify(stats.byRoute)}), statuses ${JSON.stringify(stats.status)}\n`);
process.stdout.write(`≥ 500: ${stats.over500}, allows: ${stats.allows}, over 2 s: ${stats.slow}, slowest ${stats.maxMs.toFixed(0)} ms\n`);
for (const f of stats.failures) process.stdout.write(`  ${f}\n`);
process.exit(stats.over500 + stats.allows + stats.slow === 0 ? 0 : 1);
