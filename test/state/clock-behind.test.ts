/**
 * A clock set back does not open a second ceiling. Periods are named by the clock, so a check at
 * a clock a month behind would count in a month whose row is gone or never made, from zero. Each
 * store keeps the latest time a write gave it and refuses to count in a period that ended before
 * it (rules.ts `checkClock`); a step back of a few seconds still counts where it did.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { MemoryStateStore, StalwartError, type CounterItem } from "../../worker/portable/engine/index.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { stalwart } from "../helpers/licence-cli.js";

const catalogue = join(resolve(import.meta.dirname, "../.."), "test/fixtures/ceiling.yaml");
const NOV15 = Date.parse("2026-11-15T12:00:00Z");
const NOV1 = Date.parse("2026-11-01T00:00:00Z");
const DEC1 = Date.parse("2026-12-01T00:00:00Z");
const item = (until: number, amount = 1): CounterItem => ({ key: "wallet", amount, limit: 500, until });

describe("the memory store", () => {
  it("refuses a count in a period that ended before the latest time it was given", () => {
    const store = new MemoryStateStore();
    expect(store.reserve("r1", [item(DEC1, 450)], NOV15)).toEqual({ ok: true });
    const behind = () => store.reserve("r2", [item(NOV1, 450)], Date.parse("2026-10-15T12:00:00Z"));
    expect(behind).toThrow(StalwartError);
    expect(behind).toThrow(/clock set back/);
    expect(() => store.peek([item(NOV1)], Date.parse("2026-10-15T12:00:00Z"))).toThrow(/period ended at 2026-11-01T00:00:00.000Z/);
    // the same month a few seconds back: counted where it was
    expect(store.reserve("r3", [item(DEC1, 60)], NOV15 - 3_000)).toMatchObject({ ok: false, used: 450 });
  });

  it("a period that ended within the slack still counts in its row", () => {
    const store = new MemoryStateStore();
    expect(store.reserve("r1", [item(DEC1, 1)], DEC1 + 2_000)).toEqual({ ok: true });
    expect(store.reserve("r2", [item(DEC1, 1)], DEC1 - 1_000)).toEqual({ ok: true });
  });
});

describe("the home's store, through the SDK", () => {
  it("a clock set back a month: the session counts where its history is; a new session is refused, in this client and a new one", async () => {
    const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-clock-back-")));
    let t = NOV15;
    const client = new Client({ home, now: () => new Date(t) });
    const s = client.session("a", { catalogue });
    expect((await s.checkToolCall("pay", { amount: 450 }, { origins: { amount: "context" } })).decision).toBe("allow");
    expect((await s.checkToolCall("ping", { n: 1 })).decision).toBe("allow");

    t = Date.parse("2026-10-15T12:00:00Z");
    // the session's last entry is from 15 November: its check is made then, in November
    const same = await s.checkToolCall("pay", { amount: 450 }, { origins: { amount: "context" } });
    expect(same).toMatchObject({ decision: "refuse", reasons: ["spend_exceeded"], detail: { used: 450 } });
    expect(s.history.entries.at(-1)!.at).toBe(NOV15);

    // a new session has no history to keep time by: the store refuses
    const fresh = client.session("b", { catalogue });
    const pay = await fresh.checkToolCall("pay", { amount: 450 }, { origins: { amount: "context" } });
    expect(pay).toMatchObject({ decision: "refuse", reasons: ["spend_unknown"] });
    expect(String(pay.detail.wording)).toContain("this session store was already given 2026-11-15T12:00:00.000Z");
    expect((await client.session("c", { catalogue }).checkToolCall("ping", { n: 2 })).reasons).toEqual(["usage_unknown"]);

    // The latest time is kept with the rows: a new client (a restarted process) knows it too.
    const again = new Client({ home, now: () => new Date("2026-10-20T12:00:00Z") }).session("d", { catalogue });
    expect((await again.checkToolCall("tip", { amount: 10 }, { origins: { amount: "context" } })).reasons).toEqual(["spend_unknown"]);

    // `stalwart counters status` says what the store saw last, for a clock that ran ahead
    const status = await stalwart(["counters", "status", "--home", home], {});
    expect(status.stdout).toContain("latest time  2026-11-15T12:00:00.000Z");
    expect((await stalwart(["counters", "status", "--json", "--home", home], {})).json().latest).toBe(NOV15);

    // Back to the right time, the month's count is where it was.
    t = NOV15 + 60_000;
    expect((await s.checkToolCall("pay", { amount: 60 }, { origins: { amount: "context" } })).reasons).toEqual(["spend_exceeded"]);
    expect((await s.checkToolCall("pay", { amount: 50 }, { origins: { amount: "context" } })).decision).toBe("allow");
  });
});
