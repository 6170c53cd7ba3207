/**
 * `stalwart replay` makes its own temporary home: a replay starts with no counters and never
 * touches the live ones. For a test file that replays, STALWART_HOME points at a folder holding
 * only a licence (the replay runs under it), and nothing else may appear there: no history key,
 * no counters. Call at the top of the file; the getter gives the folder once the tests run.
 */
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { copyLicence } from "./licensed-home.js";

export function replayHome(): () => string {
  let home: string | undefined;
  const saved = process.env.STALWART_HOME;
  beforeAll(() => {
    home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-replay-test-home-")));
    process.env.STALWART_HOME = home;
  });
  afterAll(() => {
    expect(readdirSync(home!).filter((f) => f !== "licence")).toEqual([]);
    if (saved === undefined) delete process.env.STALWART_HOME;
    else process.env.STALWART_HOME = saved;
  });
  return () => home!;
}
