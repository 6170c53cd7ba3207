/**
 * `state.mdb` cut to part of its length. LMDB maps every page its header counts, and a page past
 * the end of the file killed every process that touched the home with SIGBUS — the host, and
 * `stalwart counters status`, `doctor` and `counters reset` alike (found from outside: the way
 * back the docs name died too). Now an opening lengthens the file to the pages its header counts
 * (zeros: a lost page reads as LMDB's MDB_CORRUPTED, which is damage), and a process that has the
 * file open notices it cut short before LMDB touches it. Each case runs in processes of its own:
 * the host whose death is the defect.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, openSync, closeSync, readSync, statSync, truncateSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { builtModule } from "../helpers/built-cli.js";

const repo = resolve(import.meta.dirname, "../..");
const cli = join(repo, "dist/cli/main.js");

/** `act` (JS over `fs`, `f(name)`) run after `fill` sessions were committed, then three operations, in a fresh process on `home`. */
function host(home: string, fill: number, act = ""): { code: number | string; lines: string[] } {
  const code = `
    import * as fs from "node:fs";
    import { join } from "node:path";
    import { nodeState } from ${JSON.stringify(builtModule("cli/sdk/state/index.js"))};
    const home = ${JSON.stringify(home)};
    const f = (n) => join(home, n);
    const s = nodeState(home);
    const link = (i) => i.toString(16).padStart(64, "0");
    for (let i = 0; i < ${fill}; i++) s.commit("fill" + i, { expect: "restart", next: { count: 1, link: link(i + 1) } });
    const op = (i) => { try { s.commit("s" + i, { expect: "restart", next: { count: 1, link: link(1) } }); const h = s.load("fill7"); console.log("ok " + JSON.stringify(h?.head ?? null)); } catch (e) { console.log(e.code + " " + e.where + " " + e.message); } };
    ${act};
    op(1); op(2); op(3);`;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: repo, encoding: "utf8" });
  return { code: r.status ?? String(r.signal), lines: r.stdout.trim().split("\n") };
}

function stalwart(home: string, ...args: string[]): { code: number | string; out: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", env: { ...process.env, STALWART_HOME: home } });
  return { code: r.status ?? String(r.signal), out: r.stdout + r.stderr };
}

/** mm_last_pg of both meta pages (4 KiB pages; offsets as cli/sdk/state/lmdb-header.ts reads them) */
const LAST_PG = [24 + 120, 4096 + 24 + 120];

function lastPages(file: string): bigint[] {
  const fd = openSync(file, "r");
  try {
    return LAST_PG.map((at) => {
      const b = Buffer.alloc(8);
      readSync(fd, b, 0, 8, at);
      return b.readBigUInt64LE(0);
    });
  } finally {
    closeSync(fd);
  }
}

const home = () => mkdtempSync(join(tmpdir(), "stalwart-cut-store-"));

describe("state.mdb cut to part of its length", () => {
  it("between runs: every operation is CounterStoreDamaged (LMDB's MDB_CORRUPTED), the process lives; status names it, reset recovers", () => {
    const h = home();
    const db = join(h, "state.mdb");
    expect(host(h, 3000).lines).toEqual(['ok {"count":1,"link":"0000000000000000000000000000000000000000000000000000000000000008"}', expect.stringMatching(/^ok /), expect.stringMatching(/^ok /)]);
    const size = statSync(db).size;
    expect(size).toBeGreaterThan(100 * 4096);
    for (const cut of [Math.floor(size / 2), 3 * 4096 + 100]) {
      truncateSync(db, cut);
      const r = host(h, 0);
      expect(r.code).toBe(0);
      expect(r.lines).toHaveLength(3);
      for (const line of r.lines) expect(line).toMatch(new RegExp(`^CounterStoreDamaged ${db} .*LMDB failed: MDB_CORRUPTED`));
      // lengthened back to the pages its header counts, zeros where pages were lost
      expect(statSync(db).size).toBe(Number(lastPages(db).reduce((a, b) => (a > b ? a : b)) + 1n) * 4096);

      const status = stalwart(h, "counters", "status");
      expect(status.code).toBe(1);
      expect(status.out).toMatch(/state\s+DAMAGED: .*MDB_CORRUPTED/);
      const doctor = stalwart(h, "doctor");
      expect(doctor.out).toContain("MDB_CORRUPTED");
      const reset = stalwart(h, "counters", "reset", "--by", "test");
      expect(reset.code).toBe(0);
      expect(reset.out).toContain("reset the store under");
      expect(stalwart(h, "counters", "status").out).toMatch(/state\s+healthy/);
      // a new store: what the next cut damages
      expect(host(h, 3000).lines[0]).toMatch(/^ok /);
    }
  }, 120_000);

  it("a file shorter than the pages its header counts but missing none that LMDB reads (pages counted, never written) still opens: no false alarm", () => {
    const h = home();
    const db = join(h, "state.mdb");
    expect(host(h, 500).lines[0]).toMatch(/^ok /);
    const size = statSync(db).size;
    const pages = BigInt(size / 4096);
    // both metas count five pages more than the file holds, as LMDB does for a page taken and freed in one transaction
    const fd = openSync(db, "r+");
    for (const at of LAST_PG) {
      const b = Buffer.alloc(8);
      b.writeBigUInt64LE(pages + 4n);
      writeSync(fd, b, 0, 8, at);
    }
    closeSync(fd);
    const r = host(h, 0);
    expect(r.code).toBe(0);
    expect(r.lines).toEqual(['ok {"count":1,"link":"0000000000000000000000000000000000000000000000000000000000000008"}', expect.stringMatching(/^ok /), expect.stringMatching(/^ok /)]);
    expect(statSync(db).size).toBeGreaterThanOrEqual(size + 5 * 4096);
    expect(stalwart(h, "counters", "status").out).toMatch(/state\s+healthy/);
  }, 120_000);

  it("while in use: the process that has it open refuses (CounterStoreDamaged, cut short) instead of dying, and so does the next", () => {
    const h = home();
    const db = join(h, "state.mdb");
    const r = host(h, 2000, `fs.truncateSync(f("state.mdb"), Math.floor(fs.statSync(f("state.mdb")).size / 2))`);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(3);
    for (const line of r.lines) expect(line).toMatch(new RegExp(`^CounterStoreDamaged ${db} .*cut short while this process had it mapped`));
    const next = host(h, 0);
    expect(next.code).toBe(0);
    for (const line of next.lines) expect(line).toMatch(/^CounterStoreDamaged /);
    expect(execFileSync(process.execPath, [cli, "counters", "reset", "--by", "test"], { encoding: "utf8", env: { ...process.env, STALWART_HOME: h } })).toContain("reset the store under");
  }, 120_000);
});
