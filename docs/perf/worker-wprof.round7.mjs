// workerd under wrangler dev: the write check (delta form) from C clients for S seconds, with a CPU
// profile of the worker's isolate over the DevTools inspector, and workerd's /proc CPU per request.
// usage: W7DIST=<tsc build, as in worker-drive.round7.mjs> node worker-wprof.round7.mjs REPO OUT.cpuprofile|- [seconds] [clients] [check|floor|load]
// ("-": no profile, only the rate and the CPU; "load": POST /__test/state/load, one session object read per request)
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
const [repo, out, secS, clientsS, what = "check"] = process.argv.slice(2);
const seconds = Number(secS ?? 10), clients = Number(clientsS ?? 8);
const WS = createRequire(join(repo, "package.json"))("ws");
const { freePort } = await import(join(repo, "scripts/wrangler-server.mjs"));
const { workerLicence } = await import(join(process.env.W7DIST ?? join(repo, "prof/w7dist"), "test/helpers/licensed-home.js"));
const port = await freePort(), insp = await freePort();
const dir = mkdtempSync(join(tmpdir(), "w7-wprof-"));
const key = `sk_bench_${randomBytes(12).toString("hex")}`;
const envFile = join(dir, "vars.env");
writeFileSync(envFile, `STALWART_API_KEYS="bench:${key}"\nSTALWART_HISTORY_SECRET="${randomBytes(32).toString("hex")}"\nSTALWART_LICENCE='${workerLicence}'\nSTALWART_TEST_CLOCK="1"\n`);
const child = spawn("npx", ["wrangler", "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(insp), "--show-interactive-dev-session=false", "--log-level", "warn", "--persist-to", join(dir, "state"), "--env-file", envFile],
  { cwd: repo, env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_UPDATE_NOTIFIER: "1" }, stdio: ["ignore", "pipe", "pipe"], detached: true });
let log = ""; child.stdout.on("data", (d) => (log += d)); child.stderr.on("data", (d) => (log += d));
const kill = () => { try { process.kill(-child.pid, "SIGTERM"); } catch {} };
process.on("exit", kill);
const url = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  try { const r = await fetch(url + "/v1/health", { signal: AbortSignal.timeout(1000) }); if (r.ok) break; } catch {}
  if (i > 400) { console.error(log); process.exit(1); }
  await new Promise((r) => setTimeout(r, 250));
}
function workerdMs() {
  let total = 0, sys = 0; const parent = new Map(), comm = new Map(), ticks = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try { const t = readFileSync(`/proc/${pid}/stat`, "utf8"); const c = t.lastIndexOf(")"); const f = t.slice(c + 2).split(" ");
      comm.set(pid, t.slice(t.indexOf("(") + 1, c)); parent.set(pid, f[1]); ticks.set(pid, [Number(f[11]), Number(f[12])]); } catch {}
  }
  const under = (p) => { for (let h = 0; p && p !== "0" && h < 64; p = parent.get(p), h++) if (p === String(child.pid)) return true; return false; };
  for (const [pid, n] of comm) if (n.startsWith("workerd") && under(pid)) { const [u, s] = ticks.get(pid) ?? [0, 0]; total += u + s; sys += s; }
  return [total * 10, sys * 10];
}
const H = { authorization: `Bearer ${key}`, "content-type": "application/json" };
const yaml = readFileSync(join(repo, "examples/store/agent.yaml"), "utf8");
await fetch(`${url}/v1/catalogues/store`, { method: "PUT", headers: { ...H, "content-type": "application/yaml" }, body: yaml });
const call = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };
const post = async (p, b) => (await (await fetch(url + p, { method: "POST", headers: H, body: JSON.stringify(b) })).json());
const sessions = [];
for (let k = 0; k < clients; k++) {
  let s = (await post("/v1/sessions", { catalogue: "store", name: "billing" })).session;
  s = (await post("/v1/sessions/read", { session: s, text: "estorne 40,00 do pedido 4411" })).session;
  while (s.entries.length < 20) s = (await post("/v1/check", { session: s, ...call })).session;
  sessions.push(s);
}
const check = async (k) => {
  const mine = sessions[k];
  const r = await fetch(`${url}/v1/check`, { method: "POST", headers: H, body: JSON.stringify({ session: { ...mine, entries: [], since: mine.entries.length }, ...call }) });
  const j = await r.json();
  if (j.session && j.session.since === mine.entries.length) sessions[k] = { ...j.session, entries: mine.entries.concat(j.session.entries) };
  return r.ok && j.check?.decision === "confirm";
};
const floor = async () => { const r = await fetch(`${url}/nothing-here`); await r.text(); return r.status === 404; };
const sid = randomBytes(16).toString("hex");
const load = async () => { const r = await fetch(`${url}/__test/state/load`, { method: "POST", headers: H, body: JSON.stringify({ session: sid }) }); await r.text(); return r.ok; };
const send = what === "floor" ? floor : what === "load" ? load : check;
// warm-up, unprofiled
{ const until = Date.now() + 3000; await Promise.all(Array.from({ length: clients }, async (_, k) => { while (Date.now() < until) await send(k); })); }
let ws;
if (out !== "-") {
  const targets = await (await fetch(`http://127.0.0.1:${insp}/json`)).json();
  console.log("targets:", targets.map((t) => t.title ?? t.id).join(", "));
  ws = new WS(targets[0].webSocketDebuggerUrl);
  await new Promise((r) => ws.once("open", r));
}
let id = 0; const pending = new Map();
ws?.on("message", (m) => { const j = JSON.parse(m); if (j.id && pending.has(j.id)) { pending.get(j.id)(j); pending.delete(j.id); } });
const cdp = (method, params = {}) => new Promise((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params })); });
if (ws) { await cdp("Profiler.enable"); await cdp("Profiler.setSamplingInterval", { interval: 200 }); await cdp("Profiler.start"); }
let n = 0, errors = 0; const c0 = workerdMs(), t0 = Date.now(), until = t0 + seconds * 1000;
await Promise.all(Array.from({ length: clients }, async (_, k) => { while (Date.now() < until) { if (!(await send(k))) errors++; n++; } }));
const el = (Date.now() - t0) / 1000, c1 = workerdMs();
if (ws) { const p = await cdp("Profiler.stop"); writeFileSync(out, JSON.stringify(p.result.profile)); ws.close(); }
console.log(`${what}, ${clients} clients, ${seconds} s: ${n} requests, ${(n / el).toFixed(0)}/s, ${errors} errors, workerd CPU ${((c1[0] - c0[0]) / n).toFixed(2)} ms/request (sys ${((c1[1] - c0[1]) / n).toFixed(2)})`);
kill();
process.exit(0);
