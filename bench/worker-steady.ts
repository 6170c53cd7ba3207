/**
 * The check worker's write check in steady state (issue 14's ≤ 100 µs target): the round-7
 * request — the store example's `refund_card` with a model-written amount, a `confirm`, so each
 * request also writes a pending approval record — in the delta form through `app.request()`, on
 * the memory stores, as docs/perf/worker-drive.round9.mjs drove it: `warmup` requests first, then
 * `blocks` blocks of `per`, a new 20-entry session every 1,000 requests. Printed per block, so a
 * measure still warming up shows (bench/worker-cpu.ts's rows did: 164, 152, 149, 143, 143 µs,
 * docs/perf/worker.round9.md). Two floors beside it, measured the same way:
 *
 * - `refused`: the same delta body without its `tool`, answered 400 right after the body is read
 *   and parsed — Node's Request/Response, Hono, the key, the licence, the body;
 * - `stubbed`: the same request with the engine's `checkToolCall` replaced by a turn (`read`)
 *   and a canned answer without a token (so no record) — all but the check's own work and the record.
 */
import "./temp-root.js";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { WorkerModules } from "./worker-bundle.js";

type Eng = WorkerModules["eng"];
type CheckResult = Awaited<ReturnType<InstanceType<Eng["Session"]>["checkToolCall"]>>;

export interface SteadyRow {
  what: string;
  /** median CPU µs of the measured requests */
  median: number;
  /** median CPU µs of each block, in order */
  blocks: number[];
  /** median CPU µs: the delta body refused after its parse */
  refused: number;
  /** median CPU µs: the request with the check replaced by a turn (no steps, no token, no record) */
  stubbed: number;
  warmup: number;
  per: number;
}

type Saved = { entries: unknown[]; [k: string]: unknown };
const refund = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };
const KEY = "key-bench-0123456789abcdef";

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};

