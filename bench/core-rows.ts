/**
 * The in-process rows of `npm run bench` for one hot-path core: (a) a read, (b) the write check,
 * (c) the same on 200 and 2,000 entries, (d) a full verification and the MACs alone, and (b) with
 * new values at every check. bench/run.ts measures the WASM core here, in its own process, and
 * the pure-JS core (node:crypto, bench/hotpath-js.ts) by running this file in another:
 *
 *   node --import tsx bench/core-rows.ts js     # one JSON line: the JS core's rows
 *   node --import tsx bench/core-rows.ts wasm   # the same for the WASM core, alone in its process
 *
 * One core per process, as a user's process has: an engine trained on two cores in one process
 * calls each through call sites that have seen both, and measured the WASM core's write check
 * 3–5% slower than alone (docs/perf/README.md, round 27).
 */
import "./temp-root.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Core } from "../worker/portable/engine/wasm/core.js";
import type { Session as SessionT } from "../worker/portable/engine/session.js";
import { buildModules } from "./store-engine.js";

// Measure what users run: the compiled JS in dist/ (`npm run bench` builds it first), not the
// sources through a TypeScript loader, which adds its own wrappers to every function.
// STALWART_BENCH_DIST: another build (e.g. main's) for the in-process rows, to compare in one sitting
export const dist = process.env.STALWART_BENCH_DIST ? new URL(process.env.STALWART_BENCH_DIST.replace(/\/?$/, "/"), "file://" + process.cwd() + "/").href : new URL("../dist/", import.meta.url).href;
const { Engine, Session, installationKey, catalogueFrom, ajvCompiler } = await buildModules(dist);
const { entryCanonical } = (await import(dist + "worker/portable/engine/history/entry.js")) as typeof import("../worker/portable/engine/history/entry.js");
type Session = SessionT;

const catalogueFile = join(import.meta.dirname, "../examples/store/agent.yaml");
export const key = installationKey(mkdtempSync(join(tmpdir(), "stalwart-bench-")));

