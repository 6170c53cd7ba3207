/**
 * Four processes on one home share one store (LMDB's writer lock across processes): 1,000
 * concurrent spend checks never go over the ceiling and the total on disk equals what was
 * allowed; of 50 commits expecting one head exactly one succeeds, and a name is spent once.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { closeState, nodeState } from "../../cli/sdk/state/index.js";
import { storeMeta } from "../../cli/sdk/state/reset.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { builtCli } from "../helpers/built-cli.js";

const repo = resolve(import.meta.dirname, "../..");

interface Child {
  ready: Promise<void>;
  done: Promise<any>;
}

function child(args: string[]): Child {
  builtCli(); // the child runs the build: refused when it is older than the sources
  const p = spawn(process.execPath, [join(repo, "test/state/child.mjs"), ...args], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  let markReady: () => void = () => {};
  const ready = new Promise<void>((r) => (markReady = r));
  p.stdout.on("data", (d: Buffer) => {
    out += d.toString();
    if (out.includes("ready\n")) markReady();
  });
  p.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const done = new Promise<any>((res, rej) =>
    p.on("exit", (code) => {
      if (code !== 0) return rej(new Error(`child ${args.join(" ")} exited ${code}: ${err}`));
      res(JSON.parse(out.trim().split("\n").pop()!));
    }),
  );
  done.catch(() => markReady());
  return { ready, done };
}

async function all(children: Child[], go: string): Promise<any[]> {
  await Promise.all(children.map((c) => c.ready));
  writeFileSync(go, "go");
  return Promise.all(children.map((c) => c.done));
}

/**
 * 4 processes make the keys of `n` fresh homes under one folder at once (`mode`: the child's
 * "keys" or "bound"): none fails, each home has one key, and every process read that key.
 */
async function keysRace(mode: string, prefix: string, n: number): Promise<{ home: string; first: string[] }> {
  const home = mkdtempSync(join(tmpdir(), prefix));
  const go = join(home, "go");
  const results = await all(["a", "b", "c", "d"].map((tag) => child([mode, home, go, tag, String(n)])), go);
  const first: string[] = results[0].keys;
  expect(first.filter((k) => k.startsWith("error"))).toEqual([]);
  expect(new Set(first).size).toBe(n);
  for (const r of results) expect(r.keys).toEqual(first);
  return { home, first };
}

