// docs/perf/worker.round7.md: delta write checks (refund_card confirm) through app.request() in a loop, a new 20-entry
// session every PER requests; prints the median CPU µs of the second half. Runs on a tsc build of the repo:
//   npx tsc -p tsconfig.json --outDir prof/w7dist --declaration false --noEmit false   (prof/ is git-ignored)
//   (cd prof/w7dist && ln -s ../../node_modules ../../examples ../../build . && cp ../../package.json .)
//   W7DIST=$PWD/prof/w7dist REPO=$PWD node docs/perf/worker-drive.round7.mjs   (N, PER, ENTRIES: env; add --cpu-prof for a profile)
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
// the build the steps above make; not part of a clone, so it is named, never assumed
const D = process.env.W7DIST;
if (!D) throw new Error("set W7DIST to a tsc build of the repo (the steps at the top of this file make one)");
const { createApp } = await import(D + "/worker/workerd/check/app.js");
const { nodeCore } = await import(D + "/cli/sdk/wasm-node.js");
const { workerLicence } = await import(D + "/test/helpers/licensed-home.js");
const { testStores } = await import(D + "/test/helpers/memory-stores.js");
const N = Number(process.env.N ?? 6000), PER = Number(process.env.PER ?? 1000), ENTRIES = Number(process.env.ENTRIES ?? 20);
const refund = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };
const yaml = readFileSync((process.env.REPO ?? ".") + "/examples/store/agent.yaml", "utf8");
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
  for (let i = 0; i < ENTRIES; i++) {
    const a = await (await post("/v1/check", JSON.stringify({ session: full, ...refund }))).json();
    full = a.session;
  }
  return full;
}
const ts = [];
let full = await fresh();
for (let k = 0; k < N; k++) {
  if (k > 0 && k % PER === 0) full = await fresh();
  const dbody = JSON.stringify({ session: { ...full, entries: [], since: full.entries.length }, ...refund });
  const c0 = process.cpuUsage();
  const text = await (await post("/v1/check", dbody)).text();
  const c = process.cpuUsage(c0);
  ts.push(c.user + c.system);
  const a = JSON.parse(text);
  if (a.check?.decision !== "confirm" || a.session?.since !== full.entries.length) throw new Error(text.slice(0, 300));
  full = { ...a.session, entries: full.entries.concat(a.session.entries) };
}
const med = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const blocks = []; for (let i = 0; i < N; i += PER) blocks.push(med(ts.slice(i, i + PER)));
console.log(`delta write check, ${ENTRIES} entries: median CPU µs ${med(ts.slice(N / 2))} (second half); blocks of ${PER}: ${blocks.join(" ")}`);
