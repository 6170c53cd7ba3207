// Round 15: shares of a `perf script -F comm,tid,ip,sym` dump, counting only the samples whose
// stack holds a frame ending in MUST and none holding MUSTNOT (docs/perf/README.md, round 15).
//   perf script -i perf.data -F comm,tid,ip,sym > dump.txt
//   node docs/perf/perf-loop.round15.mjs dump.txt "profile.ts:1:1" "sessionWith" 45
import { readFileSync } from "node:fs";

const [file, must, mustNot, top = "40"] = process.argv.slice(2);
const self = new Map();
const incl = new Map();
let n = 0;
const add = (m, k) => m.set(k, (m.get(k) ?? 0) + 1);
function flush(frames) {
  if (frames.length === 0 || !frames.some((f) => f.endsWith(must))) return;
  if (mustNot && frames.some((f) => f.includes(mustNot))) return;
  n++;
  add(self, frames[0]);
  for (const f of new Set(frames)) add(incl, f);
}
let frames = [];
for (const line of readFileSync(file, "utf8").split("\n")) {
  if (line.trim() === "") {
    flush(frames);
    frames = [];
    continue;
  }
  const m = /^\s+([0-9a-f]+)\s+(.*)$/.exec(line);
  if (m) frames.push(m[2]);
}
flush(frames);
const pct = (c) => `${((100 * c) / n).toFixed(1).padStart(5)}%`;
console.log("samples", n);
console.log("--- self");
for (const [s, c] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) console.log(pct(c), s.slice(0, 120));
console.log("--- inclusive JS");
for (const [s, c] of [...incl].sort((a, b) => b[1] - a[1])) if (s.includes("JS:") && c / n > 0.01) console.log(pct(c), s.slice(0, 120));