describe("four processes on one home", () => {
  it("1,000 concurrent spend checks never go over the ceiling; the total on disk equals the total allowed", async () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-4proc-")));
    const go = join(home, "go");
    // 4 processes × 10 sessions × 25 checks of 1..3 (mean 2) against one 500 ceiling.
    const results = await all(["a", "b", "c", "d"].map((tag) => child(["spend", home, go, tag, "10", "25"])), go);
    const allowed = results.reduce((n, r) => n + r.allowed, 0);
    expect(allowed).toBeLessThanOrEqual(500);
    expect(allowed).toBeGreaterThan(497); // the ceiling is used, not just respected
    for (const r of results) expect(Object.keys(r.reasons)).toEqual(["spend_exceeded"]);
    const store = nodeState(home);
    const used = store.peek([{ key: "spend|wallet|USD|month|2026-11", amount: 0, limit: 0, until: Date.UTC(2026, 11, 1) }], Date.UTC(2026, 10, 15, 12));
    expect(used.ok ? 0 : used.used).toBe(allowed);
    closeState(home);
  }, 180_000);

  it("a lock file deleted under a running process: it refuses every counted call, the processes started since count alone, none crashes", async () => {
    // LMDB's lock file holds its reader table and writer mutex. Deleted while a process had it
    // open, the processes started since made a new one and wrote alongside it: the first process
    // crashed (SIGSEGV) on the first run. It now stops using the store, naming the file.
    for (const lock of ["state.mdb-lock", "state.gate-lock"]) {
      const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-lock-")));
      const go = join(home, "go");
      const first = child(["spend", home, go, "a", "5", "20", lock]);
      await first.ready;
      const results = await all([first, child(["spend", home, go, "b", "5", "20"]), child(["spend", home, go, "c", "5", "20"])], go);
      expect(results[0].allowed).toBe(0);
      expect(Object.keys(results[0].reasons)).toHaveLength(1);
      expect(Object.keys(results[0].reasons)[0]).toContain(`its lock file \`${join(home, lock)}\` was deleted or replaced`);
      expect(results[1].allowed + results[2].allowed).toBe(400); // 2 × 5 × 20 checks of 1..3 (mean 2): under the ceiling
      for (const r of results.slice(1)) expect(r.reasons).toEqual({});
    }
  }, 180_000);

  it("2 processes commit 3,000 times each while 2 others open and close the store 150 times: no commit is lost, nothing reads as damaged", async () => {
    // Without the open gate (open-gate.ts) an opening LMDB rolls back a commit made meanwhile:
    // this failed on every one of three runs, "older than its witness".
    const home = mkdtempSync(join(tmpdir(), "stalwart-4open-"));
    const go = join(home, "go");
    const results = await all([child(["chain", home, go, "w", "3000"]), child(["chain", home, go, "v", "3000"]), child(["opens", home, go, "a", "150"]), child(["opens", home, go, "b", "150"])], go);
    expect(results).toEqual([{ count: 3000, failed: [] }, { count: 3000, failed: [] }, { opened: 150 }, { opened: 150 }]);
    const store = nodeState(home);
    expect(store.load("chain-w").head?.count).toBe(3000);
    expect(store.load("chain-v").head?.count).toBe(3000);
    closeState(home);
  }, 180_000);

  it("3 processes take and drop their handle on one store 150 times each: every operation works", async () => {
    // When a drop closed the LMDB environment, this failed on 15 of 20 runs: a close that found no
    // other process holding the lock file destroyed its mutexes while another process was opening
    // ("No transaction to renew").
    const home = mkdtempSync(join(tmpdir(), "stalwart-3reopen-"));
    const go = join(home, "go");
    const results = await all(["a", "b", "c"].map((tag) => child(["reopens", home, go, tag, "150"])), go);
    expect(results).toEqual([{ reopened: 150 }, { reopened: 150 }, { reopened: 150 }]);
  }, 180_000);

  it("4 processes start on 400 fresh homes at once: each home gets one history key, and every process reads it whole", async () => {
    await keysRace("keys", "stalwart-4key-", 400);
  }, 180_000);

  it("4 processes start clients on 40 fresh homes at once: each home gets one key, bound in its store, and none is refused as a lost key", async () => {
    const { home, first } = await keysRace("bound", "stalwart-4bound-", 40);
    for (let i = 0; i < 40; i++) {
      expect(storeMeta(join(home, `k${i}`))?.key).toBe(first[i]);
      // the home's own record of its key agrees (approvals live outside the store)
      expect(readFileSync(join(home, `k${i}`, "history.key.id"), "utf8")).toBe(`${first[i]}\n`);
    }
  }, 180_000);

  it("4 processes count and write the licence's counts 150 times each at once: the file holds all 600", async () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-4meter-")));
    const go = join(home, "go");
    const results = await all(["a", "b", "c", "d"].map((tag) => child(["meter", home, go, tag, "150"])), go);
    expect(results.map((r) => r.counted)).toEqual([150, 150, 150, 150]);
    const counters = JSON.parse(readFileSync(join(home, "licence", "counters.json"), "utf8"));
    expect(counters.months["2026-11"].tool_checks).toBe(600);
  }, 180_000);

  it("of 50 commits expecting one head from 4 processes exactly one succeeds; a name is spent once", async () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-4cas-"));
    const go = join(home, "go");
    const store = nodeState(home, { now: () => Date.UTC(2026, 10, 15, 12) }); // the children's clock: a clock behind the store's starts no session
    expect(store.commit("cas", { expect: { count: 0, link: "" }, next: { count: 5, link: "5".padStart(64, "0") } })).toEqual({ ok: true });
    const results = await all(["a", "b", "c", "d"].map((tag, i) => child(["cas", home, go, tag, String(i < 2 ? 13 : 12)])), go);
    expect(results.reduce((n, r) => n + r.heads, 0)).toBe(1);
    expect(results.reduce((n, r) => n + r.spends, 0)).toBe(1);
    expect(store.load("cas").head?.count).toBe(6);
    closeState(home);
  }, 180_000);
});
