import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // one temporary directory per run, removed at its end (test/setup/temp-root.ts)
    globalSetup: ["test/setup/temp-root.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest's default is one fewer worker than CPUs: one on a 2-core machine, so files ran one
    // at a time. Most of the suite's time is spent waiting on the processes it starts (wrangler,
    // tool servers, the CLI), so two workers at least.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
