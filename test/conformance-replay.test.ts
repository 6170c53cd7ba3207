/**
 * The conformance corpus through `stalwart replay` (test/conformance/replay-driver.ts): each case a
 * trace can say is written as one and replayed, and every check's answer must be the one the live
 * check gives (test/conformance.test.ts). A case a trace cannot say is skipped with the reason.
 */
import { describe, expect, it } from "vitest";
import { assertOutcomes, loadCases, runCase } from "./conformance/runner.js";
import { notReplayable, replayDriver } from "./conformance/replay-driver.js";

describe("conformance (replay)", () => {
  const cases = loadCases();
  const replayable = cases.filter((c) => !c.skip?.[replayDriver.name] && notReplayable(c) === null);
  it("most of the corpus can be written as a trace", () => {
    expect(replayable.length).toBeGreaterThanOrEqual(Math.ceil(cases.length / 2));
  });
  for (const c of cases) {
    const why = c.skip?.[replayDriver.name] ?? notReplayable(c);
    it.skipIf(why !== null)(`${c.file}: ${c.name}${why ? ` (not replayed: ${why})` : ""}`, async () => {
      assertOutcomes(await runCase(c, replayDriver), expect);
    });
  }
});
