// Start `wrangler dev` for a worker config on 127.0.0.1, offline (no Request.cf fetch, no
// metrics), wait until its health route answers, and hand back a stop function. Used by
// scripts/dev.mjs and by the tests, which start and stop every server they need themselves.
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * A port nothing listens on, for a server this process starts a moment later. Not the kernel's
 * `listen(0)` choice: that comes from the range the kernel also hands out as the source ports of
 * outgoing connections, so in a busy test run another connection (or another run's server) could
 * take it before wrangler binds it (seen: "Address already in use" in CI). A random port below that
 * range, checked free; the caller still retries on a collision (startWrangler does).
 */
export async function freePort() {
  const [low] = ephemeralRange();
  const from = 20000, to = Math.max(from + 1000, Math.min(low, 32768));
  for (let i = 0; i < 50; i++) {
    const port = from + Math.floor(Math.random() * (to - from));
    if (!(await portInUse(port))) return port;
  }
  return kernelPort();
}

/** The kernel's range of source ports for outgoing connections (Linux; elsewhere its usual default). */
function ephemeralRange() {
  try {
    const [lo, hi] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (Number.isInteger(lo) && Number.isInteger(hi)) return [lo, hi];
  } catch {}
  return [32768, 60999];
}

function kernelPort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Does something already listen on 127.0.0.1:`port`? (false when it can be bound here) */
export function portInUse(port) {
  return new Promise((resolve) => {
    const s = createServer();
    s.unref();
    s.once("error", (err) => resolve(err.code === "EADDRINUSE" || err.code === "EACCES"));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(false)));
  });
}

/**
 * `pickPort` (tests): chooses the server's port when `port` is not given (default `freePort`).
 * @param {{config?: string, port?: number, pickPort?: () => Promise<number>, vars?: Record<string,string>, envFile?: string, persistTo?: string, health?: string, log?: (s: string) => void, timeoutMs?: number}} o
 */
export async function startWrangler(o = {}) {
  // A port chosen here can still be taken before wrangler binds it: then choose again (a port the
  // caller gave is theirs to mean, and its collision is their error).
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(o, o.port ?? (await (o.pickPort ?? freePort)()), await freePort());
    } catch (err) {
      if (attempt >= 5) throw err;
      if (err instanceof PortTaken && !(o.port !== undefined && err.port === o.port)) continue;
      if (err instanceof RuntimeDidNotStart && attempt < 3) continue;
      throw err;
    }
  }
}

/**
 * workerd itself stopped during start-up with wrangler's "The Workers runtime failed to start" and
 * no other error logged (seen once in a CI run, under load; the same test passed at once alone).
 * Worth one or two more tries; a failure that repeats is real and is thrown.
 */
export class RuntimeDidNotStart extends Error {}

/** The error for a `wrangler dev` that exited before answering, from what it printed. */
export function startFailure(output) {
  const taken = /Address already in use \(127\.0\.0\.1:(\d+)\)/.exec(output);
  if (taken) return new PortTaken(`wrangler dev exited before answering: 127.0.0.1:${taken[1]} was taken\n${output}`, Number(taken[1]));
  // eslint-disable-next-line no-control-regex
  const errors = output.replace(/\u001b\[[0-9;]*m/g, "").match(/\[ERROR\]/g) ?? [];
  // A script that throws at start-up, a bad config: their own error is logged too, and a retry is no use.
  if (errors.length === 1 && /The Workers runtime failed to start/.test(output)) return new RuntimeDidNotStart(`wrangler dev exited before answering:\n${output}`);
  return new Error(`wrangler dev exited before answering:\n${output}`);
}

/** wrangler dev stopped at once because a port it was given was bound meanwhile. */
export class PortTaken extends Error {
  constructor(message, port) {
    super(message);
    this.port = port;
  }
}

async function startOnce(o, port, inspector) {
  const args = ["wrangler", "dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--show-interactive-dev-session=false", "--log-level", process.env.STALWART_WRANGLER_LOG ?? "warn",
    "--persist-to", o.persistTo ?? mkdtempSync(join(tmpdir(), "stalwart-wrangler-"))];
  if (o.config) args.push("--config", o.config);
  if (o.envFile) args.push("--env-file", o.envFile);
  for (const [k, v] of Object.entries(o.vars ?? {})) args.push("--var", `${k}:${v}`);
  const child = spawn("npx", args, {
    cwd: repo,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_UPDATE_NOTIFIER: "1", CI: process.env.CI ?? "" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const collect = (d) => {
    output += d.toString();
    if (output.length > 20000) output = output.slice(-20000);
    o.log?.(d.toString());
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (o.timeoutMs ?? 90_000);
  let exited = false;
  child.on("exit", () => (exited = true));
  // Never leave a server behind: if this process goes, its wrangler group goes too.
  const reap = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  process.once("exit", reap);
  for (;;) {
    if (exited) {
      reap(); // what it started may outlive it
      const taken = /Address already in use \(127\.0\.0\.1:(\d+)\)/.exec(output);
      throw startFailure(output);
    }
    try {
      const r = await fetch(url + (o.health ?? "/v1/health"), { signal: AbortSignal.timeout(1000) });
      if (r.ok) break;
    } catch {}
    if (Date.now() > deadline) {
      stop();
      throw new Error(`wrangler dev did not answer within the deadline:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  function stop() {
    if (exited) return Promise.resolve();
    return new Promise((resolve) => {
      child.once("exit", resolve);
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        resolve();
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {}
        resolve();
      }, 5000).unref();
    });
  }
  return { url, port, stop, pid: child.pid, output: () => output };
}
