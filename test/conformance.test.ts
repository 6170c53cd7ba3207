/**
 * The conformance corpus against the in-process SDK. The same cases run over HTTP in
 * test/conformance-http.test.ts (issue 4).
 */
import { describe, expect, it } from "vitest";
import { Client } from "../cli/sdk/index.js";
import { licensedHome } from "./helpers/licensed-home.js";
import { assertOutcomes, loadCases, runCase, type Driver } from "./conformance/runner.js";

let home = licensedHome("conf");

export const inProcess: Driver = {
  name: "in-process",
  newCase: () => {
    home = licensedHome("conf");
  },
  session: (name, opts, now) => new Client({ home, now }).session(name, opts as never),
  resume: (saved, opts, now) => new Client({ home, now }).resume(saved as never, opts),
};

describe("conformance (in-process)", () => {
  for (const c of loadCases()) {
    const skip = c.skip?.[inProcess.name];
    it.skipIf(Boolean(skip))(`${c.file}: ${c.name}`, async () => {
      const outcomes = await runCase(c, inProcess);
      assertOutcomes(outcomes, expect);
    });
  }
});

// The whole corpus again with every clock moved to 2031 (same month, day and time): the answers
// are the same, so nothing in the check, the session store or the licence gate reads the wall clock.
describe("conformance (in-process, the clock in 2031)", () => {
  for (const c of loadCases()) {
    const skip = c.skip?.[inProcess.name];
    it.skipIf(Boolean(skip))(`${c.file}: ${c.name}`, async () => {
      const start = new Date(c.clock ?? "2026-11-29T12:00:00Z").getUTCFullYear();
      const outcomes = await runCase(c, inProcess, { years: 2031 - start });
      assertOutcomes(outcomes, expect);
    });
  }
});
