/**
 * The HTTP path of `npm run bench`: checks per second through the local check worker under
 * `wrangler dev` with N concurrent clients (N = 1, 8, 64), with p50/p99 latency. Each client
 * carries its own session, started at 20 entries, and sends each check with the session the
 * previous answer returned — as the SDK does, in the delta form (`since`: only what the isolate
 * does not hold; worker/workerd/check/carried.ts). Sending one saved session over and over would
 * be refused: the session's Durable Object holds its newest head, so an older copy is
 * `history_invalid` (that is what the errors column counted before).
 */
import "./temp-root.js";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error — plain .mjs helper shared with scripts/dev.mjs
import { startWrangler } from "../scripts/wrangler-server.mjs";

export interface HttpRow {
  /**
   * what was sent: the write check; the floor (a route that does nothing: 404, through the app's
   * routing); or a 404 from the test routes, which answer before the app (test-routes.ts), after no
   * call (`floor+0`), after one call that does nothing to the client's session object (`floor+1`),
   * and after that and one to the tenant's approvals object (`floor+2`: the calls a confirm cannot
   * do without)
   */
  what: "check" | "floor" | "floor+0" | "floor+1" | "floor+2";
  clients: number;
  checksPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  /** workerd's CPU time per request (ms; from /proc, Linux only; null where it cannot be read) */
  cpuMs: number | null;
}

/**
 * The CPU time (ms) the workerd processes under `root` (wrangler's process group) have used, from
 * /proc/<pid>/stat (utime + stime, in clock ticks of 10 ms); null off Linux. workerd reports no
 * per-request CPU time locally (only Cloudflare's logs and Tail Workers do), so the bench takes the
 * difference over a whole row and divides by its requests.
 */
