/**
 * `npm run bench`: checks per second in-process, side by side in one run with a Cedar decision
 * and a pure-JS hot path (node:crypto instead of WASM; its rows in a process of their own,
 * bench/core-rows.ts). Reports medians and ratios measured in this run; targets are printed
 * beside them, never asserted (speed lives here, not in tests).
 *
 *   (a) a read                      (b) a write with a 20-entry history
 *   (c) the same with 200 / 2,000   (d) a full verification after `resume` (per entry)
 * then the check worker's CPU per request through `app.request()` (bench/worker-cpu.ts) at 20,
 * 1,000 and 5,000 entries (warm, hundreds of delta requests each), and beside it the same request
 * on the worker as wrangler bundles it, in steady state (bench/worker-steady.ts), and (unless STALWART_BENCH_HTTP=0) the worker under wrangler dev.
 */
import "./temp-root.js";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { coreRows, cpuNow, dist, engineWith, key, macTimer, measure, median, refund, refundOpts, resumeTimer, sessionWith, type CoreRows } from "./core-rows.js";
const { nodeCore } = (await import(dist + "cli/sdk/wasm-node.js")) as typeof import("../cli/sdk/wasm-node.js");
const { canonicalize } = (await import(dist + "worker/portable/engine/canonical/jcs.js")) as typeof import("../worker/portable/engine/canonical/jcs.js");
const { sealToken } = (await import(dist + "worker/portable/engine/tokens/confirmation.js")) as typeof import("../worker/portable/engine/tokens/confirmation.js");
import { MachineProbe } from "./machine-probe.js";
import { prototypeCheck } from "./prototype.js";
import { httpBench } from "./http.js";
import { workerCpu } from "./worker-cpu.js";
import type { SteadyRow } from "./worker-steady.js";

/** bench/worker-steady.ts in a process of its own (an isolate that has run nothing else): its row. */
function workerSteadyRow(): SteadyRow {
  const out = execFileSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "worker-steady.ts")], { env: { ...process.env, STALWART_BENCH_JSON: "1" }, encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop()!) as SteadyRow;
}

