/**
 * Per-request CPU of the check worker's write check, in Node through `app.request()` (the same
 * Hono app workerd runs, on the Node WASM core and memory stores): the CPU this process spends
 * between handing the request to the app and reading its answer — parsing the carried session,
 * resuming and verifying it, the check, signing, serialising the answer.
 *
 * For sessions of 20, 2,000 and 7,000 entries (the last near the 1 MiB body limit, with room for the requests that add to it: mostly turns,
 * the smallest entries), each: the first request an isolate sees (the whole history verified), then
 * requests that carry the session the previous answer returned (what a client does), which the
 * isolate's verified heads (worker/workerd/check/verified-heads.ts) answer verifying only what is
 * new. Medians; CPU time, so the machine's load matters less than for wall time.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

// From the sources (dist/ holds no workerd code): tsx's loader adds a little to every function,
// so these numbers are an upper bound of the compiled ones.
import { createApp } from "../worker/workerd/check/app.js";
import { nodeCore } from "../cli/sdk/wasm-node.js";
import * as eng from "../worker/portable/engine/index.js";
const { workerLicence } = await import("../test/helpers/licensed-home.js");
const { testStores } = await import("../test/helpers/memory-stores.js");

export interface WorkerCpuRow {
  entries: number;
  bytes: number;
  /** CPU µs of the first request this isolate sees for the session */
  cold: number;
  /** median CPU µs of the requests after it, each carrying the previous answer's session */
  warm: number;
  /** median CPU µs of the same body without its `tool`: read, parsed and refused before any resume (the floor) */
  floor: number;
  /** median CPU µs of requests in the delta form (`since`, worker/workerd/check/carried.ts): what the SDK sends */
  delta: number;
  /** bytes of such a request */
  deltaBytes: number;
}

type Saved = { entries: unknown[]; [k: string]: unknown };
const refund = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };
const yaml = readFileSync(join(import.meta.dirname, "../examples/store/agent.yaml"), "utf8");
const KEY = "key-bench-0123456789abcdef";

function cpu<T>(f: () => Promise<T>): Promise<[T, number]> {
  const c0 = process.cpuUsage();
  return f().then((v) => {
    const c = process.cpuUsage(c0);
    return [v, c.user + c.system];
  });
}

export async function workerCpu(sizes: readonly number[] = [20, 2000, 7000], warmRequests = 11, deltaRequests = 21): Promise<WorkerCpuRow[]> {
  const secret = randomBytes(32);
  const env = { STALWART_API_KEYS: `bench:${KEY}`, STALWART_HISTORY_SECRET: secret.toString("hex"), STALWART_LICENCE: workerLicence };
  const stores = testStores();
  const app = createApp({ core: nodeCore, stores: () => stores });
  const H = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
  const post = async (path: string, body: unknown) => {
    const r = await app.request(path, { method: "POST", headers: H, body: typeof body === "string" ? body : JSON.stringify(body) }, env);
    return r;
  };
  await app.request("/v1/catalogues/store", { method: "PUT", headers: { ...H, "content-type": "application/yaml" }, body: yaml }, env);
  // The long histories are signed in-process under the tenant's key (as the worker derives it),
  // so building a 7,500-entry session does not take 7,500 requests.
  const core = nodeCore();
  const key = core.hmac(core.loadKey(secret), eng.utf8("stalwart-tenant-v1.bench"));
  // on the worker's stores, so its session state knows the heads signed here
  const engine = new eng.Engine({ core, key, schemaCompiler: eng.cfworkerCompiler, counters: stores.counters("bench"), ...(stores.state ? { state: stores.state("bench") } : {}) });
  const catalogue = eng.loadCatalogue(yaml, { file: "store.yaml", schemaCompiler: eng.cfworkerCompiler, sha256: (b) => core.sha256(b) });
  const rows: WorkerCpuRow[] = [];
  for (const n of sizes) {
    const created = ((await (await post("/v1/sessions", { catalogue: "store", name: "billing" })).json()) as { session: Saved }).session;
    const s = eng.Session.resume(engine, catalogue, created);
    await s.read("estorne 40,00 do pedido 4411");
    // checks (~470 B each) up to 20, or half of 2,000; turns (~130 B, the smallest entry) for the
    // rest, so 7,000 entries stay under the 1 MiB body limit
    const checks = n <= 20 ? n : n <= 2000 ? n / 2 : 20;
    while (s.history.entries.length < checks) await s.checkToolCall(refund.tool, refund.args, refund.options);
    while (s.history.entries.length < n) await s.read("x");
    let body = JSON.stringify({ session: s.toJSON(), ...refund });
    const bytes = body.length;
    let [answer, cold] = await cpu(async () => (await post("/v1/check", body)).text());
    const warm: number[] = [];
    for (let k = 0; k < warmRequests; k++) {
      const a = JSON.parse(answer) as { session?: Saved; check?: { decision: string }; error?: unknown };
      if (a.check?.decision !== "confirm") throw new Error(`worker answered ${answer.slice(0, 300)}`);
      body = JSON.stringify({ session: a.session, ...refund });
      let t: number;
      [answer, t] = await cpu(async () => (await post("/v1/check", body)).text());
      warm.push(t);
    }
    warm.sort((a, b) => a - b);
    const { tool: _tool, ...untooled } = JSON.parse(body) as Record<string, unknown>;
    const bad = JSON.stringify(untooled);
    const floor: number[] = [];
    for (let k = 0; k < warmRequests; k++) {
      const [status, t] = await cpu(async () => {
        const r = await post("/v1/check", bad);
        await r.text();
        return r.status;
      });
      if (status !== 400) throw new Error(`the floor request answered ${status}`);
      floor.push(t);
    }
    floor.sort((a, b) => a - b);
    // the delta form: the entries this isolate returned are left out, the answer's appended
    let full = (JSON.parse(answer) as { session: Saved }).session;
    const delta: number[] = [];
    let deltaBytes = 0;
    for (let k = 0; k < deltaRequests; k++) {
      const dbody = JSON.stringify({ session: { ...full, entries: [], since: full.entries.length }, ...refund });
      deltaBytes = dbody.length;
      const [text, t] = await cpu(async () => (await post("/v1/check", dbody)).text());
      const a = JSON.parse(text) as { session?: Saved & { since?: number }; check?: { decision: string } };
      if (a.check?.decision !== "confirm" || a.session?.since !== full.entries.length) throw new Error(`worker answered ${text.slice(0, 300)}`);
      full = { ...a.session, entries: full.entries.concat(a.session.entries) };
      delta.push(t);
    }
    delta.sort((a, b) => a - b);
    rows.push({ entries: n, bytes, cold, warm: warm[Math.floor(warm.length / 2)]!, floor: floor[Math.floor(floor.length / 2)]!, delta: delta[Math.floor(delta.length / 2)]!, deltaBytes });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const r of await workerCpu()) console.log(r);
}
