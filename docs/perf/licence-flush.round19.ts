/**
 * `node --import tsx docs/perf/licence-flush.round19.ts` (after `npm run build`): the CPU and wall
 * time of one licence meter flush (read-merge-write of the counts through the gate, with
 * their witness), 200 times, medians. Scratch of round 19 (README.md), kept to be run again.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const dist = new URL("../../dist/", import.meta.url).href;
const { openLicence } = (await import(dist + "cli/licence/handle.js")) as typeof import("../../cli/licence/handle.js");
const { copyLicence } = await import("../../test/helpers/licensed-home.js");
const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-flush-")));
const h = await openLicence({ home, renew: false } as never);
const times: number[] = [], cpus: number[] = [];
for (let i = 0; i < 200; i++) {
  h.count("tool_checks");
  const t0 = process.hrtime.bigint(); const c0 = process.cpuUsage();
  h.flush();
  const c = process.cpuUsage(c0);
  times.push(Number(process.hrtime.bigint() - t0) / 1000); cpus.push(c.user + c.system);
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!.toFixed(0);
const p90 = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length * 0.9)]!.toFixed(0);
console.log("flush wall µs median", med(times), "p90", p90(times), "cpu µs median", med(cpus));
await h.close();
