/**
 * The gateway in `npm run bench` (issue 11): p50/p99 of a trivial `tools/call`, one call at a
 * time, from the SDK's Client over stdio —
 *   direct       the client → the tool server;
 *   pass-through a proxy on the same SDK with no checks (the floor: what any MCP proxy costs);
 *   stubbed      the gateway (startGateway) with the check stubbed to allow at once: the gateway's
 *                own cost (inference, the approval store, dispatch, forwarding), apart from the check;
 *   gateway      `stalwart gateway` (dist/, as installed) with the check in-process.
 * Each hop is a real child process on stdio, as an MCP host runs them. The target (gateway ≤ 1.2×
 * the pass-through at p50) is printed beside the measured ratio, never asserted.
 *
 * This file is also the helpers it starts: `--upstream` (the tool server: one tool, `noop`),
 * `--proxy -- CMD…` (the pass-through) and `--stubbed HOME CATALOGUE -- CMD…` (the stubbed gateway).
 */
import "./temp-root.js";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";

const SELF = fileURLToPath(import.meta.url);
/**
 * Calls each path makes before the timed ones (STALWART_BENCH_GATEWAY_WARM, default 200). After 200
 * the processes are not yet in V8's steady state: every path keeps getting faster for another few
 * thousand calls (docs/perf/gateway.md, "Warm-up").
 */
const WARM = Math.max(0, Math.floor(Number(process.env.STALWART_BENCH_GATEWAY_WARM ?? 200)) || 0);
const ROOT = join(import.meta.dirname, "..");
const PROBE = join(import.meta.dirname, "gateway-cpu-probe.mjs");
// STALWART_BENCH_DIST: another build's dist/ (a copy made before a change), to compare in one sitting.
const DIST = process.env.STALWART_BENCH_DIST ?? join(ROOT, "dist");
const tsx = (file: string, ...args: string[]) => [process.execPath, "--import", "tsx", file, ...args];

