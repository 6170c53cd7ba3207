/**
 * The guarded step (interfaces.md): run → ran | waiting | refused | failed; approve / deny;
 * rollback in reverse order with bound arguments, each checked at step 6; outcome following;
 * filter on reads.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../../cli/sdk/index.js";
import { copyLicence } from "../helpers/licensed-home.js";

const catalogue = join(import.meta.dirname, "../fixtures/guarded.yaml");
const fresh = (now?: () => Date) => new Client({ home: copyLicence(mkdtempSync(join(tmpdir(), "stalwart-guarded-"))), ...(now ? { now } : {}) });

describe("guarded step", () => {
  it("runs an allowed call once and reports it; a throwing impl is `failed`", async () => {
    const s = fresh().session("g", { catalogue });
    let calls = 0;
    const ran = await s.run("charge_card", { order_id: "A1", amount: 5 }, { origins: { order_id: "context", amount: "context" } }, () => {
      calls++;
      return { charge_id: "ch_1" };
    });
    expect(ran).toMatchObject({ status: "ran", result: { charge_id: "ch_1" }, check: { decision: "allow" } });
    expect(calls).toBe(1);
    const report = s.history.entries.at(-1) as unknown as Record<string, unknown>;
    expect(report).toMatchObject({ kind: "report", of: ran.check.step, outcome: "ran", result: { charge_id: "ch_1" } });
    const failed = await s.run("charge_card", { order_id: "A2", amount: 5 }, { origins: { order_id: "context", amount: "context" } }, () => {
      throw new Error("card declined");
    });
    expect(failed).toMatchObject({ status: "failed", error: "card declined" });
    expect(s.history.entries.at(-1)).toMatchObject({ kind: "report", outcome: "failed" });
  });

  it("waits for a person: approve runs it with the token; deny runs nothing; refused never runs", async () => {
    const s = fresh().session("g", { catalogue });
    let sent = 0;
    const impl = () => void sent++;
    const waiting = await s.run("send_invoice", { to: "ana" }, { origins: { to: "model" } }, impl);
    expect(waiting.status).toBe("waiting");
    expect(waiting.check.detail.wording).toMatch(/Allow send_invoice\?/);
    expect(sent).toBe(0);
    const approved = await s.approve(waiting.check.step);
    expect(approved).toMatchObject({ status: "ran", check: { decision: "allow", reasons: ["confirmed"] } });
    expect(sent).toBe(1);
    await expect(s.approve(waiting.check.step)).rejects.toThrow(/not waiting/);
    const again = await s.run("send_invoice", { to: "bo" }, { origins: { to: "model" } }, impl);
    expect(await s.deny(again.check.step)).toMatchObject({ status: "refused" });
    expect(sent).toBe(1);
    const refused = await s.run("nope", {}, {}, impl);
    expect(refused).toMatchObject({ status: "refused", check: { reasons: ["unknown_tool"] } });
    expect(sent).toBe(1);
  });

  it("rollback sends the declared undos in reverse order, bound to each step, each checked", async () => {
    const s = fresh().session("g", { catalogue });
    const undone: string[] = [];
    await s.read("book flight LX12 and pay");
    const seat = await s.run("reserve_seat", { flight: "LX12" }, { origins: { flight: "typed" }, undo: (a) => void undone.push(`release ${JSON.stringify(a)}`) }, () => ({ seat: "14C" }));
    const charge = await s.run("charge_card", { order_id: "A1", amount: 90 }, { origins: { order_id: "context", amount: "context" }, undo: (a) => void undone.push(`refund ${JSON.stringify(a)}`) }, () => ({ charge_id: "ch_9" }));
    expect([seat.status, charge.status]).toEqual(["ran", "ran"]);
    const steps = await s.rollback();
    expect(steps.map((x) => [x.tool, x.status, x.check?.reasons])).toEqual([
      ["refund_charge", "ran", ["compensation"]],
      ["release_seat", "ran", ["compensation"]],
    ]);
    expect(undone).toEqual([`refund {"charge_id":"ch_9","amount":90}`, `release {"flight":"LX12","seat":"14C"}`]);
    // Each original step is reported compensated; a second rollback has nothing left to undo.
    expect(s.history.entries.filter((e) => e.kind === "report" && (e as { outcome: string }).outcome === "compensated").length).toBe(2);
    expect(await s.rollback()).toEqual([]);
  });

  it("rollback without an undo implementation runs nothing and says so", async () => {
    const s = fresh().session("g", { catalogue });
    await s.run("reserve_seat", { flight: "LX12" }, { origins: { flight: "context" } }, () => ({ seat: "1A" }));
    expect((await s.rollback()).map((x) => x.status)).toEqual(["no_undo_impl"]);
  });

  it("follows a write's outcome until done, failed, or give_up_after (then outcome_unknown)", async () => {
    let t = Date.parse("2026-11-29T12:00:00Z");
    const now = () => new Date(t);
    const sleep = async (ms: number) => void (t += ms);
    const s = fresh(now).session("g", { catalogue });
    const statuses = ["pending", "pending", "filled"];
    const done = await s.run("place_order", { symbol: "ACME" }, { origins: { symbol: "context" }, follow: () => ({ order_id: "o1", status: statuses.shift() }), sleep, pollMs: 60_000 }, () => ({ order_id: "o1" }));
    expect(done).toMatchObject({ status: "ran", outcome: "ran" });
    const rejected = await s.run("place_order", { symbol: "ACME" }, { origins: { symbol: "context" }, follow: () => ({ order_id: "o2", status: "rejected" }), sleep }, () => ({ order_id: "o2" }));
    expect(rejected).toMatchObject({ status: "failed", outcome: "failed" });
    const slow = await s.run("place_order", { symbol: "ACME" }, { origins: { symbol: "context" }, follow: () => ({ order_id: "o3", status: "pending" }), sleep, pollMs: 20 * 60_000 }, () => ({ order_id: "o3" }));
    expect(slow).toMatchObject({ status: "ran", outcome: "outcome_unknown" });
    expect(s.history.entries.at(-1)).toMatchObject({ kind: "report", of: slow.check.step, outcome: "outcome_unknown" });
  });

  it("filter passes on only the kept records", async () => {
    const s = fresh().session("g", { catalogue });
    const resume = await s.run("read_resume", {}, {}, () => ({ skills: ["ts", "sql"] }));
    expect(resume.status).toBe("ran");
    const search = await s.run("search_jobs", { q: "dev" }, {}, () => ({
      jobs: [
        { id: "a", salary_min: 90000, required_skills: ["ts"] },
        { id: "b", salary_min: 50000, required_skills: ["ts"] },
        { id: "c", salary_min: 95000, required_skills: ["go"] },
        { id: "d", salary_min: 80000, required_skills: [] },
      ],
    }));
    const kept = (await s.filter(search.check.step, search.result)) as { jobs: { id: string }[] };
    expect(kept.jobs.map((j) => j.id)).toEqual(["a", "d"]);
  });

  it("an impl's result canonical JSON refuses (a lone surrogate, Infinity, deep nesting) is still `ran`, recorded and undone", async () => {
    // The impl has run: its side effect happened. A result the history cannot hold as it is must
    // neither make `run` throw nor drop the step from what rollback undoes.
    const s = fresh().session("g", { catalogue });
    const undone: string[] = [];
    const charge = await s.run("charge_card", { order_id: "A1", amount: 90 }, { origins: { order_id: "context", amount: "context" }, undo: (a) => void undone.push(JSON.stringify(a)) }, () => ({ charge_id: "ch_\ude00", score: Infinity, deep: nested(300) }));
    expect(charge).toMatchObject({ status: "ran", check: { decision: "allow" } });
    expect(s.history.entries.at(-1)).toMatchObject({ kind: "report", of: charge.check.step, outcome: "ran", result: { charge_id: "ch_\ufffd" } });
    expect((await s.rollback()).map((x) => [x.tool, x.status])).toEqual([["refund_charge", "ran"]]);
    // bound from what the history holds of the result
    expect(undone).toEqual(['{"charge_id":"ch_\ufffd","amount":90}']);
  });

  it("an undo that ran, whose result canonical JSON refuses, is `ran` and its step compensated, not `failed`", async () => {
    // reported failed, a refund that went through would read as one to try again
    const s = fresh().session("g", { catalogue });
    await s.run("charge_card", { order_id: "A1", amount: 90 }, { origins: { order_id: "context", amount: "context" }, undo: () => ({ note: "refunded \ud83d", deep: nested(300) }) }, () => ({ charge_id: "ch_1" }));
    expect((await s.rollback()).map((x) => [x.tool, x.status])).toEqual([["refund_charge", "ran"]]);
    const outcomes = s.history.entries.filter((e) => e.kind === "report").map((e) => (e as { outcome: string }).outcome);
    expect(outcomes).toEqual(["ran", "ran", "compensated"]);
  });
});

function nested(n: number): unknown {
  let v: unknown = "x";
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}
