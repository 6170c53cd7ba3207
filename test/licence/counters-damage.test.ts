/**
 * counters.json and its witness that read as JSON but hold no valid meter, or contradict each
 * other, are refused `LicenceFileUnreadable` naming the file, with `counters_damaged` recorded in
 * the witness — never read as a fresh meter (outside audit 17, F3), never an `internal_error` at
 * every check while doctor says all is well (F5). A counters file deleted or put back from an
 * older copy while its witness stays keeps the witness's counts (F4, as licences.md says).
 */
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { doctor } from "../../cli/licence/doctor.js";
import { licencePaths, openLicence } from "../../cli/licence/index.js";
import { writeFixtureInstallation } from "../helpers/licence-fixtures.js";

const now = new Date("2026-06-10T00:00:00Z");
const LIMIT = 10;

/** A home whose `tool_checks` meter is at its limit (counters and witness written); an older copy of counters.json beside it. */
async function exhaustedHome() {
  const f = await writeFixtureInstallation({ now, leaseEndsInDays: 5, meters: { tool_checks: LIMIT } });
  const h = await openLicence({ home: f.home, now: () => now, renew: false });
  h.count("tool_checks", 2);
  h.flush();
  const p = licencePaths(f.home);
  copyFileSync(p.counters, join(p.dir, "older.json"));
  h.count("tool_checks", LIMIT - 2);
  await h.close();
  return { home: f.home, p, older: join(p.dir, "older.json") };
}

const read = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, any>;
const write = (file: string, v: unknown) => writeFileSync(file, JSON.stringify(v));
const open = (home: string) => openLicence({ home, now: () => now, renew: false });

describe("damaged or contradicting meter state refuses, naming the file (F3, F5)", () => {
  const counterEdits: Record<string, (c: Record<string, any>, file: string) => unknown> = {
    "JSON null": () => null,
    "a list": () => [],
    "another installation's id": (c) => ({ ...c, installation_id: "inst_someoneelse000000000" }),
    "counts set to 0, seq raised above the witness": (c) => ({ ...c, seq: c.seq + 10, months: { "2026-06": { tool_checks: 0 } } }),
    "the month dropped, seq raised": (c) => ({ ...c, seq: c.seq + 10, months: {} }),
    "a negative count, seq raised": (c) => ({ ...c, seq: c.seq + 10, months: { "2026-06": { tool_checks: -5 } } }),
    "`months` a string (F5)": (c) => ({ ...c, months: "x" }),
    "`last_seen` not a date (F5)": (c) => ({ ...c, last_seen: "yesterday" }),
    "`seq` a string": (c) => ({ ...c, seq: "12" }),
  };
  for (const [what, edit] of Object.entries(counterEdits)) {
    test(`counters.json: ${what} → LicenceFileUnreadable naming it; the witness records counters_damaged`, async () => {
      const { home, p } = await exhaustedHome();
      write(p.counters, edit(read(p.counters), p.counters));
      const err = await open(home).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: "LicenceFileUnreadable", message: expect.stringContaining(p.counters) });
      expect((err as { hint?: string }).hint).toBeTruthy();
      expect(read(p.witness).anomalies).toContain("counters_damaged");
    });
  }

  test("the witness deleted while counters.json has counted (a rollback it would hide) → refused naming the witness", async () => {
    const { home, p, older } = await exhaustedHome();
    rmSync(p.witness);
    copyFileSync(older, p.counters);
    await expect(open(home)).rejects.toMatchObject({ code: "LicenceFileUnreadable", message: expect.stringContaining(p.witness) });
  });

  test("the witness JSON null, or another installation's → refused naming the witness", async () => {
    const { home, p } = await exhaustedHome();
    const w = read(p.witness);
    write(p.witness, null);
    await expect(open(home)).rejects.toMatchObject({ code: "LicenceFileUnreadable", message: expect.stringContaining(p.witness) });
    write(p.witness, { ...w, installation_id: "inst_someoneelse000000000" });
    await expect(open(home)).rejects.toMatchObject({ code: "LicenceFileUnreadable", message: expect.stringContaining(p.witness) });
  });

  test("doctor names the damaged counters.json and what to do, and does not say to activate (F5)", async () => {
    const { home, p } = await exhaustedHome();
    write(p.counters, { ...read(p.counters), last_seen: "yesterday" });
    const r = await doctor({ home, probe: async () => ({ ok: true, detail: "probe" }), fetch: async () => { throw new TypeError("fetch failed"); } });
    expect(r.licence).toMatchObject({ ok: false, code: "LicenceFileUnreadable", message: expect.stringContaining(p.counters) });
    expect(r.missing.join("\n")).toContain(p.counters);
    expect(r.missing.join("\n")).not.toMatch(/licence activate/);
  });

  test("once counters.json is removed the witness's counts stand and the damage is reported as an anomaly", async () => {
    const { home, p } = await exhaustedHome();
    write(p.counters, null);
    await expect(open(home)).rejects.toMatchObject({ code: "LicenceFileUnreadable" });
    rmSync(p.counters);
    const h = await open(home);
    expect(h.anomalies).toEqual(expect.arrayContaining(["counters_rolled_back", "counters_damaged"]));
    expect(() => h.count("tool_checks")).toThrow(expect.objectContaining({ code: "quota_exhausted" }));
    await h.close();
  });
});

describe("deleted or older counters.json with its witness: the witness's counts kept, the rollback noted (F4)", () => {
  for (const what of ["deleted", "put back from an older copy"]) {
    test(what, async () => {
      const { home, p, older } = await exhaustedHome();
      if (what === "deleted") rmSync(p.counters);
      else copyFileSync(older, p.counters);
      const h = await open(home);
      expect(h.anomalies).toContain("counters_rolled_back");
      expect(h.status().meters.tool_checks).toMatchObject({ used: LIMIT, remaining: 0 });
      expect(() => h.count("tool_checks")).toThrow(expect.objectContaining({ code: "quota_exhausted" }));
      await h.close();
    });
  }
});