function upstreamServer(): void {
  serveStdio(() => {
    const server = new Server({ name: "bench-upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async () => ({ tools: [{ name: "noop", description: "Does nothing.", inputSchema: { type: "object", properties: {}, additionalProperties: false } }] }) as never);
    server.setRequestHandler("tools/call", async () => ({ content: [{ type: "text", text: "ok" }] }) as never);
    return server;
  });
}

/** The floor: a proxy on the same SDK that forwards tools/list and tools/call as raw requests, checking nothing. */
async function passThrough(command: string[]): Promise<void> {
  const up = new Client({ name: "bench-proxy", version: "1.0.0" });
  await up.connect(new StdioClientTransport({ command: command[0]!, args: command.slice(1), stderr: "inherit" }));
  serveStdio(() => {
    const server = new Server({ name: "bench-proxy", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/list", async (r) => (await up.request({ method: "tools/list", ...(r.params ? { params: r.params } : {}) })) as never);
    server.setRequestHandler("tools/call", async (r) => (await up.request({ method: "tools/call", params: r.params })) as never);
    return server;
  });
}

/** The gateway with a session that allows every call at once and records nothing (programmatic only: `startGateway({session})`). */
async function stubbedGateway(home: string, catalogue: string, command: string[]): Promise<void> {
  // the same build as the gateway's row (dist/, not the sources through tsx: its helpers cost per call)
  const { startGateway } = (await import(pathToFileURL(join(DIST, "cli/gateway/index.js")).href)) as typeof import("../cli/gateway/index.js");
  const session = {
    id: "bench-stub",
    history: { entries: [] },
    checkToolCall: async () => ({ decision: "allow" as const, reasons: [], detail: {}, step: 0 }),
    report: async (step: number) => ({ step }),
  };
  const gw = await startGateway({ catalogue, home, session, upstream: { command: command[0]!, args: command.slice(1) } });
  // exit once the host hangs up (so a --cpu-prof profile is written before the host gives up on us)
  process.stdin.once("end", () => void gw.close().finally(() => process.exit(0)));
}

const KEPT = 500;

/** `n` expired records of another session's asks, as the approval store keeps them (cli/approvals/store.ts: one file each). */
async function withKeptApprovals(home: string, n: number): Promise<string> {
  // the home's key first, as the session that left these records made it (a home holding
  // approvals without its key reads as one whose key was deleted: KeyChanged)
  const { installationKey } = await import("../cli/sdk/home.js");
  const { canonicalize, signRecord } = await import("../worker/portable/engine/index.js");
  const { FileApprovalStore } = await import("../cli/approvals/store.js");
  const { homeMac } = await import("../cli/approvals/mac.js");
  installationKey(home);
  const mac = homeMac(home);
  const dir = join(home, "approvals", "pending");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const id = `p_${i.toString(16).padStart(16, "0")}`;
    // as the store checks one: origins in their recorded shape, the digest the arguments' own
    const record = { v: 1 as const, id, session: "an-earlier-session", step: 2 * i, tool: "noop", agent: null, args: { i }, digest: createHash("sha256").update(canonicalize({ i }), "utf8").digest("hex"), origins: { i: { origin: "model", labels: [] } }, reasons: ["argument_origin"], wording: "noop needs your approval before it runs.", counters: [], token: "t", created: i, expires: i + 1 };
    writeFileSync(join(dir, `${id}.json`), JSON.stringify(signRecord(mac, record), null, 2) + "\n");
  }
  // records the store would refuse as unreadable would measure something else
  const kept = new FileApprovalStore(home, () => mac).list().length;
  if (kept !== n) throw new Error(`the kept approval records read back as ${kept}, not ${n}`);
  return home;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

type Row = { p50: number; p99: number; cpuUs?: number };

/** CPU µs the process `pid` spent so far, read through the probe (gateway-cpu-probe.mjs); undefined without it. */
async function cpuOf(pid: number | null, file: string): Promise<number | undefined> {
  if (!pid) return undefined;
  const before = readFileSync(file, "utf8").length;
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 200; i++) {
    await new Promise((r) => setTimeout(r, 5));
    const line = readFileSync(file, "utf8").slice(before).split("\n").find((l) => l.startsWith(`${pid} `));
    if (line) return Number(line.split(" ")[1]);
  }
  return undefined;
}

/** One hop started as an MCP host starts it, with the CPU probe preloaded. */
interface Hop {
  client: Client;
  transport: StdioClientTransport;
  cpuFile: string;
}

async function startHop(command: string[], env: Record<string, string> = {}): Promise<Hop> {
  const client = new Client({ name: "bench-host", version: "1.0.0" });
  const cpuFile = join(mkdtempSync(join(tmpdir(), "stalwart-bench-cpu-")), "cpu");
  writeFileSync(cpuFile, "");
  // the probe goes in front of the hop's own options (its first argument is node itself)
  const [node, ...rest] = command;
  const transport = new StdioClientTransport({ command: node!, args: ["--import", PROBE, ...rest], cwd: ROOT, env: { ...(process.env as Record<string, string>), ...env, STALWART_BENCH_CPU_FILE: cpuFile }, stderr: "ignore" });
  await client.connect(transport, { timeout: 60_000 });
  return { client, transport, cpuFile };
}

async function timedCall(h: Hop): Promise<number> {
  const t0 = process.hrtime.bigint();
  const r = await h.client.callTool({ name: "noop", arguments: {} });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.isError) throw new Error(`noop failed: ${JSON.stringify(r.content)}`);
  return ms;
}

/**
 * Every path's calls interleaved: call i goes to each hop in turn (the order rotating with i), so
 * whatever the machine does meanwhile falls on all of them alike — timed one path after another,
 * the ratio moved 1.11–1.38× between runs (round 7). One call at a time throughout.
 *
 * `gapMs` > 0 waits that long before each call (what an agent's model time does between calls).
 *
 * `block` > 1 sends that many calls back to back to one hop before the next (the hops still take
 * turns, block by block): each call then meets what the same path's previous call left behind
 * (the gateway's report, made after the reply), as an agent's back-to-back calls do, while drift
 * between paths still falls on all of them.
 */
async function latencies(commands: string[][], calls: number, block = 1, gapMs = 0): Promise<Row[]> {
  const hops: Hop[] = [];
  try {
    for (const c of commands) hops.push(await startHop(c));
    for (const h of hops) for (let i = 0; i < WARM; i++) await timedCall(h); // warm
    const cpu0: (number | undefined)[] = [];
    for (const h of hops) cpu0.push(await cpuOf(h.transport.pid, h.cpuFile));
    const ms: number[][] = hops.map(() => []);
    for (let i = 0; i < calls; i += block) {
      const round = Math.floor(i / block);
      for (let k = 0; k < hops.length; k++) {
        const j = (round + k) % hops.length;
        for (let n = i; n < Math.min(calls, i + block); n++) {
          if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
          ms[j]!.push(await timedCall(hops[j]!));
        }
      }
    }
    const rows: Row[] = [];
    for (let j = 0; j < hops.length; j++) {
      const cpu1 = await cpuOf(hops[j]!.transport.pid, hops[j]!.cpuFile);
      const c0 = cpu0[j];
      const sorted = ms[j]!.sort((a, b) => a - b);
      rows.push({ p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99), ...(c0 !== undefined && cpu1 !== undefined ? { cpuUs: (cpu1 - c0) / calls } : {}) });
    }
    return rows;
  } finally {
    for (const h of hops) await h.client.close().catch(() => undefined);
  }
}

/**
 * The calls of `npm run bench`: interleaved call by call; back to back in blocks of 100 (a burst,
 * the worst case: each call meets what the same path's previous call left behind); and spaced, each
 * call after 20 ms of idle, as an agent's calls come with the model's time between them (then
 * every path is cold, and the gateway's report is done before the next call). One run only:
 * STALWART_BENCH_GATEWAY_BLOCK=N (blocks of N) and/or STALWART_BENCH_GATEWAY_GAP_MS=M (M ms before each call).
 */
export async function gatewayBench(calls = Number(process.env.STALWART_BENCH_GATEWAY_CALLS ?? 2000)): Promise<void> {
  const block = process.env.STALWART_BENCH_GATEWAY_BLOCK, gap = process.env.STALWART_BENCH_GATEWAY_GAP_MS;
  if (block !== undefined || gap !== undefined) return gatewayRun(calls, Math.max(1, Math.floor(Number(block ?? 1)) || 1), Math.max(0, Number(gap ?? 0) || 0));
  await gatewayRun(calls, 1);
  await gatewayRun(calls, 100);
  // 400 calls a path: 20 ms each is ~40 s for the five paths
  await gatewayRun(Math.min(calls, 400), 1, 20);
}

async function gatewayRun(calls: number, block: number, gapMs = 0): Promise<void> {
  const { copyLicence } = await import("../test/helpers/licensed-home.js");
  const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-bench-gw-")));
  const catalogue = join(home, "agent.yaml");
  writeFileSync(catalogue, "settings: {language: en}\ntools:\n  - {name: noop, args: {type: object, properties: {}, additionalProperties: false}}\n");
  const upstream = tsx(SELF, "--upstream");
  // STALWART_BENCH_GATEWAY_PROF=DIR: the proxy and the two gateway processes write a CPU profile there (node --cpu-prof)
  // STALWART_BENCH_GATEWAY_PROF_WINDOW=1 with it: every hop profiles the timed calls alone instead (the probe, between its two readings)
  const prof = process.env.STALWART_BENCH_GATEWAY_PROF;
  const windowed = prof !== undefined && process.env.STALWART_BENCH_GATEWAY_PROF_WINDOW === "1";
  if (windowed) Object.assign(process.env, { STALWART_BENCH_CPU_PROF_DIR: prof, STALWART_BENCH_CPU_PROF_INTERVAL: process.env.STALWART_BENCH_GATEWAY_PROF_INTERVAL ?? "1000" });
  const profiled = prof && !windowed ? ["--cpu-prof", `--cpu-prof-dir=${prof}`, `--cpu-prof-interval=${process.env.STALWART_BENCH_GATEWAY_PROF_INTERVAL ?? 1000}`] : [];
  // The same with a home whose approval store keeps records (a person's past decisions): a call's
  // cost must not grow with them (the store was read whole on every call until round 5).
  const kept = await withKeptApprovals(copyLicence(mkdtempSync(join(tmpdir(), "stalwart-bench-gw-kept-"))), KEPT);
  const paths: [string, string[]][] = [
    ["direct: client → tool server", upstream],
    ["pass-through proxy, same SDK, no checks", [process.execPath, ...profiled, "--import", "tsx", SELF, "--proxy", "--", ...upstream]],
    ["stalwart gateway, check stubbed (the gateway's own cost)", [process.execPath, ...profiled, "--import", "tsx", SELF, "--stubbed", home, catalogue, "--", ...upstream]],
    ["stalwart gateway (in-process check)", [process.execPath, ...profiled, join(DIST, "cli/main.js"), "gateway", "--quiet", "--home", home, "--session", "bench", "--catalogue", catalogue, "--", ...upstream]],
    [`stalwart gateway, ${KEPT} approval records kept in the home`, [process.execPath, join(DIST, "cli/main.js"), "gateway", "--quiet", "--home", kept, "--session", "bench", "--catalogue", catalogue, "--", ...upstream]],
  ];
  const measured = await latencies(paths.map(([, c]) => c), calls, block, gapMs);
  const rows: [string, Row][] = paths.map(([name], i) => [name, measured[i]!]);

  const how = (block === 1 ? "the paths interleaved call by call" : `the paths taking turns in blocks of ${block} calls back to back`) + (gapMs > 0 ? `, each call after ${gapMs} ms idle (an agent's calls, with the model's time between them)` : "");
  console.log(`\nstalwart gateway — a trivial tools/call over stdio, ${calls} calls one at a time after ${WARM} warm-up, ${how} (Node ${process.version})\n`);
  if (gapMs > 0) console.log("(CPU per call here includes what each process does while it waits between calls: timers such as the licence meter's flush; it is not what a call costs)\n");
  console.log("| path | p50 | p99 | CPU per call, first hop |");
  console.log("|---|---|---|---|");
  for (const [name, r] of rows) console.log(`| ${name} | ${r.p50.toFixed(3)} ms | ${r.p99.toFixed(3)} ms | ${r.cpuUs !== undefined ? `${r.cpuUs.toFixed(0)} µs` : "?"} |`);
  const [, proxy] = rows[1]!;
  const [, stub] = rows[2]!;
  const [, gw] = rows[3]!;
  const [, withKept] = rows[4]!;
  console.log(`\nratio gateway / pass-through at p50: ${(gw.p50 / proxy.p50).toFixed(2)}× (target ≤ 1.2×); at p99: ${(gw.p99 / proxy.p99).toFixed(2)}×`);
  console.log(`the gateway's own part, check stubbed / pass-through at p50: ${(stub.p50 / proxy.p50).toFixed(2)}×; the check's part: ${(gw.p50 - stub.p50).toFixed(3)} ms of ${gw.p50.toFixed(3)} ms`);
  console.log(`with ${KEPT} approval records kept / without, at p50: ${(withKept.p50 / gw.p50).toFixed(2)}×`);
  if (proxy.cpuUs && stub.cpuUs && gw.cpuUs) console.log(`CPU per call of the first hop: gateway / pass-through ${(gw.cpuUs / proxy.cpuUs).toFixed(2)}×, stubbed / pass-through ${(stub.cpuUs / proxy.cpuUs).toFixed(2)}×; the check's CPU ${(gw.cpuUs - stub.cpuUs).toFixed(0)} µs of ${gw.cpuUs.toFixed(0)} µs`);
}

const argv = process.argv.slice(2);
if (process.argv[1] === SELF) {
  if (argv[0] === "--upstream") upstreamServer();
  else if (argv[0] === "--proxy") await passThrough(argv.slice(argv.indexOf("--") + 1));
  else if (argv[0] === "--stubbed") await stubbedGateway(argv[1]!, argv[2]!, argv.slice(argv.indexOf("--") + 1));
  else await gatewayBench();
}
