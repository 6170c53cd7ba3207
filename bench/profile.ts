/**
 * `node --cpu-prof --import tsx bench/profile.ts b|c|d [seconds]`: one bench case in a loop, long
 * enough for the sampling profiler to say where its time goes (docs/perf/ holds what it showed).
 *   b — the write check on a 20-entry session (refund_card, model amount → confirm)
 *   bv — the same with a new amount on every check (nothing the per-session memos keep recurs)
 *   c — the same write check on a 2,000-entry session (the sessions are built once, before the loop)
 *   d — resume a saved 2,000-entry session and run one check: the full verification
 *   dv — d over a session whose refunds vary in amount (1 to 97), so its digests vary as a real
 *        history's do (d's repeat one call: its digests repeat, which branch predictors learn)
 * Prints the CPU per operation of the loop alone (session setup is outside it, as in the bench).
 * Measures the compiled dist/ build, as `npm run bench` does.
 */
import "./temp-root.js";
import { storeEngine } from "./store-engine.js";

// STALWART_BENCH_DIST: another build (e.g. main's) to profile against this one in the same sitting
const dist = process.env.STALWART_BENCH_DIST ? new URL(process.env.STALWART_BENCH_DIST.replace(/\/?$/, "/"), "file://" + process.cwd() + "/").href : new URL("../dist/", import.meta.url).href;
const { Session, engine, catalogue } = await storeEngine(dist);

const which = process.argv[2] ?? "b";
const seconds = Number(process.argv[3] ?? 10);
const refund = { order_id: "4411", amount: 40.0 };
const refundOpts = { origins: { order_id: "typed", amount: "model" } };

async function sessionWith(entries: number, vary = false) {
  const s = new Session(engine, "billing", catalogue);
  await s.read("estorne 40,00 do pedido 4411");
  let n = 0;
  while (s.history.entries.length < entries) await s.checkToolCall("refund_card", vary ? { ...refund, amount: 1 + (n++ % 97) } : refund, refundOpts);
  return s;
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
let ops = 0;
let cpu = 0;
const until = Date.now() + seconds * 1000;
if (which === "bv") {
  // (b) with a new amount on every check: no digest, token part or wording repeats from the last
  // check, so the per-session memos (round 9) cannot help — the cost of a call never seen before
  let n = 0;
  while (Date.now() < until) {
    const s = await sessionWith(20);
    const t0 = cpuNow();
    for (let k = 0; k < 50; k++) await s.checkToolCall("refund_card", { ...refund, amount: 1 + n++ / 100 }, refundOpts);
    cpu += cpuNow() - t0;
    ops += 50;
  }
} else if (which === "b" || which === "c") {
  // (c): a few long sessions built up front; each loop pass adds 50 entries (2,000 → ~2,000 + 50·passes / 4)
  const long = which === "c" ? await Promise.all([0, 1, 2, 3].map(() => sessionWith(2000))) : [];
  let pass = 0;
  while (Date.now() < until) {
    const s = which === "c" ? long[pass++ % long.length]! : await sessionWith(20);
    const t0 = cpuNow();
    for (let k = 0; k < 50; k++) await s.checkToolCall("refund_card", refund, refundOpts);
    cpu += cpuNow() - t0;
    ops += 50;
  }
} else {
  const saved = JSON.stringify((await sessionWith(2000, which === "dv")).toJSON());
  while (Date.now() < until) {
    const data = JSON.parse(saved);
    const t0 = cpuNow();
    const s = Session.resume(engine, catalogue, data);
    await s.checkToolCall("get_order", { order_id: "4411" });
    cpu += cpuNow() - t0;
    ops += 2000;
  }
}
console.log(`${which}: ${ops} ${which.startsWith("d") ? "entries verified" : "checks"}; CPU ${(cpu / ops).toFixed(2)} µs each (the loop alone)`);
