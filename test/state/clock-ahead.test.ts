/**
 * A process whose clock is ahead shares the home with one whose clock is right (outside audit,
 * state: F1, F3, F4, F7). Every write reclaims what is due by its writer's clock, so the store's
 * time is the latest any write gave it: a counted call behind it is refused (`checkClock`), a
 * session the store keeps nothing for cannot start behind it (`checkSessionClock`: its row may be
 * one that later time reclaimed), and a restarted history's times start no earlier than the
 * store's last commit for its session (an expired token's ask cannot be replayed at its old time).
 * Two clients on one home, each with its own clock, are two processes' stores on one file.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Client, type ClientSession } from "../../cli/sdk/index.js";
import { MemoryStateStore } from "../../worker/portable/engine/index.js";
import { copyLicence } from "../helpers/licensed-home.js";
import { REPO } from "../conformance/runner.js";

const SHOP = join(REPO, "examples/shop/agent.yaml");
const T0 = Date.parse("2026-11-10T12:00:00Z");
const DAY = 86_400_000;
const home = () => copyLicence(mkdtempSync(join(tmpdir(), "stalwart-clock-ahead-")));
const ctx = { origins: { order_id: "context", amount: "context" } };

/** A client on `home` whose clock reads `at()`; its sessions are named by the test. */
function clientAt(h: string, at: () => number): Client {
  return new Client({ home: h, now: () => new Date(at()) });
}

/** Uncounted reads in sessions of their own, by a client whose clock is ahead: every one reclaims what is due by it. */
async function readsAhead(h: string, ahead: number, n = 20): Promise<void> {
  const c = clientAt(h, () => T0 + ahead);
  for (let i = 0; i < n; i++) expect((await c.session(`ahead-${i}`, { catalogue: SHOP }).checkToolCall("get_order", { order_id: "1" })).decision).toBe("allow");
}

