// Preloaded into each hop of bench/gateway.ts (`node --import ./bench/gateway-cpu-probe.mjs …`):
// on SIGUSR2 the process appends its CPU time so far (user + system, µs) to
// $STALWART_BENCH_CPU_FILE, so the bench can take the CPU one hop spent on the timed calls alone
// (a reading before and after) — steadier than wall-clock on a shared machine.
//
// With $STALWART_BENCH_CPU_PROF_DIR the hop also profiles the timed calls alone: the profiler
// starts at the first reading and stops at the second (window.<path>.<pid>.cpuprofile), so start-up,
// module loading and warm-up are not in it (a --cpu-prof profile has all of them).
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Session } from "node:inspector";

const file = process.env.STALWART_BENCH_CPU_FILE;
const profDir = process.env.STALWART_BENCH_CPU_PROF_DIR;
let session;
let readings = 0;
if (file) {
  process.on("SIGUSR2", () => {
    const u = process.cpuUsage();
    appendFileSync(file, `${process.pid} ${u.user + u.system}\n`);
    if (profDir && ++readings <= 2) profile(readings === 1);
  });
}

function profile(start) {
  if (start) {
    session = new Session();
    session.connect();
    session.post("Profiler.enable");
    session.post("Profiler.setSamplingInterval", { interval: Number(process.env.STALWART_BENCH_CPU_PROF_INTERVAL ?? 100) });
    session.post("Profiler.start");
    return;
  }
  session.post("Profiler.stop", (err, r) => {
    if (!err) writeFileSync(join(profDir, `window.${role()}.${process.pid}.cpuprofile`), JSON.stringify(r.profile));
  });
}

/** Which of the bench's paths this hop is, for the profile's name. */
function role() {
  const a = process.argv.join(" ");
  if (a.includes("--proxy")) return "proxy";
  if (a.includes("--stubbed")) return "stubbed";
  if (a.includes("gw-kept")) return "kept";
  return a.includes(" gateway ") ? "gateway" : "direct";
}

// The host ends a hop with SIGTERM when it does not exit at once: exit normally instead, so a
// `--cpu-prof` profile is still written.
process.on("SIGTERM", () => process.exit(0));
