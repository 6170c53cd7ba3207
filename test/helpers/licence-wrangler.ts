/**
 * Starts the real licence worker with `wrangler dev --config wrangler.licence.toml` on 127.0.0.1,
 * on free ports, with its own persistence folder and a generated env file (dev signing key, a
 * random admin secret), and stops it (the whole process group) after. Offline: no metrics, no
 * `Request.cf` fetch (CLOUDFLARE_CF_FETCH_ENABLED=false), no banner/update check.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { devSigningKey, randomBytes, toBase64Url } from "../../worker/portable/licensing/index.js";
// @ts-expect-error — a plain .mjs helper shared with scripts/dev.mjs
import { freePort as sharedFreePort } from "../../scripts/wrangler-server.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface WranglerService {
  url: string;
  adminSecret: string;
  request(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
  log(): string;
}

/** A free port below the kernel's range for outgoing connections (scripts/wrangler-server.mjs says why). */
export const freePort: () => Promise<number> = sharedFreePort;

/** The env file `wrangler dev` reads the secrets from (also what `dev-server.ts` writes). */
export async function licenceEnvFile(file: string, adminSecret: string): Promise<void> {
  const keys = JSON.stringify([await devSigningKey("dev-2026-a")]);
  writeFileSync(file, `LICENCE_SIGNING_KEYS=${keys}\nLICENCE_ADMIN_SECRET=${adminSecret}\n`, { mode: 0o600 });
}

export async function startWranglerLicence(opts: { timeoutMs?: number } = {}): Promise<WranglerService> {
  // a port chosen free can be taken before wrangler binds it: then start again on others
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(opts);
    } catch (err) {
      if (!(err instanceof Error) || !/Address already in use/.test(err.message) || attempt >= 5) throw err;
    }
  }
}

async function startOnce(opts: { timeoutMs?: number }): Promise<WranglerService> {
  const dir = mkdtempSync(join(tmpdir(), "stalwart-licence-wrangler-"));
  const adminSecret = toBase64Url(randomBytes(24));
  const envFile = join(dir, "licence.env");
  await licenceEnvFile(envFile, adminSecret);
  const port = await freePort();
  const inspector = await freePort();
  const args = [
    join(root, "node_modules/wrangler/bin/wrangler.js"),
    "dev",
    "--config", join(root, "wrangler.licence.toml"),
    "--ip", "127.0.0.1",
    "--port", String(port),
    "--inspector-port", String(inspector),
    "--env-file", envFile,
    "--persist-to", join(dir, "state"),
    "--show-interactive-dev-session=false",
    "--log-level", "warn",
  ];
  let output = "";
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true", CI: "true", NO_COLOR: "1" },
  });
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  let exited = false;
  child.on("exit", () => (exited = true));

  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (!exited && child.pid) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        /* already gone */
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          try {
            process.kill(-child.pid!, "SIGKILL");
          } catch {
            /* gone */
          }
          resolve();
        }, 5000);
        child.once("exit", () => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 90_000);
  for (;;) {
    if (exited) {
      try {
        process.kill(-child.pid!, "SIGKILL"); // what it started may outlive it
      } catch {
        /* gone */
      }
      await stop();
      throw new Error(`wrangler dev exited before it was ready:\n${output}`);
    }
    try {
      const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(1000) });
      if (r.ok) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wrangler dev did not answer on ${url} in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    adminSecret,
    request: (path, init) => fetch(url + path, init),
    stop,
    log: () => output,
  };
}
