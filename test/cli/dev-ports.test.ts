/**
 * `npm run dev` with a port in use stops at once — before it writes or starts anything — and names
 * the variable that moves it (PORT, STALWART_LICENCE_PORT), not wrangler's `--port`, which
 * `npm run dev` does not take.
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { REPO } from "../docs/markdown.js";
import { freePort } from "../helpers/licence-wrangler.js";

function listen(port: number): Promise<Server> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(port, "127.0.0.1", () => resolve(s));
  });
}

function dev(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO, "scripts/dev.mjs")], { cwd: REPO, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe("npm run dev: a busy port names the variable to set", () => {
  it.each([
    ["PORT", "the check worker"],
    ["STALWART_LICENCE_PORT", "the licence service"],
  ])("%s", async (name, what) => {
    const busy = await freePort();
    const other = await freePort();
    const server = await listen(busy);
    try {
      const env = name === "PORT" ? { PORT: String(busy), STALWART_LICENCE_PORT: String(other) } : { PORT: String(other), STALWART_LICENCE_PORT: String(busy) };
      const r = await dev(env);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe(""); // nothing started, nothing written
      expect(r.stderr).toBe(`npm run dev: 127.0.0.1:${busy} (${what}) is in use by another program — stop it, or set ${name}, e.g. \`${name}=${busy + 1000 <= 65535 ? busy + 1000 : busy - 1000} npm run dev\`\n`);
    } finally {
      server.close();
    }
  }, 60_000);
});
