/**
 * `node --import tsx bench/two-builds.ts BASE_DIST [rounds]`: the write check (b) of two builds in
 * one process, taking turns round by round — BASE_DIST (a copy of `dist/` made before a change,
 * e.g. `cp -r dist prof/dist-before`) and `dist/`. Prints both medians and the median of the
 * per-round ratios. This machine sometimes runs a whole process ~1.6× slower than another
 * (docs/perf/README.md, round 26), so two builds compared in two processes can differ by that
 * alone; in one process both get the same speed.
 */
import "./temp-root.js";
import { storeEngine } from "./store-engine.js";
const refund = { order_id: "4411", amount: 40.0 };
const refundOpts = { origins: { order_id: "typed", amount: "model" } };
const cpuNow = () => { const u = process.cpuUsage(); return u.user + u.system; };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function build(dir: string) {
  const dist = new URL(dir.replace(/\/?$/, "/"), "file://" + process.cwd() + "/").href;
  const { Session, engine, catalogue } = await storeEngine(dist);
  return async () => {
    const s = new Session(engine, "billing", catalogue);
    await s.read("estorne 40,00 do pedido 4411");
    while (s.history.entries.length < 20) await s.checkToolCall("refund_card", refund, refundOpts);
    for (let w = 0; w < 5; w++) await s.checkToolCall("refund_card", refund, refundOpts);
    const t0 = cpuNow();
    for (let k = 0; k < 50; k++) await s.checkToolCall("refund_card", refund, refundOpts);
    return (cpuNow() - t0) / 50;
  };
}
if (process.argv[2] === undefined) {
  console.error("usage: node --import tsx bench/two-builds.ts BASE_DIST [rounds]");
  process.exit(2);
}
const base = await build(process.argv[2]);
const mine = await build("dist");
for (let i = 0; i < 60; i++) { await base(); await mine(); }
const A: number[] = [], B: number[] = [], R: number[] = [];
for (let r = 0; r < Number(process.argv[3] ?? 200); r++) {
  const first = r % 2 === 0;
  const a1 = first ? await base() : 0; const b = await mine(); const a = first ? a1 : await base();
  A.push(a); B.push(b); R.push(b / a);
}
console.log(`base ${median(A).toFixed(2)} µs, this ${median(B).toFixed(2)} µs, per-round ratio this/base ${median(R).toFixed(3)} (quartiles ${[...R].sort((x, y) => x - y)[Math.floor(R.length / 4)]!.toFixed(3)}–${[...R].sort((x, y) => x - y)[Math.floor((3 * R.length) / 4)]!.toFixed(3)})`);