/** The pure-JS core's rows, measured in a process of their own (bench/core-rows.ts says why). */
function jsCoreRows(): CoreRows {
  const out = execFileSync(process.execPath, ["--import", "tsx", join(import.meta.dirname, "core-rows.ts"), "js"], { env: process.env, encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop()!) as CoreRows;
}

/** One Cedar decision on a preparsed 5-policy set (the yardstick), or null when cedar-wasm does not load. */
async function cedarOp(): Promise<(() => unknown) | null> {
  try {
    const cedarWasm = await import("@cedar-policy/cedar-wasm/nodejs");
    const policies = {
      staticPolicies: `
        permit(principal == User::"billing", action == Action::"get_order", resource);
        permit(principal == User::"billing", action == Action::"refund_card", resource) when { context.amount <= 100 };
        forbid(principal, action == Action::"refund_card", resource) when { context.tainted };
        permit(principal == User::"support", action == Action::"get_order", resource);
        forbid(principal, action == Action::"delete_order", resource);`,
    };
    const parsed = cedarWasm.preparsePolicySet("store", policies);
    if (parsed.type !== "success") throw new Error(JSON.stringify(parsed));
    const call = {
      principal: { type: "User", id: "billing" },
      action: { type: "Action", id: "refund_card" },
      resource: { type: "Order", id: "4411" },
      context: { amount: 40, tainted: false },
      preparsedPolicySetId: "store",
      entities: [],
    };
    const answer = cedarWasm.statefulIsAuthorized(call as never);
    if (answer.type !== "success" || answer.response.decision !== "allow") throw new Error(JSON.stringify(answer));
    return () => cedarWasm.statefulIsAuthorized(call as never);
  } catch (err) {
    console.error(`cedar: not measured (${(err as Error).message})`);
    return null;
  }
}

/** the input of the machine probe read in each round below (bench/machine-probe.ts) */
const PROBE_BYTES = new Uint8Array(375).fill(0x61);

/**
 * (b), Cedar and the two prototype rows taking turns in short batches, `rounds` times: each row
 * above is timed in one stretch (the (b) row in ~20 ms of CPU), and on a shared machine whose
 * speed moves between stretches (Cedar's row has read 26 to 48 µs on one machine in one day) a
 * ratio of two stretches moves with it. Here every round times all four within a few ms, so each
 * round's ratio is of the same moment; the medians of the per-round values are printed.
 */
async function interleaved(env: ReturnType<typeof engineWith>, ops: { cedar: () => unknown; proto: () => void; confirm: () => void }, rounds = 200) {
  const per = { b: [] as number[], cedar: [] as number[], proto: [] as number[], confirm: [] as number[], bCedar: [] as number[], bConfirm: [] as number[], machine: [] as number[] };
  const timed = (n: number, op: () => unknown) => {
    const t0 = cpuNow();
    for (let i = 0; i < n; i++) op();
    return (cpuNow() - t0) / n;
  };
  for (let r = 0; r < rounds; r++) {
    // one sample in checksAt's shape: a 20-entry session, 5 checks to warm it, 50 timed
    const s = await sessionWith(env, 20);
    for (let w = 0; w < 5; w++) await s.checkToolCall("refund_card", refund, refundOpts);
    const t0 = cpuNow();
    for (let k = 0; k < 50; k++) await s.checkToolCall("refund_card", refund, refundOpts);
    const b = (cpuNow() - t0) / 50;
    const c = timed(25, ops.cedar);
    const p = timed(75, ops.proto);
    const q = timed(75, ops.confirm);
    // the machine's speed in this round (bench/machine-probe.ts): 500 SHA-256 of 375 B, ~0.6 ms
    const m0 = process.hrtime.bigint();
    for (let i = 0; i < 500; i++) env.engine.core.sha256(PROBE_BYTES);
    per.machine.push(Number(process.hrtime.bigint() - m0) / 500);
    per.b.push(b); per.cedar.push(c); per.proto.push(p); per.confirm.push(q);
    per.bCedar.push(b / c); per.bConfirm.push(b / q);
  }
  const quart = (xs: number[]) => {
    const s = [...xs].sort((x, y) => x - y);
    return { p25: s[Math.floor(s.length / 4)]!, p50: s[Math.floor(s.length / 2)]!, p75: s[Math.floor((3 * s.length) / 4)]! };
  };
  // the rounds the machine ran at its usual speed: its probe within 8% of the run's fastest
  const fastest = Math.min(...per.machine);
  const usual = per.b.filter((_, i) => per.machine[i]! <= fastest * 1.08);
  return { rounds, b: median(per.b), cedar: median(per.cedar), proto: median(per.proto), confirm: median(per.confirm), bCedar: quart(per.bCedar), bConfirm: quart(per.bConfirm), usual: { rounds: usual.length, b: median(usual), probe: fastest } };
}

/**
 * (d) and its floor (the link MACs alone) taking turns with the probe, `rounds` times, after the
 * rows above: the (d) row is one stretch of 15 resumes, and a slow spell in it (round 26) moves it
 * by 1.6×. Each round here resumes a saved 2,000-entry session once, runs the MACs over the same
 * length once, and reads the probe; the medians of the rounds, and those at the usual speed.
 */
async function interleavedVerify(env: ReturnType<typeof engineWith>, rounds = 60) {
  const resume = await resumeTimer(env, 2000);
  const macs = await macTimer(env, 2000);
  for (let w = 0; w < 5; w++) {
    await resume();
    macs();
  }
  const per = { d: [] as number[], macs: [] as number[], ratio: [] as number[], machine: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const d = await resume();
    const m = macs();
    const m0 = process.hrtime.bigint();
    for (let i = 0; i < 500; i++) env.engine.core.sha256(PROBE_BYTES);
    per.machine.push(Number(process.hrtime.bigint() - m0) / 500);
    per.d.push(d); per.macs.push(m); per.ratio.push(d / m);
  }
  const s = [...per.ratio].sort((x, y) => x - y);
  const fastest = Math.min(...per.machine);
  const usual = per.d.filter((_, i) => per.machine[i]! <= fastest * 1.08);
  return { rounds, d: median(per.d), macs: median(per.macs), ratio: { p25: s[Math.floor(s.length / 4)]!, p50: s[Math.floor(s.length / 2)]!, p75: s[Math.floor((3 * s.length) / 4)]! }, usual: { rounds: usual.length, d: median(usual), probe: fastest } };
}

/**
 * A row over the rounds at the usual speed, or why there is none: when fewer than a quarter of the
 * rounds read within 8% of the fastest probe, that fastest reading is itself an outlier of a slow
 * run (one read 1,388 ns, with 2 of 200 rounds "usual"), and a median of a few rounds says nothing.
 */
function usualLine(row: string, usual: number, rounds: number, probeNs: number, us: number, how: string, target: string): string {
  const ns = Math.round(probeNs).toLocaleString("en");
  if (usual < rounds / 4) return `${row}: only ${usual} of ${rounds} rounds read the probe within 8% of its fastest (${ns} ns); the machine did not keep one speed long enough to read ${row} at it`;
  return `${row} in the ${usual} of ${rounds} rounds the machine ran at its usual speed ${how}, ${ns} ns): ${fmt(us)} (target ≤ ${target} µs)`;
}

const fmt = (us: number | null) => (us === null ? "—" : `${us.toFixed(2)} µs`);
const rate = (us: number | null) => (us === null ? "—" : `${Math.round(1e6 / us).toLocaleString("en")}/s`);

async function main() {
  const wasm = engineWith(nodeCore());
  probe.read("start");
  const w = await coreRows(wasm);
  const j = jsCoreRows();
  const rows: [string, number | null, number | null, string][] = [
    ["(a) read, 20-entry history", w.read, j.read, ""],
    ["(b) write, 20-entry history", w.write, j.write, "target ≤ 10 µs"],
    ["(c) write, 200-entry history", w.write200, j.write200, "must not grow with history"],
    ["(c) write, 2,000-entry history", w.write2000, j.write2000, "must not grow with history"],
    ["(d) full verification after resume, per entry", w.verify, j.verify, "target ≤ 3 µs/entry"],
    ["floor of (d): the link MACs alone, per entry (verifyRun over bytes made beforehand)", w.macs, j.macs, ""],
    ["(b) with a new amount on every check (nothing recurs from the check before)", w.writeVaried, j.writeVaried, ""],
  ];
  const cedarCall = await cedarOp();
  const cedarUs = cedarCall ? await measure(2000, 25, cedarCall) : null;
  const proto = prototypeCheck(nodeCore(), canonicalize, key);
  const protoUs = await measure(2000, 25, proto.op);
  // The prototype with what a confirm of that call must also hash and sign, made with the engine's
  // own functions: the 128-bit digests of its two values (the entry keeps them for step 6) and the
  // confirmation token its answer carries. Not a floor: the check makes the prototype's parts
  // cheaper than the prototype does (the entry's bytes written once, hashed and linked in one pass).
  const { engine } = wasm;
  const withConfirm = prototypeCheck(nodeCore(), canonicalize, key, (args) => {
    engine.sha256Hex(canonicalize(args.order_id)).slice(0, 32);
    engine.sha256Hex(canonicalize(args.amount)).slice(0, 32);
    sealToken((b) => engine.mac(b), { tool: "refund_card", agent: null, digest: "0615b0213e7257c0e273f2782cf230926c248d4a5b7e45873a3e444936bd4da5", session: "bench-session-0", ask: 20, exp: 1_796_188_757_336 + 600_000 });
  });
  const confirmSumUs = await measure(2000, 25, withConfirm.op);
  const turns = cedarCall ? await interleaved(wasm, { cedar: cedarCall, proto: proto.op, confirm: withConfirm.op }) : null;
  const dTurns = await interleavedVerify(wasm);
  probe.read("after the in-process rows");

  console.log(`\nstalwart-agents bench — in-process, one run, medians (Node ${process.version})\n`);
  console.log("| case | WASM core | checks/s | pure-JS (node:crypto) | ratio JS/WASM | target |");
  console.log("|---|---|---|---|---|---|");
  for (const [name, w, j, target] of rows) {
    console.log(`| ${name} | ${fmt(w)} | ${rate(w)} | ${fmt(j)} | ${w && j ? (j / w).toFixed(2) : "—"} | ${target} |`);
  }
  console.log(`| Cedar decision (cedar-wasm, preparsed 5-policy set) | ${fmt(cedarUs)} | ${rate(cedarUs)} | | | |`);
  console.log(`| floor: issue 14's prototype (JCS of a ${proto.entryBytes} B entry, 2 SHA-256, 1 HMAC, 1 ajv validation) | ${fmt(protoUs)} | ${rate(protoUs)} | | | |`);
  console.log(`| the prototype and what a confirm must also hash and sign (its 2 value digests, its confirmation token), each made as the prototype makes its parts | ${fmt(confirmSumUs)} | ${rate(confirmSumUs)} | | | |`);
  const b = rows[1]![1]!;
  console.log("");
  console.log(probe.line());
  console.log("(CPU time of this process per operation, process.cpuUsage, medians of batches)");
  console.log(`ratio write(200 entries) / write(20 entries): ${(rows[2]![1]! / b).toFixed(2)}; write(2,000 entries) / write(20 entries): ${(rows[3]![1]! / b).toFixed(2)} (1.0 = flat)`);
  if (cedarUs) console.log(`ratio stalwart write check / Cedar decision: ${(b / cedarUs).toFixed(2)} (target ≤ 0.2); full verification per entry / Cedar decision: ${(rows[4]![1]! / cedarUs).toFixed(3)} (target ≤ 3/33.7 = 0.089)`);
  console.log(`ratio full verification per entry / MAC alone per entry: ${(rows[4]![1]! / rows[5]![1]!).toFixed(2)} (1.0 = nothing but the MACs)`);
  const cold = w.cold;
  if (cold) console.log(`(d) before its warm-up (the JIT compiling the resume path): the first resume ${fmt(cold.first)} per entry, the median of the first 15 ${fmt(cold.median)}`);
  console.log(`ratio stalwart write check / prototype floor: ${(b / protoUs).toFixed(2)}`);
  if (cedarUs) console.log(`ratio to the Cedar decision: the prototype ${(protoUs / cedarUs).toFixed(2)}; with a confirm's digests and token ${(confirmSumUs / cedarUs).toFixed(2)}; stalwart's write check / that sum ${(b / confirmSumUs).toFixed(2)}`);
  if (turns) {
    const q = (x: { p25: number; p50: number; p75: number }) => `${x.p50.toFixed(2)} (quartiles ${x.p25.toFixed(2)}–${x.p75.toFixed(2)})`;
    console.log(`the same four taking turns, ${turns.rounds} rounds of (b) on a new 20-entry session (50 checks), 25 Cedar decisions, 75 of each prototype (medians of the rounds): (b) ${fmt(turns.b)}, Cedar ${fmt(turns.cedar)}, the prototype ${fmt(turns.proto)}, with a confirm's parts ${fmt(turns.confirm)}`);
    console.log(`  per round: (b) / Cedar ${q(turns.bCedar)} (target ≤ 0.2); (b) / the prototype with a confirm's parts ${q(turns.bConfirm)} (1.0 = at that floor)`);
    console.log(`  ${usualLine("(b)", turns.usual.rounds, turns.rounds, turns.usual.probe, turns.usual.b, "(its probe, read in each round, within 8% of the run's fastest", "10")}`);
  }
  console.log(`(d) and its MACs alone taking turns, ${dTurns.rounds} rounds of one resume of a saved 2,000-entry session and one MAC run over as many entries (medians of the rounds, per entry): (d) ${fmt(dTurns.d)}, the MACs ${fmt(dTurns.macs)}; per round (d) / the MACs ${dTurns.ratio.p50.toFixed(2)} (quartiles ${dTurns.ratio.p25.toFixed(2)}–${dTurns.ratio.p75.toFixed(2)})`);
  console.log(`  ${usualLine("(d)", dTurns.usual.rounds, dTurns.rounds, dTurns.usual.probe, dTurns.usual.d, "(its probe within 8% of these rounds' fastest", "3")}`);

  console.log("\nworker, CPU per write check in Node through `app.request()` — two measures, both in this run:");
  console.log("  round 9's (the table below): the sources through tsx, 200 delta requests measured after 3,000 + 200 of warm-up, while the rows are still getting faster (docs/perf/worker.round9.md);");
  console.log("  round 10's (after it, the one the ≤ 100 µs target is read on): the worker as `wrangler deploy` bundles it, steady (bench/worker-steady.ts, its own process).\n");
  console.log("round 9's measure (sources via tsx; CPU time, medians; delta form: 200 warm-up requests, then 200 measured)\n");
  const cpuRows = await workerCpu();
  console.log("| carried session | body | first request in an isolate | next requests in full (previous answer's session) | floor: full body refused before resume | next requests in the delta form (what the SDK sends) | floor: delta body refused before resume | delta body | target |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  const ms = (us: number) => `${(us / 1000).toFixed(2)} ms`;
  for (const r of cpuRows) {
    console.log(`| ${r.entries.toLocaleString("en")} entries | ${(r.bytes / 1024).toFixed(0)} KiB | ${ms(r.cold)} | ${ms(r.warm)} | ${ms(r.floor)} | ${ms(r.delta)} | ${ms(r.deltaFloor)} | ${(r.deltaBytes / 1024).toFixed(1)} KiB | ${r.entries === 20 ? "≤ 100 µs per check" : "independent of length"} |`);
  }
  console.log("\ndelta requests, median CPU per block of 100 in order (each request adds a check entry and a pending record: a cost that grows shows here)");
  for (const r of cpuRows) console.log(`  from ${r.entries.toLocaleString("en")} entries: ${r.blocks.map(ms).join(", ")}`);
  const w20 = cpuRows[0]!, wLong = cpuRows[cpuRows.length - 1]!;
  console.log(`\nratio next request (${wLong.entries.toLocaleString("en")} entries) / next request (20 entries): in full ${(wLong.warm / w20.warm).toFixed(2)} (beyond the floor: ${((wLong.warm - wLong.floor) / Math.max(1, w20.warm - w20.floor)).toFixed(2)}); in the delta form ${(wLong.delta / w20.delta).toFixed(2)} (1.0 = flat)`);
  const steady = workerSteadyRow();
  console.log(`\nround 10's measure: ${steady.what}, in steady state — ${steady.warmup.toLocaleString("en")} delta requests of warm-up, then blocks of ${steady.per.toLocaleString("en")} (a new 20-entry session every 1,000), median CPU µs\n`);
  console.log("| request | CPU per request | target |");
  console.log("|---|---|---|");
  console.log(`| the delta write check (a confirm: writes a pending record), 20 entries and up | ${steady.median} µs (blocks: ${steady.blocks.join(", ")}) | ≤ 100 µs per check |`);
  console.log(`| floor: the check replaced by a turn (resume, verify, seal, commit, answer; no steps, no token, no record) | ${steady.stubbed} µs | |`);
  console.log(`| floor: the same body refused right after it is read and parsed (Node's Request/Response, Hono, key, licence) | ${steady.refused} µs | |`);
  console.log(`same run, same request: round 9's measure ${w20.delta} µs (20 entries; sources via tsx, after 3,400 requests), round 10's ${steady.median} µs`);
  console.log("carried session limit: 1 MiB in its full form, in either form: 413 `body_too_large` (about 7,500 entries of the smallest kind; worker/workerd/check/carried.ts, docs/http.md)");

  // The adapters (issue 13): per tool call inside each framework's own loop, guarded vs raw tools
  // (bench/adapters.ts; `npm run bench:adapters` runs the full set). STALWART_BENCH_ADAPTERS=0 skips it.
  if (process.env.STALWART_BENCH_ADAPTERS !== "0") {
    const adapters = await import("./adapters.js");
    console.log("\nAdapters — added per tool call by the guard inside the framework's loop (same run, mean CPU time; bench:adapters for the full set)\n");
    adapters.printAdapters(await adapters.measureAdapters("short"));
    adapters.closeAdapters();
  }

  if (process.env.STALWART_BENCH_HTTP !== "0") {
    const WHAT = {
      check: "write check",
      floor: "floor: a 404 that does nothing",
      "floor+0": "a 404 from the test routes (before the app's routing), no call",
      "floor+1": "the same after a call that does nothing to the client's session object",
      "floor+2": "and after one to the tenant's approvals object (a confirm's minimum calls)",
    };
    console.log("\nHTTP path — the check worker under wrangler dev (workerd, one process), the write check, each client its own session from 20 entries on, in the delta form\n");
    const rows = await httpBench(Number(process.env.STALWART_BENCH_SECONDS ?? 5));
    console.log("| request | concurrent clients | per second | p50 | p99 | errors | workerd CPU per request | in-process, same check |");
    console.log("|---|---|---|---|---|---|---|---|");
    for (const r of rows) {
      const what = WHAT[r.what];
      const cpu = r.cpuMs === null ? "—" : `${r.cpuMs.toFixed(2)} ms`;
      console.log(`| ${what} | ${r.clients} | ${Math.round(r.checksPerSecond).toLocaleString("en")} | ${r.p50.toFixed(2)} ms | ${r.p99.toFixed(2)} ms | ${r.errors} | ${cpu} | ${r.what === "check" ? rate(b) : ""} |`);
    }
    const c64 = rows.find((r) => r.what === "check" && r.clients === 64)!;
    const f64 = rows.find((r) => r.what === "floor" && r.clients === 64)!;
    console.log(`\nratio checks/s / floor requests/s at 64 clients: ${(c64.checksPerSecond / f64.checksPerSecond).toFixed(2)}`);
    const r64 = (what: string) => rows.find((r) => r.what === what && r.clients === 64);
    const [f0, f2] = [r64("floor+0"), r64("floor+2")];
    if (f0?.cpuMs != null && f2?.cpuMs != null) console.log(`workerd CPU of a confirm's two calls that do nothing (floor+2 − floor+0), 64 clients: ${(f2.cpuMs - f0.cpuMs).toFixed(2)} ms`);
    if (c64.cpuMs !== null && f64.cpuMs !== null) console.log(`workerd CPU per write check beyond the floor's, 64 clients: ${(c64.cpuMs - f64.cpuMs).toFixed(2)} ms (/proc utime+stime over the row, 10 ms ticks)`);
    // When workerd's CPU bounds the rate (64 clients on 2 cores), the rate goes as 1 / CPU per request:
    // ≥ 0.9 of the 404's rate leaves a check at most 1/0.9 − 1 of the 404's CPU on top of it.
    if (f64.cpuMs !== null && f0?.cpuMs != null && f2?.cpuMs != null) console.log(`for ≥ 0.9 of the floor's rate a check may add at most ${(f64.cpuMs * (1 / 0.9 - 1)).toFixed(2)} ms of workerd CPU to the 404's; a confirm's two calls that do nothing take ${(f2.cpuMs - f0.cpuMs).toFixed(2)} ms of it before any check runs`);
    console.log("\ntarget (benchmark): ≥ 5,000 checks/s at 64 clients on this 2-core machine");
  }
}

const probe = new MachineProbe(nodeCore());
await main();
// The gateway (bench/gateway.ts): direct, a pass-through proxy, and `stalwart gateway`, over stdio.
if (process.env.STALWART_BENCH_GATEWAY !== "0") await (await import("./gateway.js")).gatewayBench();
probe.read("end");
console.log(`\n${probe.line()}`);
