/**
 * What the gateway says and does as it starts.
 *
 * - A home whose licence stops calls is said once, on stderr (where an MCP host's log shows it),
 *   besides each call's refusal. Before, it said only "checking N tools; serving on stdio", and a
 *   person setting it up saw every call refused `internal_error` with nothing in the log to say why.
 * - A tool server slow to answer `initialize` is said while the gateway waits (an MCP host gives
 *   up on the gateway after its own timeout); `--start-timeout` sets the wait; and a tool server
 *   that never answered is stopped when the gateway gives up (it was left running).
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGateway } from "../../cli/gateway/index.js";
import { runGroup } from "../../cli/command.js";
import { root } from "../../cli/commands/index.js";
import { writeFixtureInstallation } from "../helpers/licence-fixtures.js";
import { allowedDir, downstreamClient, home, MAIN, overHttp, ROOT, text } from "./helpers.js";

const FAULTS = join(import.meta.dirname, "fixtures/faults-server.mjs");
const CATALOGUE = "settings: {language: en}\ntools:\n  - {name: note, args: {type: object, properties: {text: {type: string}}, additionalProperties: false}}\n";
const DAY = 86_400_000;

/** Whether process `pid` ends within `ms` (one still running then is killed, so no test leaves it behind). */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  for (let waited = 0; waited < ms && alive(); waited += 100) await new Promise((r) => setTimeout(r, 100));
  if (!alive()) return true;
  process.kill(pid, "SIGKILL");
  return false;
}

async function stalwartRun(argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const code = await runGroup(root, argv, { stdout: { write: () => undefined }, stderr: { write: (t: string) => (stderr += t) } });
  return { code, stderr };
}

function catalogue(): string {
  const file = join(allowedDir(), "agent.yaml");
  writeFileSync(file, CATALOGUE);
  return file;
}

async function warningsOf(homeDir: string, now?: Date): Promise<string[]> {
  const gw = await startGateway({
    catalogue: catalogue(), home: homeDir, listen: { host: "127.0.0.1", port: 0 }, ...(now ? { now: () => now } : {}),
    upstream: { command: process.execPath, args: [FAULTS] },
  });
  try {
    return gw.warnings;
  } finally {
    await gw.close();
  }
}