export async function workerSteady(w: WorkerModules, licence: string, o: { warmup?: number | undefined; blocks?: number | undefined; per?: number | undefined } = {}): Promise<SteadyRow> {
  // 8,000 requests of warm-up: after 3,000 (the default until round 14) the blocks still fell for
  // another ~5,000 (19:35 UTC, 12 blocks: 103, 101, 100, 98, 97, 98, 99, 97, 96, 96, 95, 94 µs)
  const warmup = o.warmup ?? 8000, blocks = o.blocks ?? 4, per = o.per ?? 1000;
  const yaml = readFileSync(join(import.meta.dirname, "../examples/store/agent.yaml"), "utf8");
  const env = { STALWART_API_KEYS: `bench:${KEY}`, STALWART_HISTORY_SECRET: randomBytes(32).toString("hex"), STALWART_LICENCE: licence };
  const stores = w.stores();
  const app = w.createApp({ core: w.core, stores: () => stores });
  const H = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
  const ctx = { waitUntil: () => undefined, passThroughOnException: () => undefined, props: {} };
  const post = (path: string, text: string) => app.request(path, { method: "POST", headers: { ...H, "content-length": String(Buffer.byteLength(text)) }, body: text }, env, ctx);
  await app.request("/v1/catalogues/store", { method: "PUT", headers: { ...H, "content-type": "application/yaml" }, body: yaml }, env);
  const fresh = async () => {
    let full = ((await (await post("/v1/sessions", JSON.stringify({ catalogue: "store", name: "billing" }))).json()) as { session: Saved }).session;
    for (let i = 0; i < 20; i++) full = ((await (await post("/v1/check", JSON.stringify({ session: full, ...refund }))).json()) as { session: Saved }).session;
    return full;
  };
  const timed = async (body: string): Promise<[string, number, number]> => {
    const c0 = process.cpuUsage();
    const r = await post("/v1/check", body);
    const text = await r.text();
    const c = process.cpuUsage(c0);
    return [text, r.status, c.user + c.system];
  };
  const ts: number[] = [];
  let full = await fresh();
  let dbody = "";
  let check: CheckResult | undefined;
  for (let k = 0; k < warmup + blocks * per; k++) {
    if (k > 0 && k % 1000 === 0) full = await fresh();
    dbody = JSON.stringify({ session: { ...full, entries: [], since: full.entries.length }, ...refund });
    const [text, , t] = await timed(dbody);
    if (k >= warmup) ts.push(t);
    const a = JSON.parse(text) as { session?: Saved & { since?: number }; check?: CheckResult };
    if (a.check?.decision !== "confirm" || a.session?.since !== full.entries.length) throw new Error(`worker answered ${text.slice(0, 300)}`);
    check = a.check;
    full = { ...a.session, entries: full.entries.concat(a.session.entries) };
  }
  const floor = async (body: string, status: number) => {
    const xs: number[] = [];
    for (let k = 0; k < 500 + per; k++) {
      const [text, got, t] = await timed(body);
      if (got !== status) throw new Error(`the floor request answered ${got}: ${text.slice(0, 200)}`);
      if (k >= 500) xs.push(t);
    }
    return median(xs);
  };
  const { tool: _tool, ...untooled } = JSON.parse(dbody) as Record<string, unknown>;
  const refused = await floor(JSON.stringify(untooled), 400);
  // The check replaced: a turn appended instead (the engine's cheapest call that verifies what
  // follows the held entries, seals and commits one entry), answering the last check's answer
  // without its token, so the hook writes no record. (Without an entry appended nothing is
  // verified and the answer is the whole session: not this request's path.)
  const { confirmation: _token, ...canned }: CheckResult = check!;
  const proto = w.eng.Session.prototype;
  const real = proto.checkToolCall;
  proto.checkToolCall = async function (this: InstanceType<Eng["Session"]>) {
    await this.read("x");
    return structuredClone(canned);
  };
  const xs: number[] = [];
  // new 20-entry sessions made before the stub, one per 1,000 requests
  const sessions: Saved[] = [];
  for (let k = 0; k < 500 + per; k += 1000) sessions.push(await fresh());
  try {
    for (let k = 0; k < 500 + per; k++) {
      if (k % 1000 === 0) full = sessions[k / 1000]!;
      dbody = JSON.stringify({ session: { ...full, entries: [], since: full.entries.length }, ...refund });
      const [text, , t] = await timed(dbody);
      if (k >= 500) xs.push(t);
      const a = JSON.parse(text) as { session?: Saved & { since?: number } };
      if (a.session?.since !== full.entries.length || a.session.entries.length !== 1) throw new Error(`worker answered ${text.slice(0, 300)}`);
      full = { ...a.session, entries: full.entries.concat(a.session.entries) };
    }
  } finally {
    proto.checkToolCall = real;
  }
  const stubbed = median(xs);
  const b: number[] = [];
  for (let i = 0; i < ts.length; i += per) b.push(median(ts.slice(i, i + per)));
  return { what: w.what, median: median(ts), blocks: b, refused, stubbed, warmup, per };
}

/** `node --import tsx bench/worker-steady.ts [bundle|sources] [root]`: one row (root: another tree's sources to bundle, e.g. main's). */
if (import.meta.url === `file://${process.argv[1]}`) {
  const { bundledWorker, sourceWorker } = await import("./worker-bundle.js");
  const { workerLicence } = await import("../test/helpers/licensed-home.js");
  const w = process.argv[2] === "sources" ? await sourceWorker() : await bundledWorker(process.argv[3]);
  const n = (v: string | undefined) => (v ? Number(v) : undefined);
  const r = await workerSteady(w, workerLicence, { warmup: n(process.env.STALWART_BENCH_WARMUP), blocks: n(process.env.STALWART_BENCH_BLOCKS), per: n(process.env.STALWART_BENCH_PER) });
  if (process.env.STALWART_BENCH_JSON === "1") console.log(JSON.stringify(r));
  else console.log(`${r.what}${process.argv[3] ? ` (${process.argv[3]})` : ""}: median ${r.median} µs; blocks of ${r.per}: ${r.blocks.join(", ")}; refused after parse ${r.refused}; check stubbed ${r.stubbed}`);
}
