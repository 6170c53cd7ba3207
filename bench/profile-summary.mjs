// `node bench/profile-summary.mjs FILE.cpuprofile… [top]`: self and total time by function (with
// file:line), the text form of a flame graph, for docs/perf/. Total time counts a function once
// per sample however deep it recurses.
import { readFileSync } from "node:fs";

const ROOT = new URL("..", import.meta.url).href;

const idleIds = (p) => new Set(p.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
const busy = (p) => {
  const idle = idleIds(p);
  return p.samples.filter((s) => !idle.has(s)).length;
};

// tsx's loader thread writes a profile of its own: take the file with the most busy samples.
const args = process.argv.slice(2);
const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 30);
const [file, p] = args.filter((a) => !/^\d+$/.test(a)).map((f) => [f, JSON.parse(readFileSync(f, "utf8"))]).sort((a, b) => busy(b[1]) - busy(a[1]))[0];
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const counts = new Map();
// Percentages are of the samples where the process was busy (idle is waiting for the CPU).
const idle = idleIds(p);
for (const id of p.samples) if (!idle.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
const total = busy(p);
const name = (n) => {
  const f = n.callFrame;
  // paths inside the checkout, relative to it: a summary committed under docs/ names no machine's folders
  const url = f.url.replace(/^.*\/(dist|node_modules)\//, "$1/").replace(/^file:\/\/.*\/wt-[^/]+\//, "").replace(ROOT, "");
  return `${f.functionName || "(anonymous)"} ${url ? `${url}:${f.lineNumber + 1}` : ""}`.trim();
};
const self = new Map();
const incl = new Map();
for (const [id, c] of counts) {
  const n = byId.get(id);
  const k = name(n);
  self.set(k, (self.get(k) ?? 0) + c);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const kk = name(byId.get(cur));
    if (seen.has(kk)) continue;
    seen.add(kk);
    incl.set(kk, (incl.get(kk) ?? 0) + c);
  }
}
const pct = (c) => `${((100 * c) / total).toFixed(1).padStart(5)}%`;
const show = (title, m) => {
  console.log(`\n${title}`);
  for (const [k, c] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(c)}  ${k}`);
};
console.log(`${file.replace(/^.*\//, "")}: ${total} busy samples of ${p.samples.length}`);
show("self time", self);
show("total time (inclusive)", incl);