describe("a process whose clock is ahead does not lift what the home keeps for one whose clock is right", () => {
  it("a month's spend ceiling (F7): 60 days ahead, then 500 more on the right clock is refused, not counted from zero", async () => {
    const h = home();
    const s = clientAt(h, () => T0).session("pay", { catalogue: SHOP });
    expect((await s.checkToolCall("charge_card", { order_id: "A1", amount: 500 }, ctx)).decision).toBe("allow");
    expect((await s.checkToolCall("charge_card", { order_id: "A2", amount: 500 }, ctx)).reasons).toEqual(["spend_exceeded"]);
    await readsAhead(h, 60 * DAY);
    // a new session on the right clock: the store has seen a later time, and may have reclaimed November
    const fresh = await clientAt(h, () => T0 + 1000).session("pay-2", { catalogue: SHOP }).checkToolCall("charge_card", { order_id: "A3", amount: 500 }, ctx);
    expect(fresh.decision).toBe("refuse");
    expect(fresh.reasons).toEqual(["spend_unknown"]);
    expect(String(fresh.detail.wording)).toMatch(/clock set back, or another process's clock ahead/);
    // the session that counted: it keeps its row, and counting behind the store's time is refused
    const same = await s.checkToolCall("charge_card", { order_id: "A4", amount: 500 }, ctx);
    expect(same.decision).toBe("refuse");
  });

  it("a daily rate limit (F7): 2 days ahead is enough to have reclaimed today's count; today's next call is refused", async () => {
    const h = home();
    const payouts = {
      tools: [{ name: "send_payout", writes: true, confirm: "when_held", at_most: [{ count: 1, per: "day" }], args: { type: "object", properties: { to: { type: "string" } }, required: ["to"], additionalProperties: false } }],
    };
    const s = clientAt(h, () => T0).session("payouts", { catalogue: payouts });
    const payout = async () => s.checkToolCall("send_payout", { to: "acct-1" }, { origins: { to: "context" } });
    expect((await payout()).decision).toBe("allow");
    expect((await payout()).reasons).toEqual(["limit_reached"]);
    await readsAhead(h, 2 * DAY);
    const again = await payout();
    expect(again.decision).toBe("refuse");
    expect(again.reasons).toEqual(["usage_unknown"]);
  });

  it("`at_most: 1` (F3): a session reclaimed by a clock 31 days ahead is not started again on the right clock", async () => {
    const h = home();
    const c = clientAt(h, () => T0);
    const s = c.session("sub", { catalogue: SHOP });
    const sub = await s.checkToolCall("subscribe", { plan: "pro" }, { origins: { plan: "context" } });
    expect(sub.decision).toBe("allow");
    await s.report(sub.step, "ran");
    expect((await s.checkToolCall("subscribe", { plan: "pro" }, { origins: { plan: "context" } })).reasons).toEqual(["order_rule"]);
    await readsAhead(h, 31 * DAY);
    // the row is gone: the store cannot vouch for this session (its own history still counts the subscribe)
    const after = await s.checkToolCall("subscribe", { plan: "pro" }, { origins: { plan: "context" } });
    expect(after.reasons).toEqual(["order_rule"]);
    const other = await s.checkToolCall("get_order", { order_id: "1" });
    expect(other.reasons).toEqual(["history_invalid"]);
    expect(other.detail).toMatchObject({ error: "ClockBehind" });
    await expect(s.read("subscribe me again")).rejects.toMatchObject({ code: "ClockBehind" });
    const resumed = clientAt(h, () => T0 + 5000).resume(JSON.parse(JSON.stringify(s)) as never);
    expect((await resumed.checkToolCall("subscribe", { plan: "pro" }, { origins: { plan: "context" } })).decision).toBe("refuse");
  });

  it("a used token (F4): clock ahead, reclaimed, clock set back, the history replayed: the token is not accepted twice", async () => {
    const h = home();
    let t = T0;
    const c = clientAt(h, () => t);
    const s = c.session("trade", { catalogue: SHOP });
    const saved = () => JSON.parse(JSON.stringify(s)) as never;
    const start = saved();
    await s.read("buy 10 of ACME");
    t += 1000;
    const ask = await s.checkToolCall("place_trade", { symbol: "ACME", amount: 10 }, { origins: { symbol: "typed", amount: "typed" } });
    expect(ask.decision).toBe("confirm");
    t += 1000;
    const used = await s.checkToolCall("place_trade", { symbol: "ACME", amount: 10 }, { origins: { symbol: "typed", amount: "typed" }, confirmation: ask.confirmation! });
    expect(used.decision).toBe("allow");
    t = T0 + 33 * DAY;
    await readsAhead(h, 33 * DAY);
    t = T0;
    const replay = c.resume(start) as ClientSession;
    const again = await replay.read("buy 10 of ACME").then(
      () => "read",
      (e: { code?: string }) => e.code,
    );
    expect(again).toBe("ClockBehind");
    t = T0 + 2000;
    const second = await replay.checkToolCall("place_trade", { symbol: "ACME", amount: 10 }, { origins: { symbol: "typed", amount: "typed" }, confirmation: ask.confirmation! });
    expect(second.decision).not.toBe("allow");
  });

  it("an expired token (F1): a restarted history's times start at the store's last commit for the session, so the replayed ask is expired too", async () => {
    const h = home();
    let t = T0;
    const c = clientAt(h, () => t);
    const s = c.session("trade", { catalogue: SHOP });
    const start = JSON.parse(JSON.stringify(s)) as never;
    await s.read("buy 10 of ACME");
    t += 1000;
    const ask = await s.checkToolCall("place_trade", { symbol: "ACME", amount: 10 }, { origins: { symbol: "typed", amount: "typed" } });
    t = T0 + 3 * DAY;
    const late = await s.checkToolCall("place_trade", { symbol: "ACME", amount: 10 }, { origins: { symbol: "typed", amount: "typed" }, confirmation: ask.confirmation! });
    expect(late.detail.confirmation).toBe("expired");
    // an older copy, the same turn and ask at their old times
    t = T0;
    const old = c.resume(start) as ClientSession;
    expect((await old.read("buy 10 of ACME")).restarted).toBeDefined();
    expect(old.history.entries[0]!.at).toBe(T0 + 3 * DAY); // not before what the store last committed
    t = T0 + 1000;
    const reask = await old.checkToolCall("place_trade", { symbol: "ACME", amount: 10 }, { origins: { symbol: "typed", amount: "typed" } });
    expect(reask.decision).toBe("confirm");
    t = T0 + 2000;
    const replayed = await old.checkToolCall("place_trade", { symbol: "ACME", amount: 10 }, { origins: { symbol: "typed", amount: "typed" }, confirmation: ask.confirmation! });
    expect(replayed.decision).toBe("confirm");
    expect(replayed.detail.confirmation).toBe("expired");
  });
});

describe("the memory store keeps time the same way", () => {
  it("a session it keeps nothing for cannot start behind the latest time a write gave it; one it keeps says when it last committed", () => {
    let t = T0;
    const store = new MemoryStateStore({ now: () => t });
    expect(store.commit("a", { expect: { count: 0, link: "" }, next: { count: 1, link: "1".padStart(64, "0") } })).toEqual({ ok: true });
    expect(store.load("a").at).toBe(T0);
    t = T0 + 40 * DAY;
    expect(store.commit("b", { expect: { count: 0, link: "" }, next: { count: 1, link: "2".padStart(64, "0") } })).toEqual({ ok: true });
    t = T0 + 1000;
    expect(() => store.load("c")).toThrow(/clock set back, or another process's clock ahead/);
    expect(() => store.commit("c", { expect: { count: 0, link: "" }, next: { count: 1, link: "3".padStart(64, "0") } })).toThrow(/ClockBehind|clock/);
    t = T0 + 40 * DAY - 2000; // within the slack
    expect(store.load("c").head).toBeNull();
  });
});
