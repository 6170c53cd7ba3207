// `node bench/profile-under.mjs FILE.cpuprofile PATTERN [top]`: of the samples inside a frame whose
// "function url" matches PATTERN (a RegExp), the share each function below it has (counted once per
// sample): what one hook or route spends its time on, which self/total times (profile-summary.mjs)
// do not separate. A middleware's share includes the handlers it awaits (`next()`).
import { readFileSync } from "node:fs";
const [file, pat, topS] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const nm = (n) => `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.replace(/^.*\/(wt-[^/]+|node_modules)\//, "")}`;
const re = new RegExp(pat);
let inside = 0; const incl = new Map(); let total = 0;
for (const s of p.samples) {
  total++;
  const chain = [];
  for (let id = s; id !== undefined; id = parent.get(id)) chain.push(byId.get(id));
  const k = chain.findIndex((n) => re.test(nm(n)));
  if (k < 0) continue;
  inside++;
  const seen = new Set();
  for (let i = 0; i < k; i++) { const x = nm(chain[i]); if (!seen.has(x)) { seen.add(x); incl.set(x, (incl.get(x) ?? 0) + 1); } }
}
console.log(`${pat}: ${inside} samples of ${total} (${(100*inside/total).toFixed(1)}%)`);
for (const [k, v] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, Number(topS ?? 30))) console.log(`${(100*v/inside).toFixed(1).padStart(5)}%  ${k}`);
