/**
 * A second process on a shared home, for test/state/multiprocess.test.ts. It gets ready, prints
 * "ready", waits for the parent's go file (so every process starts at once), works, and prints
 * one JSON line of what it got. Modes:
 *   spend HOME GO TAG SESSIONS PER [FILES]   spend checks through the SDK (ceiling.yaml's wallet);
 *                                    FILES (comma-separated) are deleted from the home once its store is open
 *   cas HOME GO TAG TRIES            commits expecting one head, and spends of one shared name
 *   chain HOME GO TAG COUNT          COUNT commits in a row on one session, each expecting the last
 *   opens HOME GO TAG COUNT          a read-only look at the store's meta row, COUNT times
 *   reopens HOME GO TAG COUNT        takes the store's handle, reads a session and drops it, COUNT times
 *   keys HOME GO TAG COUNT           the history key of COUNT fresh homes under HOME, in order
 *   bound HOME GO TAG COUNT          the same, each key then bound in its home's store, as a client does
 *   meter HOME GO TAG COUNT          counts one tool check and writes the counts, COUNT times
 */
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
// the build, as the package installs it (the parent checks it is not older than the sources):
// plain node starts a child in a fraction of the CPU that tsx over the sources takes
import { Client } from "../../dist/cli/sdk/index.js";
import { closeState, nodeState } from "../../dist/cli/sdk/state/index.js";
import { storeMeta } from "../../dist/cli/sdk/state/reset.js";
import { installationKey, keyId } from "../../dist/cli/sdk/home.js";
import { bindKey } from "../../dist/cli/sdk/state/key-bind.js";
import { openLicence } from "../../dist/cli/licence/handle.js";

const [mode, home, go, tag, a, b, unlink] = process.argv.slice(2);
const now = () => new Date("2026-11-15T12:00:00Z");

async function ready() {
  process.stdout.write("ready\n");
  while (!existsSync(go)) await new Promise((r) => setTimeout(r, 1));
}

if (mode === "spend") {
  const client = new Client({ home, now });
  const catalogue = join(import.meta.dirname, "../fixtures/ceiling.yaml");
  const sessions = Array.from({ length: Number(a) }, (_, i) => client.session(`${tag}-s${i}`, { catalogue }));
  await Promise.all(sessions.map((s) => s.read("go")));
  for (const f of unlink ? unlink.split(",") : []) rmSync(join(home, f));
  await ready();
  let allowed = 0;
  const reasons = {};
  await Promise.all(
    sessions.map(async (s, i) => {
      for (let k = 0; k < Number(b); k++) {
        const amount = 1 + ((i + k) % 3);
        const r = await s.checkToolCall(k % 2 ? "pay" : "tip", { amount }, { origins: { amount: "context" } });
        if (r.decision === "allow") allowed += amount;
        else for (const why of r.reasons) reasons[why === "spend_exceeded" ? why : `${why}: ${JSON.stringify(r.detail)}`] = (reasons[why] ?? 0) + 1;
      }
    }),
  );
  process.stdout.write(JSON.stringify({ allowed, reasons }) + "\n");
} else if (mode === "cas") {
  const store = nodeState(home, { now: () => now().getTime() });
  store.load("cas"); // open the store before the start line
  await ready();
  const expect = { count: 5, link: "5".padStart(64, "0") };
  let heads = 0;
  let spends = 0;
  for (let i = 0; i < Number(a); i++) {
    const link = (tag.charCodeAt(0) * 1000 + i).toString(16).padStart(64, "0");
    if (store.commit("cas", { expect, next: { count: 6, link } }).ok) heads++;
    if (store.commit("spend", { expect: "restart", next: { count: 1, link }, spend: ["token:shared"] }).ok) spends++;
    await new Promise((r) => setImmediate(r));
  }
  process.stdout.write(JSON.stringify({ heads, spends }) + "\n");
} else if (mode === "chain") {
  const store = nodeState(home, { now: () => now().getTime() });
  store.load("chain");
  await ready();
  let count = 0;
  let link = "";
  const failed = [];
  for (let i = 0; i < Number(a); i++) {
    const next = { count: count + 1, link: (count + 1).toString(16).padStart(64, "0") };
    const r = store.commit(`chain-${tag}`, { expect: count === 0 ? "restart" : { count, link }, next });
    if (r.ok) ({ count, link } = next);
    else failed.push(r);
  }
  process.stdout.write(JSON.stringify({ count, failed }) + "\n");
} else if (mode === "opens") {
  // Each opening is a real one (this process never keeps the store open): a read-only look at
  // the meta row, as `stalwart counters status` takes it of a store it cannot open.
  await ready();
  for (let i = 0; i < Number(a); i++) if (!storeMeta(home)) throw new Error("no meta row");
  process.stdout.write(JSON.stringify({ opened: Number(a) }) + "\n");
} else if (mode === "keys") {
  await ready();
  const keys = [];
  for (let i = 0; i < Number(a); i++) {
    try {
      keys.push(Buffer.from(installationKey(join(home, `k${i}`))).toString("hex").slice(0, 16));
    } catch (err) {
      keys.push(`error: ${err.message}`);
    }
  }
  process.stdout.write(JSON.stringify({ keys }) + "\n");
} else if (mode === "bound") {
  await ready();
  const keys = [];
  for (let i = 0; i < Number(a); i++) {
    const dir = join(home, `k${i}`);
    try {
      const key = installationKey(dir);
      bindKey(nodeState(dir).file, keyId(key), join(dir, "history.key"));
      keys.push(keyId(key));
    } catch (err) {
      keys.push(`error: ${err.message}`);
    } finally {
      closeState(dir);
    }
  }
  process.stdout.write(JSON.stringify({ keys }) + "\n");
} else if (mode === "meter") {
  const licence = await openLicence({ home, now });
  await ready();
  for (let i = 0; i < Number(a); i++) {
    licence.count("tool_checks");
    licence.flush(true);
  }
  await licence.close();
  process.stdout.write(JSON.stringify({ counted: Number(a) }) + "\n");
} else if (mode === "reopens") {
  await ready();
  for (let i = 0; i < Number(a); i++) {
    nodeState(home).load(`reopens-${tag}`);
    closeState(home);
  }
  process.stdout.write(JSON.stringify({ reopened: Number(a) }) + "\n");
}
