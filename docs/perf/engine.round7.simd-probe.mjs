// Round 7's SIMD probe (docs/perf/engine.round7.md): the link MACs of a 2,000-entry run verified by
// the shipped scalar core (`verifyRun`) and by four SIMD lanes (assembly/sha256x4.ts, `verifyRun4`),
// same module, same memory, same records; both verdicts checked on damaged copies first.
//   npx asc assembly/probe-simd.ts -O3 --runtime stub --noAssert --enable simd --outFile build/probe-simd.wasm
//   node docs/perf/engine.round7.simd-probe.mjs
import { createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";

const w = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(new URL("../../build/probe-simd.wasm", import.meta.url))), { env: { abort() { throw new Error("abort"); } } }).exports;
const key = randomBytes(32);
const IN = w.inputPtr();
let u8 = new Uint8Array(w.memory.buffer);
u8.set(key, IN);
w.setKey(0, IN, 32);

const N = 2000, ENTRY = 431, SID = Buffer.from("ses_0123456789abcdefghijkl"); // a session id's length
const u32be = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const entries = [], links = [];
let prev = Buffer.alloc(32);
for (let i = 0; i < N; i++) {
  const e = Buffer.from(randomBytes(ENTRY + (i % 3) * 20).toString("base64").slice(0, ENTRY + (i % 3) * 20)); // ~431-471 ASCII bytes
  prev = createHmac("sha256", key).update("stalwart-history-v1").update(u32be(SID.length)).update(SID).update(prev).update(u32be(e.length)).update(e).digest();
  entries.push(e);
  links.push(prev);
}
const head = 32 + SID.length;
const size = head + entries.reduce((n, e) => n + 4 + e.length + 32, 0);
w.ensureInput(size);
u8 = new Uint8Array(w.memory.buffer);
const dv = new DataView(w.memory.buffer);
function lay(es, ls) {
  u8.fill(0, IN, IN + 32);
  u8.set(SID, IN + 32);
  let p = IN + head;
  for (let i = 0; i < es.length; i++) {
    dv.setUint32(p, es[i].length, true);
    u8.set(es[i], p + 4);
    u8.set(ls[i], p + 4 + es[i].length);
    p += 4 + es[i].length + 32;
  }
  return p - IN - head;
}
const scalar = (len) => w.verifyRun(0, IN, IN + 32, SID.length, IN + head, len, N);
const simd = (len) => w.verifyRun4(0, IN, IN + 32, SID.length, IN + head, len, N);

// the same verdicts, valid and damaged
let len = lay(entries, links);
if (scalar(len) !== -1 || simd(len) !== -1) throw new Error(`a valid run fails: ${scalar(len)} ${simd(len)}`);
for (const at of [0, 1, 2, 3, 4, 5, 998, 1999]) {
  for (const what of ["entry", "link"]) {
    const es = [...entries], ls = [...links];
    if (what === "entry") { es[at] = Buffer.from(es[at]); es[at][7] ^= 1; } else { ls[at] = Buffer.from(ls[at]); ls[at][31] ^= 1; }
    len = lay(es, ls);
    const a = scalar(len), b = simd(len);
    if (a !== at || b !== at) throw new Error(`${what} ${at}: scalar ${a}, simd ${b}`);
  }
}
len = lay(entries, links);
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const time = (f) => { const s = []; for (let r = 0; r < 25; r++) { const t0 = cpu(); f(len); s.push((cpu() - t0) / N); } return median(s); };
time(scalar); time(simd); // warm
const rows = [];
for (let round = 0; round < 3; round++) rows.push([time(scalar), time(simd)]);
for (const [a, b] of rows) console.log(`link MACs per entry (~${ENTRY}-${ENTRY + 40} B): scalar ${a.toFixed(2)} µs, 4 SIMD lanes ${b.toFixed(2)} µs, ratio ${(a / b).toFixed(2)}`);
