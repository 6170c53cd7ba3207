/**
 * Vitest's global setup: every temporary file of one test run under one directory, removed when
 * the run ends.
 *
 * The tests make their homes, catalogues, traces and packed tarballs with `mkdtemp` under
 * `os.tmpdir()` and most leave them there (a test that fails half-way could not clean up anyway):
 * one run of the suite left ~18,000 directories and ~390 MB in /tmp. `os.tmpdir()` reads TMPDIR
 * each time it is called, and the test workers and every process a test starts (gateways, wrangler,
 * Chromium, the CLI) inherit this process's environment, so pointing TMPDIR at a directory of this
 * run's puts all of it in one place to remove. STALWART_KEEP_TEST_TMP=1 keeps it (its path printed)
 * to look at after a failure.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const NAMES = ["TMPDIR", "TMP", "TEMP"] as const;

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), "stalwart-test-run-"));
  // as /tmp is: the access tests run processes as another user (nobody), which make files of their own here
  chmodSync(root, 0o1777);
  const before = NAMES.map((n) => process.env[n]);
  for (const n of NAMES) process.env[n] = root;
  return () => {
    NAMES.forEach((n, i) => {
      if (before[i] === undefined) delete process.env[n];
      else process.env[n] = before[i];
    });
    if (process.env.STALWART_KEEP_TEST_TMP === "1") {
      process.stderr.write(`stalwart: this run's temporary files are kept in ${root}\n`);
      return;
    }
    // a process a failed test left running may still write into it: retried, and never a failure
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    } catch (err) {
      process.stderr.write(`stalwart: could not remove ${root}: ${String((err as Error)?.message ?? err)}\n`);
    }
  };
}
