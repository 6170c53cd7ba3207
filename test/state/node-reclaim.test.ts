/**
 * The Node store stays bounded by what is live: counters of ended periods, reservations with
 * nothing left to give back, and sessions (with their spent names) and never-ending counters idle
 * past IDLE_MS are reclaimed, a few rows per write — and live rows never are.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { closeState, nodeState, stateStatus } from "../../cli/sdk/state/index.js";
import { stateRules, type CounterItem } from "../../worker/portable/engine/index.js";

const DAY = 86_400_000;
const month = (key: string, now: number): CounterItem => {
  const d = new Date(now);
  return { key: `${key}|${d.toISOString().slice(0, 7)}`, amount: 1, limit: 1000, until: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
};
const link = (n: number) => n.toString(16).padStart(64, "0");

describe("reclaiming the Node store", () => {
  it("drops ended periods, spent reservations and idle sessions; keeps what is live", () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-reclaim-"));
    let clock = Date.UTC(2026, 9, 10);
    const store = nodeState(home, { now: () => clock });
    for (let i = 0; i < 200; i++) store.reserve(`oct-${i}`, [month(`spend|p${i % 50}`, clock)], clock);
    for (let i = 0; i < 40; i++) store.commit(`idle-${i}`, { expect: { count: 0, link: "" }, next: { count: 1, link: link(i) }, spend: [`token:${i}`] });
    const session: CounterItem = { key: "rate|ping|session|s:idle", amount: 1, limit: 1000, until: 0 };
    store.reserve("per-session", [session], clock);
    const live = "live";
    store.commit(live, { expect: { count: 0, link: "" }, next: { count: 1, link: link(1) }, spend: ["token:live"], tally: { "at_most:pay": 1 } });
    expect(stateStatus(home).rows).toMatchObject({ counters: 51, reservations: 201, sessions: 41, spent: 41 });

    // Keep one session in use through the idle time; move the clock in steps, as real use would.
    let n = 1;
    for (clock = Date.UTC(2026, 9, 20); clock < Date.UTC(2026, 11, 20); clock += DAY) {
      expect(store.commit(live, { expect: { count: n, link: link(n) }, next: { count: n + 1, link: link(n + 1) } })).toEqual({ ok: true });
      n++;
      store.reserve(`dec-${clock}`, [month("spend|p0", clock)], clock);
    }
    const rows = stateStatus(home).rows!;
    // Live: this month's counter (and maybe last month's within its day of grace), the reservations
    // still able to give back, the session in use with its one spent name.
    expect(rows.sessions).toBe(1);
    expect(rows.spent).toBe(1);
    expect(rows.counters).toBeLessThanOrEqual(2);
    expect(rows.reservations).toBeLessThanOrEqual(31 + 1);
    const st = store.load(live);
    expect(st.head?.count).toBe(n);
    expect([...st.spent]).toEqual(["token:live"]);
    expect(st.tallies["at_most:pay"]).toBe(1);
    expect(store.load("idle-3").head).toBeNull(); // reclaimed after IDLE_MS: its history no longer continues
    expect(stateRules.IDLE_MS).toBe(30 * DAY);
    closeState(home);
  });
});
