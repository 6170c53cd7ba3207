/**
 * Headless Chromium for the approvals page tests: Debian's `chromium` (`apt-get install -y
 * chromium`; `.ci/run` installs it when it is missing), driven by playwright-core. No browser is
 * downloaded: the test finds it by path ($CHROMIUM, else /usr/bin/chromium).
 */
import { existsSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createServer } from "node:http";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";
import { serve, type ServerType } from "@hono/node-server";
import { builtCli } from "../helpers/built-cli.js";
import { approvalsApp } from "../../worker/portable/approvals/app.js";
import type { ApprovalStore } from "../../worker/portable/engine/index.js";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const haveChromium = existsSync(CHROMIUM);

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}

const ROOT = join(import.meta.dirname, "../..");

/** `stalwart approvals serve` as a child process; resolves with the URL and the code it prints. */
export function serveChild(home: string): Promise<{ url: string; code: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [builtCli(), "approvals", "serve", "--home", home, "--port", "0"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const url = /approvals page: (\S+)/.exec(out)?.[1];
      const code = /one-time code: (\d+)/.exec(out)?.[1];
      if (url && code) resolve({ url, code, child });
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.once("exit", (c) => reject(new Error(`approvals serve exited ${c}: ${err}`)));
  });
}

/**
 * Another site tries to decide `target` for the person signed in on `page`: a text/plain form
 * shaped as JSON, then a credentialed fetch with the header. Opened in a new tab of the same
 * browser context; answers the statuses the decide route gave those attempts.
 */
export async function crossSiteAttempts(page: Page, target: string): Promise<number[]> {
  const evil = createServer((_req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(`<form id=f method=post action="${target}" enctype="text/plain"><input name='{"decision":"approve","x":"' value='"}'></form>
      <script>fetch(${JSON.stringify(target)}, {method: "POST", credentials: "include", headers: {"Stalwart-Apply": "yes", "Content-Type": "application/json"}, body: '{"decision":"approve"}'}).catch(() => {}).finally(() => document.getElementById("f").submit());</script>`);
  });
  await new Promise<void>((r) => evil.listen(0, "127.0.0.1", () => r()));
  const other = await page.context().newPage();
  const answers: number[] = [];
  other.on("response", (res) => {
    if (res.url() === target) answers.push(res.status());
  });
  try {
    await other.goto(`http://localhost:${(evil.address() as { port: number }).port}/`);
    await expect.poll(() => answers.length, { timeout: 15_000 }).toBeGreaterThan(0);
    return answers;
  } finally {
    await other.close();
    evil.close();
  }
}

/**
 * The page over `store` in this process (records of any shape, no home), on a port the system
 * picks (two runs never collide), and a Chromium page signed in to it as `ana`.
 */
export async function pageOver(store: ApprovalStore): Promise<{ url: string; page: Page; close(): Promise<void> }> {
  const mac = () => new Uint8Array(32);
  const app = approvalsApp({ base: "", local: true, now: () => Date.now(), login: () => ({ by: "ana" }), storeFor: () => store, macFor: () => mac, cookieMac: () => mac });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const addr = server.address();
  const url = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  const browser = await launch();
  const page = await (await browser.newContext()).newPage();
  const login = await page.request.post(`${url}/login`, { headers: { "Stalwart-Apply": "yes", Origin: url, "Content-Type": "application/json" }, data: { code: "1", by: "ana" } });
  expect(login.ok()).toBe(true);
  return {
    url,
    page,
    close: async () => {
      await browser.close();
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
