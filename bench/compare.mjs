// `node bench/compare.mjs BASE_DIR HEAD_DIR [b|d]`: the same work on two built checkouts,
// interleaved in one run (which goes first alternates by round); prints the medians and the median
// of per-round ratios, the number to trust on a loaded machine.
//   b (default) — the write check (refund_card, a model-written amount → confirm, 20-entry history)
//   d — a full verification: resume a saved 2,000-entry session and check once (µs per entry)
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
async function load(root) {
  // Either layout: worker/portable/engine + cli/sdk (since the structure issue), or the earlier one.
  const m = async (...paths) => {
    for (const p of paths) if (existsSync(join(root, "dist", p))) return import(join(root, "dist", p));
    throw new Error(`none of ${paths.join(", ")} under ${root}/dist`);
  };
  const { Engine } = await m("worker/portable/engine/engine.js", "worker/engine/engine.js");
  const { Session } = await m("worker/portable/engine/session.js", "worker/engine/session.js");
  const { nodeCore } = await m("cli/sdk/wasm-node.js", "cli/wasm-node.js");
  const { installationKey } = await m("cli/sdk/home.js", "cli/home.js");
  const { catalogueFrom } = await m("cli/sdk/catalogue-input.js", "cli/catalogue-input.js");
  const { ajvCompiler } = await m("cli/sdk/ajv-compiler.js", "worker/engine/schema/ajv.js");
  const core = nodeCore();
  const engine = new Engine({ core, key: installationKey(mkdtempSync(join(tmpdir(), "cmp-"))), schemaCompiler: ajvCompiler });
  const cat = catalogueFrom(join(root, "examples/store/agent.yaml"), { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
  return { Session, engine, cat };
}
const refund = { order_id: "4411", amount: 40 }, opts = { origins: { order_id: "typed", amount: "model" } };
async function sessions(env, n) {
  const out = [];
  for (let i = 0; i < n; i++) { const s = new env.Session(env.engine, "billing", env.cat); await s.read("estorne 40,00 do pedido 4411"); while (s.history.entries.length < 20) await s.checkToolCall("refund_card", refund, opts); out.push(s); }
  return out;
}
// Wall time and this process's CPU time (on a loaded machine the wall clock also counts the time
// spent waiting for a core; CPU time counts only ours, GC and compiler threads included).
const clock = () => [process.hrtime.bigint(), process.cpuUsage()];
const since = ([t0, c0], n) => {
  const c = process.cpuUsage(c0);
  return [Number(process.hrtime.bigint() - t0) / 1000 / n, (c.user + c.system) / n];
};
async function batch(ss) { const t = clock(); for (const s of ss) await s.checkToolCall("refund_card", refund, opts); return since(t, ss.length); }
async function savedOf(env, n) {
  const s = new env.Session(env.engine, "billing", env.cat);
  await s.read("estorne 40,00 do pedido 4411");
  while (s.history.entries.length < n) await s.checkToolCall("refund_card", refund, opts);
  return JSON.stringify(s.toJSON());
}
async function verifyOnce(env, saved, n) {
  const data = JSON.parse(saved);
  const t = clock();
  const s = env.Session.resume(env.engine, env.cat, data);
  const c = await s.checkToolCall("get_order", { order_id: "4411" });
  const us = since(t, n);
  if (c.decision !== "allow") throw new Error(`a resumed session answered ${c.decision} ${c.reasons}`);
  return us;
}
const base = await load(process.argv[2]), head = await load(process.argv[3]);
const which = process.argv[4] ?? "b";
const rb = [], rh = [], ratio = [], cb = [], ch = [], cratio = [];
const record = (x, y) => { rb.push(x[0]); rh.push(y[0]); ratio.push(y[0] / x[0]); cb.push(x[1]); ch.push(y[1]); cratio.push(y[1] / x[1]); };
if (which === "d") {
  const N = 2000;
  const sa = await savedOf(base, N), sb = await savedOf(head, N);
  for (let w = 0; w < 3; w++) { await verifyOnce(base, sa, N); await verifyOnce(head, sb, N); }
  for (let round = 0; round < 30; round++) {
    let x, y;
    if (round % 2) { x = await verifyOnce(base, sa, N); y = await verifyOnce(head, sb, N); } else { y = await verifyOnce(head, sb, N); x = await verifyOnce(base, sa, N); }
    record(x, y);
  }
}
for (let round = 0; which === "b" && round < 40; round++) {
  const a = await sessions(base, 100), b = await sessions(head, 100);
  // alternate which goes first, so a load spike does not always land on the same side
  let x, y;
  if (round % 2) { x = await batch(a); y = await batch(b); } else { y = await batch(b); x = await batch(a); }
  record(x, y);
}
const med = (x) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)];
console.log(`median of per-round ratios: ${med(ratio).toFixed(3)}`);
const what = which === "d" ? "full verification per entry" : "write check";
console.log(`base ${what} median: ${med(rb).toFixed(2)} µs`);
console.log(`head ${what} median: ${med(rh).toFixed(2)} µs`);
console.log(`ratio of medians head / base: ${(med(rh) / med(rb)).toFixed(3)}`);
console.log(`CPU time: median of per-round ratios ${med(cratio).toFixed(3)}; base ${med(cb).toFixed(2)} µs, head ${med(ch).toFixed(2)} µs`);