describe("the gateway's licence, said at the start", { timeout: 60_000 }, () => {
  it("an activated licence in its term: nothing to say", async () => {
    expect(await warningsOf(home())).toEqual([]);
  });

  it("no licence in the home: said, with the commands that give it one; each call is still refused, saying why", async () => {
    const empty = mkdtempSync(join(tmpdir(), "stalwart-gw-nolicence-"));
    const gw = await startGateway({ catalogue: catalogue(), home: empty, listen: { host: "127.0.0.1", port: 0 }, upstream: { command: process.execPath, args: [FAULTS] } });
    try {
      expect(gw.warnings).toHaveLength(1);
      expect(gw.warnings[0]).toContain(`no activated licence in \`${join(empty, "licence")}\`: every call is refused until the home has a licence`);
      expect(gw.warnings[0]).toContain("`stalwart licence dev`");
      const d = await overHttp(downstreamClient({}), gw.url!);
      const r = await d.client.callTool({ name: "note", arguments: { text: "x" } });
      expect(r.isError).toBe(true);
      expect(text(r)).toContain("internal_error (LicenceRequired)");
      await d.client.close();
    } finally {
      await gw.close();
    }
  });

  it("a lease in its grace, and a lapsed licence, by the gateway's clock", async () => {
    const now = new Date("2031-03-01T00:00:00Z");
    const refusing = await writeFixtureInstallation({ home: mkdtempSync(join(tmpdir(), "stalwart-gw-grace-")), now, leaseEndsInDays: 7, graceDays: 30, licenceEndsInDays: 365, onLapse: "refuse", plan: "enterprise" });
    const grace = await warningsOf(refusing.home, new Date(now.getTime() + 8 * DAY));
    expect(grace).toEqual([`the licence's lease ended on 2031-03-08T00:00:00.000Z and was not renewed: calls are checked as usual until 2031-04-07T00:00:00.000Z, then every call is refused (\`stalwart licence status\`)`]);
    expect(await warningsOf(refusing.home, new Date(now.getTime() + 40 * DAY))).toEqual(["the licence lapsed on 2031-04-07T00:00:00.000Z: every call is refused (`stalwart licence status`)"]);
    expect(await warningsOf(refusing.home, new Date(now.getTime() + DAY))).toEqual([]);
    const readsOnly = await writeFixtureInstallation({ home: mkdtempSync(join(tmpdir(), "stalwart-gw-lapsed-")), now, leaseEndsInDays: 7, graceDays: 30, licenceEndsInDays: 365, onLapse: "reads_only", plan: "enterprise" });
    expect(await warningsOf(readsOnly.home, new Date(now.getTime() + 40 * DAY))).toEqual(["the licence lapsed on 2031-04-07T00:00:00.000Z: writes are refused; reads run (`stalwart licence status`)"]);
  });

  it("`stalwart gateway` writes it on stderr before it serves, even with --quiet", async () => {
    const empty = mkdtempSync(join(tmpdir(), "stalwart-gw-nolicence-"));
    const child = spawn(process.execPath, [MAIN, "gateway", "--quiet", "--home", empty, "--catalogue", catalogue(), "--", process.execPath, FAULTS], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    await new Promise<void>((resolve, reject) => {
      child.stderr.on("data", (b: Buffer) => {
        stderr += b.toString();
        if (stderr.includes("serving on stdio")) resolve();
      });
      child.once("exit", () => reject(new Error(`the gateway exited before it served:\n${stderr}`)));
    });
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stderr.split("\n").filter((l) => l.startsWith("stalwart gateway:"));
    expect(lines[0]).toMatch(/^stalwart gateway: warning: no activated licence in `.*`: every call is refused until the home has a licence — .*`stalwart licence dev`$/);
    expect(lines[1]).toBe("stalwart gateway: checking 1 tool; serving on stdio");
  });
});

describe("with --check-url, the check worker at the start", { timeout: 60_000 }, () => {
  const gatewayOn = async (checkUrl: string, key?: string) => {
    const gw = await startGateway({ catalogue: catalogue(), home: home(), checkUrl, ...(key ? { key } : {}), listen: { host: "127.0.0.1", port: 0 }, upstream: { command: process.execPath, args: [FAULTS] } });
    await gw.close();
    return gw.warnings;
  };

  it("one that does not answer: said, naming the address", async () => {
    const s = createServer();
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const port = (s.address() as AddressInfo).port;
    await new Promise((r) => s.close(r));
    const [w, ...rest] = await gatewayOn(`http://127.0.0.1:${port}/`, "k");
    expect(rest).toEqual([]);
    expect(w).toMatch(new RegExp(`^the check worker at http://127\\.0\\.0\\.1:${port} does not answer \\(.*ECONNREFUSED.*\\): every call is refused \`check_unavailable\` until it does$`));
  });

  it("what its health says of its licence, and a key it refuses (a server answering as the worker does)", async () => {
    let licence: Record<string, unknown> = { stage: "active" };
    const worker = createHttpServer((req, res) => {
      if (req.url === "/v1/health") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, service: "stalwart-check", licence }));
      res.writeHead(req.headers.authorization === "Bearer good" ? 404 : 401, { "content-type": "application/json" }).end("{}");
    });
    await new Promise<void>((r) => worker.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
    try {
      expect(await gatewayOn(url, "good")).toEqual([]);
      expect(await gatewayOn(url, "bad")).toEqual([`the check worker at ${url} refuses the key given with \`--key\` (401): every call is refused`]);
      expect(await gatewayOn(url)).toEqual([`the check worker at ${url} refuses calls without a key: give one with \`--key\` (401): every call is refused`]);
      licence = { stage: "none" };
      expect(await gatewayOn(url, "good")).toEqual([`the check worker at ${url} has no licence (its \`STALWART_LICENCE\`): every call is refused`]);
      licence = { stage: "lapsed", lapsed_at: "2031-04-07T00:00:00.000Z" };
      expect(await gatewayOn(url, "good")).toEqual([`the check worker at ${url} has a licence that lapsed on 2031-04-07T00:00:00.000Z: calls are refused \`licence_lapsed\``]);
    } finally {
      worker.close();
    }
  });
});

describe("a home the session cannot use", { timeout: 60_000 }, () => {
  it("stops the gateway before its tool server is started (the licence is read while it starts, the home before)", async () => {
    const h = home();
    writeFileSync(join(h, "history.key"), "");
    const marker = join(allowedDir(), "started");
    const started = startGateway({
      catalogue: catalogue(), home: h, listen: { host: "127.0.0.1", port: 0 },
      upstream: { command: process.execPath, args: ["-e", `require("fs").writeFileSync(${JSON.stringify(marker)}, "yes")`] },
    });
    await expect(started).rejects.toMatchObject({ code: "KeyUnreadable" });
    await new Promise((r) => setTimeout(r, 500));
    expect(existsSync(marker), "a tool server was started for a gateway that could not check").toBe(false);
  });
});

