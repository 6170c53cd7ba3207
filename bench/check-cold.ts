/**
 * `node --import tsx bench/check-cold.ts`: the gateway's kind of session (in-process, state kept
 * in the process) checking and reporting a trivial call in a loop, with something else between
 * two checks — nothing, a 1 ms busy wait, a 1 ms sleep, or 2 / 8 MB of other memory touched and a
 * sleep. The check's CPU depends on what ran before it (docs/perf/gateway.round13.md): in the
 * gateway, the SDK, the pipes and two other processes run between two calls. Medians of the last
 * of three rounds, µs of wall time around `checkToolCall` (the machine otherwise idle). Measures dist/.
 */
import "./temp-root.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { copyLicence } from "../test/helpers/licensed-home.js";

// (a path from the directory it is run in, as bench/run.ts and bench/profile.ts read it)
const dist = process.env.STALWART_BENCH_DIST ? new URL(process.env.STALWART_BENCH_DIST.replace(/\/?$/, "/"), "file://" + process.cwd() + "/").href : new URL("../dist/", import.meta.url).href;
const { Client } = (await import(dist + "cli/sdk/client.js")) as typeof import("../cli/sdk/client.js");

const N = 3000;
const memory = new Uint8Array(64 << 20);
let at = 0;
const between: Record<string, () => Promise<void> | void> = {
  nothing: () => undefined,
  "1 ms busy": () => {
    const end = process.hrtime.bigint() + 1_000_000n;
    while (process.hrtime.bigint() < end);
  },
  "1 ms asleep": () => new Promise((r) => setTimeout(r, 1)),
  "2 MB touched, asleep": () => touch(2),
  "8 MB touched, asleep": () => touch(8),
};

function touch(mb: number): Promise<void> {
  for (let i = 0; i < mb << 20; i += 64) memory[(at + i) & (memory.length - 1)]!++;
  at += mb << 20;
  return new Promise((r) => setTimeout(r, 1));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-bench-cold-")));
// the home's key made, then older than the 3 s in which a process reads a just-written key file
// again at each use (cli/sdk/loaded-key.ts): the steady state of a running application
const { installationKey } = (await import(dist + "cli/sdk/home.js")) as typeof import("../cli/sdk/home.js");
installationKey(home);
await new Promise((r) => setTimeout(r, 3100));
const catalogue = { settings: { language: "en" }, tools: [{ name: "noop", args: { type: "object", properties: {}, additionalProperties: false } }] };
console.log("| between two checks | check, median µs |\n|---|---|");
for (const [what, wait] of Object.entries(between)) {
  // the gateway's session: its state kept in this process (cli/gateway/index.ts)
  const client = new Client({ home }, { sessionsInProcess: true });
  const s = client.session(`cold-${what}`, { catalogue, language: "en", context: {} });
  let last: number[] = [];
  for (let round = 0; round < 3; round++) {
    last = [];
    for (let i = 0; i < N; i++) {
      await wait();
      const t0 = process.hrtime.bigint();
      const c = await s.checkToolCall("noop", {}, { origins: {} });
      last.push(Number(process.hrtime.bigint() - t0) / 1000);
      if (c.decision !== "allow") throw new Error(`noop was answered ${c.decision}: ${c.reasons.join(", ")}`);
      await s.report(c.step, "ran", { content: [{ type: "text", text: "ok" }] });
    }
  }
  console.log(`| ${what} | ${median(last).toFixed(1)} |`);
}
