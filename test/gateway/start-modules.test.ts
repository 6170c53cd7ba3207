// What a gateway loads to start: on stdio, not its HTTP side (http.ts, the HTTP server, the SDK's
// HTTP transports) — `--listen` is read by listen-address.ts. The same recorder on a gateway that
// listens shows that it would see those modules. And Node's fetch (undici, ~40 ms to load), which
// the first answer's lease renewal uses: loaded as the gateway starts when its licence renews from
// a service, rather than in front of the first call; not with a development licence, which does not.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAIN, ROOT, home } from "./helpers.js";
import { DEV_SERVICE_URL } from "../../cli/licence/service.js";

const RECORDER = join(import.meta.dirname, "fixtures/record-imports.mjs");
const UPSTREAM = join(import.meta.dirname, "fixtures/noop-server.mjs");
const HTTP_SIDE = [/\/cli\/gateway\/http\.[jt]s$/, /\/@hono\/node-server\//];

/** What the last gateway started here wrote on stderr (for a failure's message). */
let lastStderr = "";

/** Start `stalwart gateway FLAGS`, wait until it serves, stop it: the modules it resolved. */
async function modulesOf(flags: string[], at = home()): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "stalwart-gw-imports-"));
  const file = join(dir, "imports");
  writeFileSync(file, "");
  const catalogue = join(dir, "agent.yaml");
  writeFileSync(catalogue, "settings: {language: en}\ntools:\n  - {name: noop, args: {type: object, properties: {}, additionalProperties: false}}\n");
  const child = spawn(process.execPath, ["--import", RECORDER, MAIN, "gateway", "--home", at, "--catalogue", catalogue, ...flags, "--", process.execPath, UPSTREAM], {
    cwd: ROOT,
    env: { ...process.env, STALWART_TEST_IMPORTS: file },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
      if (/serving on|listening on|http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr)) resolve();
    });
    child.once("exit", () => reject(new Error(`the gateway exited before it served:\n${stderr}`)));
  });
  child.stdin.end();
  // at once, as a host may: the gateway stops as it is told (its handlers were in place before it
  // said it serves; under load, a signal in between killed it outright)
  child.kill("SIGTERM");
  expect(await exited, stderr).toEqual({ code: 0, signal: null });
  lastStderr = stderr;
  return readFileSync(file, "utf8").split("\n").filter(Boolean);
}

describe("what a gateway loads to start", { timeout: 60_000 }, () => {
  it("on stdio: nothing of the HTTP side", async () => {
    const loaded = await modulesOf([]);
    expect(loaded.some((u) => /\/cli\/gateway\/index\.[jt]s$/.test(u))).toBe(true); // the recorder saw the start
    expect(loaded.filter((u) => HTTP_SIDE.some((p) => p.test(u)))).toEqual([]);
  });

  it("with a licence renewed from a service: Node's fetch, before any call; with a development licence, not", async () => {
    const UNDICI = "node:internal/deps/undici/undici";
    expect(await modulesOf([]), lastStderr).toContain(UNDICI);
    const dev = home();
    const file = join(dev, "licence", "installation.json");
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), service_url: DEV_SERVICE_URL }));
    const loaded = await modulesOf([], dev);
    expect(loaded.some((u) => /\/cli\/gateway\/index\.[jt]s$/.test(u))).toBe(true);
    expect(loaded).not.toContain(UNDICI);
  });

  it("with --listen: the HTTP side, which the recorder sees", async () => {
    const loaded = await modulesOf(["--listen", "127.0.0.1:0"]);
    for (const p of HTTP_SIDE) expect(loaded.some((u) => p.test(u))).toBe(true);
  });
});