export function engineWith(core: Core) {
  const engine = new Engine({ core, key, schemaCompiler: ajvCompiler });
  const catalogue = catalogueFrom(catalogueFile, { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
  return { engine, catalogue };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** CPU µs since `t0` (this process, every thread: the machine is shared, so wall time is not the check's). */
export const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** Median CPU µs per op over `batches` batches of `per` ops each (after a warm-up batch). */
export async function measure(per: number, batches: number, op: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < per; i++) await op(i);
  const samples: number[] = [];
  let n = 0;
  for (let b = 0; b < batches; b++) {
    const t0 = cpuNow();
    for (let i = 0; i < per; i++) await op(n++);
    samples.push((cpuNow() - t0) / per);
  }
  return median(samples);
}

export const refund = { order_id: "4411", amount: 40.0 };
export const refundOpts = { origins: { order_id: "typed", amount: "model" } };

export async function sessionWith(env: ReturnType<typeof engineWith>, entries: number): Promise<Session> {
  const s = new Session(env.engine, "billing", env.catalogue);
  await s.read("estorne 40,00 do pedido 4411");
  while (s.history.entries.length < entries) await s.checkToolCall("refund_card", refund, refundOpts);
  return s;
}

/**
 * µs per check on sessions that hold `entries` entries: `sessions` sessions, each timed over a run
 * of `per` checks in a row (the history grows by `per`, which a clean session must not feel);
 * the median of the per-session means. Every case uses the same shape, so they compare.
 */
async function checksAt(env: ReturnType<typeof engineWith>, entries: number, tool: "refund_card" | "get_order", sessions = 24, per = 50, vary = false): Promise<number> {
  const same = tool === "refund_card" ? refund : { order_id: "4411" };
  // vary: a new amount on every check, so no digest or token part recurs from the check before
  let n = 0;
  const args = vary ? () => ({ ...refund, amount: 1 + n++ / 100 }) : () => same;
  const opts = tool === "refund_card" ? refundOpts : {};
  const samples: number[] = [];
  for (let i = 0; i < sessions; i++) {
    const s = await sessionWith(env, entries);
    for (let w = 0; w < 5; w++) await s.checkToolCall(tool, args(), opts); // warm
    const t0 = cpuNow();
    for (let k = 0; k < per; k++) await s.checkToolCall(tool, args(), opts);
    samples.push((cpuNow() - t0) / per);
  }
  return median(samples);
}

/** (d) before its warm-up, per core: the first resume, and the median of the first 15 (what the row showed until round 9) */
const coldResumes = new Map<ReturnType<typeof engineWith>, { first: number; median: number }>();

/**
 * The median of 15 resumes, after 15 more that warm the JIT (as every other row is measured warm):
 * a process's first resumes mostly time the optimiser compiling the resume path, whose thread
 * cpuUsage counts (docs/perf/engine-d.round9.md); those are kept in `coldResumes` and printed apart.
 */
async function fullVerifyPerEntry(env: ReturnType<typeof engineWith>, entries: number): Promise<number> {
  const resume = await resumeTimer(env, entries);
  const samples: number[] = [];
  for (let r = 0; r < 30; r++) samples.push(await resume());
  coldResumes.set(env, { first: samples[0]!, median: median(samples.slice(0, 15)) });
  return median(samples.slice(15));
}

/**
 * One (d) sample at a time: resume a saved `entries`-entry session (its text parsed first, not
 * timed) and check once; CPU µs per entry. bench/run.ts also times it in rounds beside the probe.
 */
export async function resumeTimer(env: ReturnType<typeof engineWith>, entries: number): Promise<() => Promise<number>> {
  const saved = JSON.stringify((await sessionWith(env, entries)).toJSON());
  return async () => {
    const data = JSON.parse(saved);
    const t0 = cpuNow();
    const s = Session.resume(env.engine, env.catalogue, data);
    await s.checkToolCall("get_order", { order_id: "4411" });
    return (cpuNow() - t0) / entries;
  };
}

/**
 * (d)'s floor in the same run: the link MACs alone, per entry — `verifyRun` over the entries'
 * canonical bytes and links made beforehand, so what is timed is copying them into the core's
 * memory (a native copy) and the MACs (about ten SHA-256 compressions per ~430-byte entry).
 */
async function macAlonePerEntry(env: ReturnType<typeof engineWith>, entries: number): Promise<number> {
  const macs = await macTimer(env, entries);
  const samples: number[] = [];
  for (let r = 0; r < 15; r++) samples.push(macs());
  return median(samples);
}

/** One sample of (d)'s floor at a time: `verifyRun` over an `entries`-entry session's bytes and links; CPU µs per entry. */
export async function macTimer(env: ReturnType<typeof engineWith>, entries: number): Promise<() => number> {
  const s = await sessionWith(env, entries);
  const enc = new TextEncoder();
  const bytes = s.history.entries.map((e) => enc.encode(entryCanonical(e)));
  const links = s.history.entries.map((e) => new Uint8Array(Buffer.from(e.link, "hex")));
  const sid = enc.encode(s.id);
  const zero = new Uint8Array(32);
  if (env.engine.chain.verifyRun(sid, zero, bytes, links) !== -1) throw new Error("the bench's own history does not verify");
  return () => {
    const t0 = cpuNow();
    env.engine.chain.verifyRun(sid, zero, bytes, links);
    return (cpuNow() - t0) / bytes.length;
  };
}

export interface CoreRows {
  read: number;
  write: number;
  write200: number;
  write2000: number;
  verify: number;
  macs: number;
  writeVaried: number;
  /** (d) before its warm-up: the first resume, and the median of the first 15 */
  cold: { first: number; median: number };
}

/**
 * How long the rows warm up before they are measured, ms (STALWART_BENCH_WARM_MS; 0 is the eight
 * sessions alone, as before round 28). Measured on this machine in round 28: the write check read
 * ~0.6 µs (6%) slower without it, the read ~0.7 µs (docs/perf/README.md).
 */
const WARM_MS = Math.max(0, Number(process.env.STALWART_BENCH_WARM_MS ?? 3000) || 0);

/** Every in-process row for one core, after warming the JIT on each path. */
export async function coreRows(env: ReturnType<typeof engineWith>): Promise<CoreRows> {
  // Warm the JIT on every path first, so the first case measured is not the one that pays for it,
  // and for WARM_MS at least: a process's first seconds run slower than its steady state (V8's
  // background work), and a user's process checks long after it started.
  const until = Date.now() + WARM_MS;
  for (let i = 0; i < 8 || Date.now() < until; i++) {
    const s = await sessionWith(env, 200);
    for (let k = 0; k < 300; k++) {
      await s.checkToolCall("refund_card", refund, refundOpts);
      await s.checkToolCall("get_order", { order_id: "4411" });
    }
  }
  const read = await checksAt(env, 20, "get_order");
  const write = await checksAt(env, 20, "refund_card");
  const write200 = await checksAt(env, 200, "refund_card");
  const write2000 = await checksAt(env, 2000, "refund_card", 8);
  const verify = await fullVerifyPerEntry(env, 2000);
  const macs = await macAlonePerEntry(env, 2000);
  // (b) repeats one call; a host's calls differ, so the same write with new values every check
  const writeVaried = await checksAt(env, 20, "refund_card", 24, 50, true);
  return { read, write, write200, write2000, verify, macs, writeVaried, cold: coldResumes.get(env)! };
}

if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "js") {
  // The pure-JS core is bench code (not shipped), read from its source.
  const { createJsCore } = await import("./hotpath-js.js");
  console.log(JSON.stringify(await coreRows(engineWith(createJsCore()))));
} else if (import.meta.url === `file://${process.argv[1]}` && process.argv[2] === "wasm") {
  // the WASM core's rows alone, as `npm run bench` measures them first (to compare warm-ups)
  const { nodeCore } = (await import(dist + "cli/sdk/wasm-node.js")) as typeof import("../cli/sdk/wasm-node.js");
  console.log(JSON.stringify(await coreRows(engineWith(nodeCore()))));
}
