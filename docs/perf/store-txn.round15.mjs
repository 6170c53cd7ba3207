// Round 15 probe: the raw LMDB write transactions a store commit makes, timed alone (docs/perf/README.md, round 15).
// Run from the repository root: node docs/perf/store-txn.round15.mjs
import { open, ABORT } from "lmdb";
import { mkdtempSync, openSync, writeSync, readSync, statSync } from "node:fs";
import { tmpdir } from "node:os"; import { join } from "node:path";
const cpu = () => { const c = process.cpuUsage(); return c.user + c.system; };
function mk(opts) {
  const d = mkdtempSync(join(tmpdir(), "lmp-"));
  const env = open({ path: join(d, "s.mdb"), noSync: true, maxDbs: 8, encoding: "msgpack", ...opts });
  const t = { meta: env.openDB({ name: "meta" }), sessions: env.openDB({ name: "sessions" }) };
  const gate = open({ path: join(d, "g.mdb"), noSync: true, maxDbs: 1 });
  const w = openSync(join(d, "w"), "w+");
  return { d, env, t, gate, w };
}
const buf = Buffer.alloc(66, 65);
function run(name, o, body, n = 50000) {
  for (let i = 0; i < 5000; i++) body(o, i);
  const t0 = cpu();
  for (let i = 0; i < n; i++) body(o, i);
  console.log(name.padEnd(40), ((cpu() - t0) / n).toFixed(2), "µs");
}
const row = (i) => ({ h: [i, "ab".repeat(32)], t: [], at: 1700000000000 + i, x: 1700001800000 });
const meta = (i) => ({ format: 1, id: "0123456789abcdef0123456789abcdef", generation: i, created: { at: "2026-01-01T00:00:00.000Z", by: "pid 1" }, resets: [] });
const plain = (o, i) => o.env.transactionSync(() => { o.t.sessions.putSync("s", row(i)); o.t.meta.putSync("meta", meta(i)); });
const gated = (o, i) => o.gate.transactionSync(() => { plain(o, i); return ABORT; });
const full = (o, i) => o.gate.transactionSync(() => { statSync(o.d); readSync(o.w, buf, 0, 66, 0); o.env.transactionSync(() => { o.t.meta.get("meta"); readSync(o.w, buf, 0, 66, 0); o.t.sessions.putSync("s", row(i)); o.t.meta.putSync("meta", meta(i)); writeSync(o.w, buf, 0, 66, 0); }); return ABORT; });
const empty = (o, i) => o.env.transactionSync(() => {});
const gateOnly = (o, i) => o.gate.transactionSync(() => ABORT);
for (const wm of [false, true]) {
  const o = mk(wm ? { useWritemap: true } : {});
  const p = wm ? "writemap " : "";
  run(p + "empty txn", o, empty);
  run(p + "gate only", o, gateOnly);
  run(p + "2 puts", o, plain);
  run(p + "2 puts gated", o, gated);
  run(p + "full (stat, witness r/w, gate)", o, full);
}
