// `node bench/compare.mjs BASE_DIR HEAD_DIR`: the same write check (refund_card, a model-written amount
// → confirm, 20-entry history) on two built checkouts, interleaved in one run; prints the medians and
// the median of per-round ratios. Used to hold "all 13 steps stay within 20% of the core issue".
// Same write check (refund_card, model amount → confirm) on two builds, interleaved, one run.
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
async function batch(ss) { const t0 = process.hrtime.bigint(); for (const s of ss) await s.checkToolCall("refund_card", refund, opts); return Number(process.hrtime.bigint() - t0) / 1000 / ss.length; }
const base = await load(process.argv[2]), head = await load(process.argv[3]);
const rb = [], rh = [], ratio = [];
for (let round = 0; round < 40; round++) {
  const a = await sessions(base, 100), b = await sessions(head, 100);
  // alternate which goes first, so a load spike does not always land on the same side
  let x, y;
  if (round % 2) { x = await batch(a); y = await batch(b); } else { y = await batch(b); x = await batch(a); }
  rb.push(x); rh.push(y); ratio.push(y / x);
}
const med = (x) => [...x].sort((p, q) => p - q)[Math.floor(x.length / 2)];
console.log(`median of per-round ratios: ${med(ratio).toFixed(3)}`);
console.log(`base write check median: ${med(rb).toFixed(2)} µs`);
console.log(`head write check median: ${med(rh).toFixed(2)} µs`);
console.log(`ratio of medians head / base: ${(med(rh) / med(rb)).toFixed(3)}`);