describe("a tool server slow to start", { timeout: 60_000 }, () => {
  it("is said while the gateway waits for it, and then it does not start, naming the command", async () => {
    const notices: string[] = [];
    const started = startGateway({
      catalogue: catalogue(), home: home(), listen: { host: "127.0.0.1", port: 0 }, upstreamStartMs: 1500, notice: (l) => notices.push(l),
      upstream: { command: process.execPath, args: ["-e", "setTimeout(() => {}, 60000)"] },
    });
    // it runs and never answers: the hint names what to look at (an HTTP server, stdout lines the SDK skips, npx)
    await expect(started).rejects.toMatchObject({ code: "UpstreamUnavailable", message: expect.stringContaining("did not start"), hint: expect.stringContaining("is it an MCP server on stdio? One served over HTTP is given with `--url URL`") });
    expect(notices).toEqual([`the tool server \`${process.execPath} -e setTimeout(() => {}, 60000)\` has not answered \`initialize\` after 0.75 s; waiting up to 1.5 s`]);
  });

  it("one that exits before it answers: said so, not the SDK's bare \"Connection closed\"", async () => {
    const started = startGateway({ catalogue: catalogue(), home: home(), listen: { host: "127.0.0.1", port: 0 }, upstream: { command: process.execPath, args: ["-e", "process.exit(3)"] } });
    await expect(started).rejects.toMatchObject({
      code: "UpstreamUnavailable",
      message: `the tool server \`${process.execPath} -e process.exit(3)\` did not start: it exited (or closed its standard output) before it answered \`initialize\`; what it wrote on stderr, above, may say why`,
      hint: "is the tool server's command right, and does it start on its own?",
    });
  });

  it("`stalwart gateway --start-timeout 1`: it says so, gives up, and stops the tool server it started (it was left running)", async () => {
    const dir = allowedDir();
    const pidFile = join(dir, "upstream.pid");
    const hang = `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setTimeout(() => {}, 60000)`;
    const child = spawn(process.execPath, [MAIN, "gateway", "--quiet", "--home", home(), "--start-timeout", "1", "--catalogue", catalogue(), "--", process.execPath, "-e", hang], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(1);
    expect(stderr).toContain("has not answered `initialize` after 0.5 s; waiting up to 1 s");
    expect(stderr).toContain("UpstreamUnavailable");
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(await goneWithin(pid, 4000), "the tool server outlived the gateway").toBe(true);
    expect((await stalwartRun(["gateway", "--home", home(), "--start-timeout", "soon", "--catalogue", catalogue(), "--", "x"])).stderr).toContain("`--start-timeout soon` is not a number of seconds");
  });

  it("--listen on a port another process holds: a usage error naming it, and the tool server started for it is stopped", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    const port = (taken.address() as AddressInfo).port;
    const dir = allowedDir();
    const pidFile = join(dir, "upstream.pid");
    try {
      const started = startGateway({
        catalogue: catalogue(), home: home(), listen: { host: "127.0.0.1", port },
        upstream: { command: "sh", args: ["-c", `echo $$ > ${JSON.stringify(pidFile)}; exec ${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(FAULTS)}`], cwd: ROOT },
      });
      await expect(started).rejects.toMatchObject({ code: "InputError", message: `\`--listen 127.0.0.1:${port}\`: another process listens there` });
      const pid = Number(readFileSync(pidFile, "utf8"));
      expect(await goneWithin(pid, 4000), "the tool server outlived the failed start").toBe(true);
    } finally {
      taken.close();
    }
  });

  it("one starting again (after it died) when the gateway closes is stopped too (it outlived the gateway)", async () => {
    const dir = allowedDir();
    const mark = join(dir, "started-once");
    const firstPid = join(dir, "first.pid");
    const secondPid = join(dir, "second.pid");
    const slow = join(import.meta.dirname, "fixtures/slow-start-server.mjs");
    const node = (file: string) => `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(file)}`;
    // the first start serves at once; the second waits 20 s before it reads stdin, as `npx -y` installing does
    const script = `if [ -f ${JSON.stringify(mark)} ]; then ${node(slow)}; else touch ${JSON.stringify(mark)}; echo $$ > ${JSON.stringify(firstPid)}; ${node(FAULTS)}; fi`;
    const gw = await startGateway({
      catalogue: catalogue(), home: home(), listen: { host: "127.0.0.1", port: 0 },
      upstream: { command: "sh", args: ["-c", script], cwd: ROOT, env: { ...(process.env as Record<string, string>), SLOW_START_PID: secondPid, SLOW_START_MS: "20000" } },
    });
    const { client } = await overHttp(downstreamClient({}), gw.url!);
    let pid = 0;
    try {
      process.kill(Number(readFileSync(firstPid, "utf8")), "SIGKILL");
      // the next call starts the tool server again, and waits for it
      void client.callTool({ name: "note", arguments: { text: "again" } }, { timeout: 30_000 }).catch(() => undefined);
      for (let i = 0; i < 100 && !existsSync(secondPid); i++) await new Promise((r) => setTimeout(r, 100));
      pid = Number(readFileSync(secondPid, "utf8"));
    } finally {
      await client.close().catch(() => undefined);
      await gw.close();
    }
    expect(await goneWithin(pid, 4000), "the starting tool server outlived the gateway").toBe(true);
  });

  it("one that answers in time: nothing is said", async () => {
    const notices: string[] = [];
    const gw = await startGateway({ catalogue: catalogue(), home: home(), listen: { host: "127.0.0.1", port: 0 }, notice: (l) => notices.push(l), upstream: { command: process.execPath, args: [FAULTS] } });
    await gw.close();
    expect(notices).toEqual([]);
  });
});
