/**
 * Headless Chromium for the approvals page tests: Debian's `chromium` (`apt-get install -y
 * chromium`; `.ci/run` installs it when it is missing), driven by playwright-core. No browser is
 * downloaded: the test finds it by path ($CHROMIUM, else /usr/bin/chromium).
 */
import { existsSync } from "node:fs";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const haveChromium = existsSync(CHROMIUM);

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}

const ROOT = join(import.meta.dirname, "../..");

/** `stalwart approvals serve` as a child process; resolves with the URL and the code it prints. */
export function serveChild(home: string): Promise<{ url: string; code: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "cli/main.ts"), "approvals", "serve", "--home", home, "--port", "0"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
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
