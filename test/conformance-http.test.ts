/**
 * The same conformance corpus, through `new Client({ url, key })` against the real check worker
 * under `wrangler dev`, started and stopped by this file. Same data files, same assertions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "../cli/sdk/index.js";
import { assertOutcomes, loadCases, runCase, type Driver } from "./conformance/runner.js";
import { startCheckWorker, type RunningWorker } from "./helpers/check-worker.js";

let worker: RunningWorker;
let tenant = 0;
const cases = loadCases();
beforeAll(async () => {
  // One tenant per case: counters (rate limits, spend) are shared by a tenant's sessions.
  worker = await startCheckWorker(cases.map((_, i) => `conformance-${i}`));
}, 120_000);
afterAll(async () => {
  await worker?.stop();
});

let key = () => worker.keys[tenant]!;
const overHttp: Driver = {
  name: "http",
  newCase: () => {
    key = ((k) => () => k)(worker.keys[tenant++ % worker.keys.length]!);
  },
  session: (name, opts, now) => new Client({ url: worker.url, key: key(), now, timeoutMs: 10_000 }).session(name, opts as never),
  resume: (saved, opts, now) => new Client({ url: worker.url, key: key(), now, timeoutMs: 10_000 }).resume(saved as never, opts),
};

describe("conformance (check worker over HTTP, wrangler dev)", () => {
  for (const c of cases) {
    const skip = c.skip?.[overHttp.name];
    it.skipIf(Boolean(skip))(`${c.file}: ${c.name}`, async () => {
      const outcomes = await runCase(c, overHttp);
      assertOutcomes(outcomes, expect);
    });
  }
});
