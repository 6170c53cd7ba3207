// docs/perf/worker.round9.md: a .cpuprofile of worker-drive.round9.mjs, each sample to the nearest enclosing phase
// function, else to its file's kind. node docs/perf/worker-phases.round9.mjs <profile> <requests> <interval µs>
import { readFileSync } from "node:fs";
const p = JSON.parse(readFileSync(process.argv[2], "utf8"));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const PH = [
  ["#newResponse", "hono", "Node+Hono: the Response object (c.body)"],
  ["arrayBuffer", "hono", "Node: reading the request body (its stream)"],
  ["sessionOf", "session-shape", "worker: sessionOf (the carried session's shape)"],
  ["remember", "verified-heads", "worker: verified heads (get, remember)"],
  ["get", "verified-heads", "worker: verified heads (get, remember)"],
  ["checkToolCall", "session.", "engine: the write check (Session.checkToolCall, with the state store's load and commit)"],
  ["resume", "engine/session.", "engine: Session.resume (header and head seals, the held prefix)"],
  ["toJSON", "engine/session.", "engine: Session.toJSON (the new head seal)"],
  ["pendingFrom", "approvals/build", "approvals: pendingFrom (token claims, id, the record)"],
  ["withCounts", "approvals/counts", "approvals: withCounts (counter store reads)"],
  ["addAndFindStanding", "approvals-store", "approvals: memory store add + standing lookup (stand-in for the Durable Object)"],
  ["answerOf", "carried", "worker: answerOf (serialising the delta answer)"],
  ["reply", "check/runtime", "worker: reply (check JSON, verified heads, Response via Hono)"],
  ["expand", "carried", "worker: resume (expand, lookups)"],
  ["resume", "check/runtime", "worker: resume (expand, lookups)"],
  ["jsonBody", "http/body", "worker: body read, UTF-8, JSON.parse, field checks"],
  ["(anonymous)", "http/body", "worker: body read, UTF-8, JSON.parse, field checks"],
  ["licenceOf", "check/runtime", "worker: licence, key, clock"],
  ["authenticate", "check/app", null],
  ["_Request", "undici", "Node: Request object (app.request)"],
  ["text", "undici", "Node: reading the answer (the bench's r.text())"],
  ["cpuUsage", "", "bench: cpuUsage"],
];
const phaseOf = (id) => {
  for (let x = id; x !== undefined; x = parent.get(x)) {
    const n = byId.get(x), f = n.callFrame.functionName, u = n.callFrame.url;
    for (const [name, file, label] of PH) if (f === name && u.includes(file) && label) return label;
  }
  return null;
};
const cat = (id) => {
  let n = byId.get(id);
  const f = n.callFrame.functionName;
  if (f === "(garbage collector)") return "GC";
  if (f === "(program)") return "(program): native, unattributed";
  for (let x = id; x !== undefined && !byId.get(x).callFrame.url; x = parent.get(x)) n = byId.get(parent.get(x)) ?? n;
  const u = n.callFrame.url;
  if (u.includes("worker-drive") || u.includes("prof/drive") || u.includes("bench/")) return "bench/driver";
  if (u.startsWith("node:internal/modules") || u.includes("/tsx/")) return "module loader";
  if (u.startsWith("node:")) return "Node: other undici/streams/abort (Response, body streams)";
  if (u.includes("/hono/")) return "Hono: routing, middleware, context";
  if (u.includes("workerd/")) return "worker: other " + u.split("/").slice(-2).join("/");
  return "engine/other: " + (u.split("/").slice(-2).join("/") || f);
};
let total = 0; const acc = new Map();
for (const s of p.samples) {
  const n = byId.get(s); if (n.callFrame.functionName === "(idle)") continue; total++;
  const k = phaseOf(s) ?? cat(s); acc.set(k, (acc.get(k) ?? 0) + 1);
}
// argv[3]: requests in the profile; argv[4]: the sampling interval (µs): each bucket as profiled µs per request
const requests = Number(process.argv[3] ?? 0), interval = Number(process.argv[4] ?? 250);
if (process.env.JSON_OUT) { console.log(JSON.stringify({ total, requests, interval, acc: Object.fromEntries(acc) })); process.exit(0); }
for (const [k, v] of [...acc].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[5] ?? 30))) console.log((100 * v / total).toFixed(1).padStart(5) + "%" + (requests ? ("  " + (v * interval / requests).toFixed(1) + " µs").padEnd(12) : "") + "  " + k);
console.log(`(${total} samples)`);
