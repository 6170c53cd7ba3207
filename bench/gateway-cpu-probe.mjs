// Preloaded into each hop of bench/gateway.ts (`node --import ./bench/gateway-cpu-probe.mjs …`):
// on SIGUSR2 the process appends its CPU time so far (user + system, µs) to
// $STALWART_BENCH_CPU_FILE, so the bench can take the CPU one hop spent on the timed calls alone
// (a reading before and after) — steadier than wall-clock on a shared machine.
import { appendFileSync } from "node:fs";

const file = process.env.STALWART_BENCH_CPU_FILE;
if (file) {
  process.on("SIGUSR2", () => {
    const u = process.cpuUsage();
    appendFileSync(file, `${process.pid} ${u.user + u.system}\n`);
  });
}

// The host ends a hop with SIGTERM when it does not exit at once: exit normally instead, so a
// `--cpu-prof` profile is still written.
process.on("SIGTERM", () => process.exit(0));
