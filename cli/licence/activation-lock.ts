/**
 * One activation of a home at a time. An activation reads `installation.json`, makes a new
 * installation when there is none, asks the service and writes the file: two at once (two
 * installations of the package sharing a home, two CI jobs) each made an installation, each said
 * it was activated, and the home kept whichever wrote last (outside audit 7, F7); with a real
 * service, two seats. The second now waits for the first and then finds its installation, which
 * it keeps, as a later `licence dev` or `licence activate` does.
 *
 * The lock is a file made with O_EXCL, holding who made it. Its age is the file system's (wall
 * clock): a lock is an operating-system fact, not a licence time, which the injected clock keeps.
 */
import { hostname } from "node:os";
import { mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { StalwartError } from "../../worker/portable/licensing/index.js";
import { licencePaths } from "./files.js";

/** An activation that holds the lock longer is taken to have died (a service answers in seconds). */
const STALE_MS = 120_000;
const WAIT_MS = 150_000;

export async function oneActivationAtATime<T>(home: string, work: () => Promise<T>): Promise<T> {
  const dir = licencePaths(home).dir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = join(dir, "activate.lock");
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() });
  const until = Date.now() + WAIT_MS;
  for (;;) {
    try {
      writeFileSync(lock, mine, { flag: "wx", mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    if (stale(lock)) {
      try {
        unlinkSync(lock);
      } catch {
        // another waiter removed it first
      }
      continue;
    }
    if (Date.now() > until) {
      throw new StalwartError("ActivationBusy", `another activation of this home has held \`${lock}\` for over ${WAIT_MS / 1000} s`, {
        hint: "wait for it to finish; if no `stalwart licence` command is running on this home, remove the file",
      });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  try {
    return await work();
  } finally {
    try {
      if (readFileSync(lock, "utf8") === mine) unlinkSync(lock);
    } catch {
      // gone already (taken as stale by another): nothing of ours to remove
    }
  }
}

/** Held by a process of this host that is gone, or for longer than an activation takes. */
function stale(lock: string): boolean {
  let held: { pid?: unknown; host?: unknown };
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_MS) return true;
    held = JSON.parse(readFileSync(lock, "utf8")) as { pid?: unknown; host?: unknown };
  } catch {
    return false; // being written or removed this moment: look again
  }
  if (held.host !== hostname() || typeof held.pid !== "number") return false;
  try {
    process.kill(held.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}