function workerdCpuMs(root: number): number | null {
  if (process.platform !== "linux") return null;
  const stat = (pid: string): string[] | null => {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, "utf8");
      // comm may hold spaces: the fields after it start past the last ')'
      const close = text.lastIndexOf(")");
      return [text.slice(text.indexOf("(") + 1, close), ...text.slice(close + 2).split(" ")];
    } catch {
      return null;
    }
  };
  const parent = new Map<string, string>();
  const comm = new Map<string, string>();
  const ticks = new Map<string, number>();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    const f = stat(pid);
    if (!f) continue;
    // after comm: [0] state, [1] ppid, … [11] utime, [12] stime
    comm.set(pid, f[0]!);
    parent.set(pid, f[2]!);
    ticks.set(pid, Number(f[12]) + Number(f[13]));
  }
  const under = (pid: string): boolean => {
    for (let p: string | undefined = pid, hops = 0; p && p !== "0" && hops < 64; p = parent.get(p), hops++) if (p === String(root)) return true;
    return false;
  };
  let total = 0;
  let found = false;
  for (const [pid, name] of comm) {
    if (name.startsWith("workerd") && under(pid)) {
      total += ticks.get(pid) ?? 0;
      found = true;
    }
  }
  return found ? total * 10 : null;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export async function httpBench(seconds = 5): Promise<HttpRow[]> {
  // The worker answers nothing without a licence: give it the dev-signed fixture the tests use.
  // STALWART_TEST_CLOCK mounts the test routes (test-routes.ts): the floor rows' calls; the
  // check sends no clock header, so it runs as deployed.
  const { workerLicence } = await import("../test/helpers/licensed-home.js");
  const licenceVars = `STALWART_LICENCE='${workerLicence}'\n`;
  const dir = mkdtempSync(join(tmpdir(), "stalwart-bench-http-"));
  const key = `sk_bench_${randomBytes(12).toString("hex")}`;
  const envFile = join(dir, "vars.env");
  writeFileSync(envFile, `STALWART_API_KEYS="bench:${key}"\nSTALWART_HISTORY_SECRET="${randomBytes(32).toString("hex")}"\n${licenceVars}STALWART_TEST_CLOCK="1"\n`);
  const w = await startWrangler({ envFile, persistTo: join(dir, "state") });
  try {
    const H = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const yaml = readFileSync(join(import.meta.dirname, "../examples/store/agent.yaml"), "utf8");
    const put = await fetch(`${w.url}/v1/catalogues/store`, { method: "PUT", headers: { ...H, "content-type": "application/yaml" }, body: yaml });
    if (!put.ok) throw new Error(`catalogue: ${put.status} ${await put.text()}`);
    const call = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "model" } } };
    type Saved = { entries: unknown[]; since?: number; [k: string]: unknown };
    const post = async (path: string, body: unknown) => (await (await fetch(`${w.url}${path}`, { method: "POST", headers: H, body: JSON.stringify(body) })).json()) as { session: Saved; check?: { decision: string } };
    /** a 20-entry session, in full (what the caller holds) */
    async function started(): Promise<Saved> {
      let session = (await post("/v1/sessions", { catalogue: "store", name: "billing" })).session;
      session = (await post("/v1/sessions/read", { session, text: "estorne 40,00 do pedido 4411" })).session;
      while (session.entries.length < 20) session = (await post("/v1/check", { session, ...call })).session;
      return session;
    }
    const sessions: Saved[] = [];
    for (let k = 0; k < 64; k++) sessions.push(await started());
    const rows: HttpRow[] = [];
    // client k: its own session, the previous answer's entries appended (the SDK's remote-carried.ts)
    const check = async (k: number) => {
      const mine = sessions[k]!;
      const r = await fetch(`${w.url}/v1/check`, { method: "POST", headers: H, body: JSON.stringify({ session: { ...mine, entries: [], since: mine.entries.length }, ...call }) });
      const j = (await r.json()) as { session?: Saved; check?: { decision: string } };
      if (j.session && j.session.since === mine.entries.length) sessions[k] = { ...j.session, entries: mine.entries.concat(j.session.entries) };
      return r.ok && j.check?.decision === "confirm";
    };
    // The floor: what the local runtime costs for a request that does nothing at all.
    const floor = async () => {
      const r = await fetch(`${w.url}/nothing-here`);
      await r.text();
      return r.status === 404;
    };
    // The floor after the calls a write check cannot do without (test-routes.ts `rpc-floor`): to
    // client k's own session object, then (floor+2) to the tenant's approvals object, each a call
    // that does nothing.
    const calls = (n: 0 | 1 | 2) => async (k: number) => {
      const r = await fetch(`${w.url}/__test/rpc-floor/${n}?session=bench-${k}`, { headers: { authorization: H.authorization } });
      await r.text();
      return r.status === 404 && r.headers.get("x-stalwart-calls") === String(n);
    };
    const kinds = [["check", check], ["floor", floor], ["floor+0", calls(0)], ["floor+1", calls(1)], ["floor+2", calls(2)]] as const;
    for (const [what, send] of kinds) {
      for (const clients of [1, 8, 64]) {
        const latencies: number[] = [];
        let errors = 0;
        const until = Date.now() + seconds * 1000;
        const cpu0 = workerdCpuMs(w.pid);
        const t0 = process.hrtime.bigint();
        await Promise.all(
          Array.from({ length: clients }, async (_, k) => {
            while (Date.now() < until) {
              const s = process.hrtime.bigint();
              if (!(await send(k))) errors++;
              latencies.push(Number(process.hrtime.bigint() - s) / 1e6);
            }
          }),
        );
        const elapsed = Number(process.hrtime.bigint() - t0) / 1e9;
        const cpu1 = workerdCpuMs(w.pid);
        latencies.sort((a, b) => a - b);
        const cpuMs = cpu0 !== null && cpu1 !== null && latencies.length > 0 ? (cpu1 - cpu0) / latencies.length : null;
        rows.push({ what, clients, checksPerSecond: latencies.length / elapsed, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), errors, cpuMs });
      }
    }
    return rows;
  } finally {
    await w.stop();
  }
}
