// docs/perf/worker.round9.md: delta write checks (refund_card, a confirm) through app.request(), W warm-up then N
// measured, a new 20-entry session every PER; prints the median CPU µs of the measured ones.
//   node --import tsx docs/perf/worker-drive.round9.mjs                     (the sources, as bench/worker-cpu.ts runs them)
//   REPO=<a tsc build of the repo> X=.js node docs/perf/worker-drive.round9.mjs   (compiled: see worker-drive.round7.mjs)
//   add --cpu-prof --cpu-prof-interval 250 for a profile; worker-phases.round9.mjs summarises it
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
const R = process.env.REPO ?? new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const X = process.env.X ?? ".ts";
const { createApp } = await import(R + "/worker/workerd/check/app" + X);
const { nodeCore } = await import(R + "/cli/sdk/wasm-node" + X);
const { workerLicence } = await import(R + "/test/helpers/licensed-home" + X);
const { testStores } = await import(R + "/test/helpers/memory-stores" + X);
const N = Number(process.env.N ?? 6000), W = Number(process.env.W ?? 3000), PER = Number(process.env.PER ?? 1000), ENTRIES = Number(process.env.ENTRIES ?? 20);
const refund = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };
const yaml = readFileSync(new URL("../../examples/store/agent.yaml", import.meta.url), "utf8");
const KEY = "key-bench-0123456789abcdef";
const env = { STALWART_API_KEYS: `bench:${KEY}`, STALWART_HISTORY_SECRET: randomBytes(32).toString("hex"), STALWART_LICENCE: workerLicence };
const stores = testStores();
const app = createApp({ core: nodeCore, stores: () => stores });
const H = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
const ctx = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} };
const post = (path, text) => app.request(path, { method: "POST", headers: { ...H, "content-length": String(Buffer.byteLength(text)) }, body: text }, env, ctx);
await app.request("/v1/catalogues/store", { method: "PUT", headers: { ...H, "content-type": "application/yaml" }, body: yaml }, env);
async function fresh() {
  let full = (await (await post("/v1/sessions", JSON.stringify({ catalogue: "store", name: "billing" }))).json()).session;
  for (let i = 0; i < ENTRIES; i++) full = (await (await post("/v1/check", JSON.stringify({ session: full, ...refund }))).json()).session;
  return full;
}
const ts = [];
let full = await fresh();
for (let k = 0; k < W + N; k++) {
  if (k > 0 && k % PER === 0) full = await fresh();
  const dbody = JSON.stringify({ session: { ...full, entries: [], since: full.entries.length }, ...refund });
  const c0 = process.cpuUsage();
  const text = await (await post("/v1/check", dbody)).text();
  const c = process.cpuUsage(c0);
  if (k >= W) ts.push(c.user + c.system);
  const a = JSON.parse(text);
  if (a.check?.decision !== "confirm" || a.session?.since !== full.entries.length) throw new Error(text.slice(0, 300));
  full = { ...a.session, entries: full.entries.concat(a.session.entries) };
}
const s = [...ts].sort((a, b) => a - b);
console.log(`delta write check, ${ENTRIES} entries: median CPU µs ${s[Math.floor(s.length / 2)]} of ${N} after ${W}`);
