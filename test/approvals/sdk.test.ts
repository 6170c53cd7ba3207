/**
 * `run(…, {wait})` (issue 12): every confirm of the SDK becomes a pending record under the home;
 * a person's decision there (the page or the CLI, here the store itself) lets the waiting run go
 * on — an approval runs the tool once with the bound token, a denial runs nothing, an edit is
 * checked again as a new call — and each decision is a receipt in the session history.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "../../cli/sdk/index.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { homeMac } from "../../cli/approvals/mac.js";
import { showText } from "../../cli/approvals/format.js";
import { approvalStatus, decide, receiptDigest, receiptProblem, type DecisionInput } from "../../worker/portable/engine/index.js";
import { copyLicence } from "../helpers/licensed-home.js";

const catalogue = join(import.meta.dirname, "fixtures/refunds.yaml");
const origins = { order_id: "typed", amount: "model" };

function setup() {
  const home = copyLicence(mkdtempSync(join(tmpdir(), "stalwart-approvals-sdk-")));
  const s = new Client({ home }).session("refunds", { catalogue });
  const store = new FileApprovalStore(home);
  /** a person deciding the one pending record from elsewhere, as soon as it appears */
  const person = (d: Omit<DecisionInput, "at">) => {
    const t = setInterval(() => {
      const waiting = store.list().find((a) => a.receipt === null);
      if (!waiting) return;
      clearInterval(t);
      void decide(store, homeMac(home), waiting.record.id, { ...d, at: Date.now() });
    }, 20);
    return () => clearInterval(t);
  };
  return { home, s, store, person };
}

describe("run(…, {wait}) and the approval store", () => {
  it("waits, the person approves elsewhere, the tool runs once; the receipt is in the history", async () => {
    const { home, s, store, person } = setup();
    await s.read("refund 40 on order 4411");
    const runs: unknown[] = [];
    person({ decision: "approve", by: "ana", message: "checked the order" });
    const r = await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins, wait: 10_000 }, (a) => runs.push(a));
    expect(r).toMatchObject({ status: "ran", check: { decision: "allow", reasons: ["confirmed"] }, receipt: { by: "ana", decision: "approve", message: "checked the order" } });
    expect(runs).toEqual([{ order_id: "4411", amount: 40 }]);
    const a = store.get(r.approval!)!;
    expect(a.used).toBe(true);
    expect(a.record).toMatchObject({ tool: "refund_card", args: { order_id: "4411", amount: 40 }, reasons: ["argument_origin"], origins: { amount: { origin: "model" } } });
    expect(a.record.counters).toEqual([{ counter: "spend refund_card (USD)", adds: 40, ceiling: 500, per: "month", before: 0, after: 40 }]);
    expect(receiptProblem(homeMac(home), a.receipt)).toBeNull();
    const entry = s.history.entries.find((e) => e.kind === "receipt");
    expect(entry).toMatchObject({ kind: "receipt", of: a.record.step, decision: "approve", by: "ana", receipt: receiptDigest(a.receipt!) });
    // the next check still verifies the history with the receipt in it
    expect((await s.checkToolCall("get_order", { order_id: "4411" })).decision).toBe("allow");
  });

  it("a denial runs nothing and is recorded", async () => {
    const { s, person } = setup();
    let runs = 0;
    person({ decision: "deny", by: "ana", message: "not this customer" });
    const r = await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins, wait: 10_000 }, () => void runs++);
    expect(r).toMatchObject({ status: "refused", receipt: { decision: "deny", by: "ana" } });
    expect(runs).toBe(0);
    expect(s.history.entries.at(-1)).toMatchObject({ kind: "receipt", decision: "deny" });
  });

  it("an edit is checked again from step 1 with origin `reply` and needs a new approval", async () => {
    const { s, store, person } = setup();
    await s.read("refund 40 on order 4411");
    const runs: unknown[] = [];
    person({ decision: "edit", by: "ana", edited: { order_id: "4411", amount: 30 } });
    const first = s.run("refund_card", { order_id: "4411", amount: 40 }, { origins, wait: 10_000 }, (a) => runs.push(a));
    // the edited call waits as a new record; approve that one
    await new Promise((r) => setTimeout(r, 300));
    person({ decision: "approve", by: "bob" });
    const r = await first;
    expect(r).toMatchObject({ status: "ran", receipt: { by: "bob", decision: "approve" } });
    expect(runs, "run once, with the edited values, never on the old approval").toEqual([{ order_id: "4411", amount: 30 }]);
    const all = store.list();
    expect(all).toHaveLength(2);
    const [edited, original] = all;
    expect(original!.receipt).toMatchObject({ decision: "edit", edited: { amount: 30 } });
    expect(original!.used).toBe(false);
    expect(edited!.record.origins).toMatchObject({ amount: { origin: "reply" }, order_id: { origin: "typed" } });
    expect(edited!.record.reasons).toEqual(["write"]);
  });

  it("a wait that ends undecided leaves it waiting; approve(step) later runs it, as `--as` names", async () => {
    const { s, store } = setup();
    let runs = 0;
    const r = await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins, wait: 150 }, () => void runs++);
    expect(r).toMatchObject({ status: "waiting", approval: expect.stringMatching(/^p_/) });
    const done = await s.approve(r.check.step, { as: "carol" });
    expect(done).toMatchObject({ status: "ran", receipt: { by: "carol" } });
    expect(runs).toBe(1);
    expect(store.get(r.approval!)!.used).toBe(true);
  });

  it("the approved token covers only its own call; `always` covers the same digest in this session only", async () => {
    const { s, store, person } = setup();
    let runs = 0;
    person({ decision: "approve", by: "ana", always: true });
    await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins, wait: 10_000 }, () => void runs++);
    const token = store.list()[0]!.record.token;
    const other = await s.checkToolCall("refund_card", { order_id: "4411", amount: 41 }, { origins, confirmation: token });
    expect(other.decision).toBe("confirm");
    const again = await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins }, () => void runs++);
    expect(again).toMatchObject({ status: "ran", receipt: { by: "ana", message: expect.stringContaining("always for this session") } });
    const changed = await s.run("refund_card", { order_id: "4411", amount: 41 }, { origins }, () => void runs++);
    expect(changed.status).toBe("waiting");
    expect(runs).toBe(2);
  });

  it("a standing approval whose receipt was edited by hand (its MAC no longer verifies) approves no later run", async () => {
    const { home, s, store, person } = setup();
    let runs = 0;
    person({ decision: "approve", by: "ana", always: true });
    const first = await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins, wait: 10_000 }, () => void runs++);
    expect(first.status).toBe("ran");
    const file = join(home, "approvals", "receipts", `${first.approval!}.json`);
    writeFileSync(file, readFileSync(file, "utf8").replace('"by": "ana"', '"by": "mallory"'));
    const later = await s.run("refund_card", { order_id: "4411", amount: 40 }, { origins }, () => void runs++);
    expect(later.status).toBe("waiting");
    expect(runs).toBe(1);
    expect(store.get(later.approval!)!.receipt).toBeNull();
    expect(s.history.entries.filter((e) => e.kind === "receipt").map((e) => (e as { by: string }).by)).toEqual(["ana"]);
  });

  it("a confirm on a spend tool shows each counter it touches, before → after against the ceiling", async () => {
    const { s, store } = setup();
    await s.read("refund 120 on order 4410, then 50 on 4411");
    const first = await s.run("refund_card", { order_id: "4410", amount: 120 }, { origins, wait: 1 }, () => "ok");
    expect((await s.approve(first.check.step, { as: "ana" })).status).toBe("ran");
    const r = await s.run("refund_card", { order_id: "4411", amount: 50 }, { origins, wait: 1 }, () => "ok");
    expect(r.status).toBe("waiting");
    const a = store.get(r.approval!)!;
    expect(a.record.counters).toEqual([{ counter: "spend refund_card (USD)", adds: 50, ceiling: 500, per: "month", before: 120, after: 170 }]);
    expect(showText(a, Date.now())).toContain("spend refund_card (USD): 120 → 170 of 500 per month");
  });
  it("a denied call's token covers nothing, even for a host that kept it", async () => {
    const { s, person } = setup();
    await s.read("refund 40 on order 4411");
    person({ decision: "deny", by: "ana" });
    const args = { order_id: "4411", amount: 40 };
    const r = await s.run("refund_card", args, { origins, wait: 10_000 }, () => undefined);
    expect(r.status).toBe("refused");
    const token = r.check.confirmation!;
    const again = await s.checkToolCall("refund_card", args, { origins, confirmation: token });
    expect(again).toMatchObject({ decision: "confirm", detail: { confirmation: "denied" } });
  });

  it("a denial or an edit outlives its receipt file: deleted by the host, the kept token is still refused (the home's store keeps the no)", async () => {
    const { home, store } = setup();
    for (const [amount, d] of [[40, { decision: "deny", by: "ana" }], [41, { decision: "edit", by: "ana", edited: { order_id: "4411", amount: 30 } }]] as const) {
      const s = new Client({ home }).session(`refunds-${d.decision}`, { catalogue });
      await s.read("refund 40 on order 4411");
      const args = { order_id: "4411", amount };
      const waiting = await s.run("refund_card", args, { origins }, () => undefined);
      expect(waiting.status).toBe("waiting");
      const saved = JSON.parse(JSON.stringify(s.toJSON()));
      await decide(store, homeMac(home), waiting.approval!, { ...d, at: Date.now() });
      // the host deletes the receipt: the record reads as pending again
      rmSync(join(home, "approvals", "receipts", `${waiting.approval!}.json`));
      expect(store.get(waiting.approval!)!.receipt).toBeNull();
      // another process resumes the session as it was before the decision and presents the token
      const resumed = new Client({ home }).resume(saved);
      const presented = await resumed.checkToolCall("refund_card", args, { origins, confirmation: waiting.check.confirmation! });
      expect(presented, d.decision).toMatchObject({ decision: "confirm", detail: { confirmation: "denied" } });
    }
  });

  it("a token the host presents itself, before anyone decided, closes its record as used: the page and the CLI cannot approve a call that ran", async () => {
    const { home, store } = setup();
    const s = new Client({ home }).session("refunds-host", { catalogue });
    await s.read("refund 40 on order 4411");
    const args = { order_id: "4411", amount: 40 };
    const waiting = await s.run("refund_card", args, { origins }, () => undefined);
    expect(waiting.status).toBe("waiting");
    const resumed = new Client({ home }).resume(JSON.parse(JSON.stringify(s.toJSON())));
    expect(await resumed.checkToolCall("refund_card", args, { origins, confirmation: waiting.check.confirmation! })).toMatchObject({ decision: "allow", reasons: ["confirmed"] });
    expect(store.get(waiting.approval!)).toMatchObject({ used: true, receipt: null });
    await expect(decide(store, homeMac(home), waiting.approval!, { decision: "approve", by: "bob", at: Date.now() })).rejects.toMatchObject({ code: "ApprovalDecided", message: expect.stringContaining("it is spent") });
  });

  it("an approval the host spends itself (its own checkToolCall with the token) closes the record as used, not still approved", async () => {
    const { home, s, store } = setup();
    await s.read("refund 40 on order 4411");
    const args = { order_id: "4411", amount: 40 };
    const waiting = await s.run("refund_card", args, { origins }, () => undefined);
    expect(waiting.status).toBe("waiting");
    await decide(store, homeMac(home), waiting.approval!, { decision: "approve", by: "ana", at: Date.now() });
    expect(approvalStatus(store.get(waiting.approval!)!, Date.now())).toBe("approved");
    expect(await s.checkToolCall("refund_card", args, { origins, confirmation: waiting.check.confirmation! })).toMatchObject({ decision: "allow", reasons: ["confirmed"] });
    expect(store.get(waiting.approval!)).toMatchObject({ used: true, receipt: { decision: "approve", by: "ana" } });
    expect(approvalStatus(store.get(waiting.approval!)!, Date.now())).toBe("used");
  });

  it("a `typed` the check could not find in the person's turns is shown as the program's claim, flagged, not as fact", async () => {
    const { s, store } = setup();
    await s.read("refund 40 on order 4411");
    // both said to be typed; the person typed 4411 but never 41
    const waiting = await s.run("refund_card", { order_id: "4411", amount: 41 }, { origins: { order_id: "typed", amount: "typed" } }, () => undefined);
    expect(waiting).toMatchObject({ status: "waiting", check: { reasons: ["argument_origin"], detail: { arguments: ["amount"] } } });
    const a = store.get(waiting.approval!)!;
    expect(a.record.origins).toEqual({ order_id: { origin: "typed", labels: [] }, amount: { origin: "typed", labels: [], doubted: true } });
    const text = showText(a, Date.now());
    expect(text).toContain("order_id = \"4411\"  — typed by the person\n");
    expect(text).toContain("amount = 41  — typed by the person, the program says, but no message of the person holds it  [!]");
  });

  it("a value from a result is shown with the tool whose result it is, and its step (outside audit 25, F9)", async () => {
    const { s, store } = setup();
    await s.read("refund order 4411");
    const read = await s.run("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } }, () => ({ total: 40, card: "c-1" }));
    expect(read.status).toBe("ran");
    const step = read.check.step;
    const waiting = await s.run("refund_card", { order_id: "4411", amount: 40, note: "as asked" }, { origins: { order_id: "typed", amount: `result:${step}.total`, note: "model" } }, () => undefined);
    expect(waiting.status).toBe("waiting");
    const a = store.get(waiting.approval!)!;
    expect(a.record.origins.amount).toEqual({ origin: `result:${step}.total`, labels: [], tool: "get_order" });
    expect(showText(a, Date.now())).toContain(`amount = 40  — from get_order's result (step ${step}, total)\n`);
  });

  it("a decision made elsewhere while the host holds the token enters the history when the token is presented", async () => {
    const { home, s, store } = setup();
    await s.read("refund 40 on order 4411");
    const args = { order_id: "4411", amount: 40 };
    const waiting = await s.run("refund_card", args, { origins }, () => undefined);
    expect(waiting.status).toBe("waiting");
    const token = waiting.check.confirmation!;
    // the person denies on the page; the host never asks the store and presents the token itself
    await decide(store, homeMac(home), waiting.approval!, { decision: "deny", by: "ana", at: Date.now() });
    const presented = await s.checkToolCall("refund_card", args, { origins, confirmation: token });
    expect(presented).toMatchObject({ decision: "confirm", detail: { confirmation: "denied" } });
    expect(s.history.entries.filter((e) => e.kind === "receipt")).toMatchObject([{ decision: "deny", by: "ana", of: waiting.check.step }]);
    // an edit is no approval of the original call either
    const second = await s.run("refund_card", { order_id: "4411", amount: 41 }, { origins }, () => undefined);
    await decide(store, homeMac(home), second.approval!, { decision: "edit", by: "ana", at: Date.now(), edited: { order_id: "4411", amount: 30 } });
    expect(await s.checkToolCall("refund_card", { order_id: "4411", amount: 41 }, { origins, confirmation: second.check.confirmation! })).toMatchObject({ decision: "confirm", detail: { confirmation: "denied" } });
    // an approval elsewhere still lets the identical call through once
    const third = await s.run("refund_card", { order_id: "4411", amount: 42 }, { origins }, () => undefined);
    await decide(store, homeMac(home), third.approval!, { decision: "approve", by: "ana", at: Date.now() });
    expect(await s.checkToolCall("refund_card", { order_id: "4411", amount: 42 }, { origins, confirmation: third.check.confirmation! })).toMatchObject({ decision: "allow", reasons: ["confirmed"] });
  });

  it("a denial whose receipt is damaged or unreadable is not read as no denial: the token is not used", async () => {
    const { home, s, store } = setup();
    await s.read("refund 40 on order 4411");
    const args = { order_id: "4411", amount: 40 };
    const deny = async () => {
      const waiting = await s.run("refund_card", args, { origins }, () => undefined);
      await decide(store, homeMac(home), waiting.approval!, { decision: "deny", by: "ana", at: Date.now() });
      return { token: waiting.check.confirmation!, file: join(home, "approvals", "receipts", `${waiting.approval!}.json`) };
    };
    // the receipt's name edited: its MAC no longer verifies
    const edited = await deny();
    writeFileSync(edited.file, JSON.stringify({ ...JSON.parse(readFileSync(edited.file, "utf8")), by: "mallory" }));
    await expect(s.checkToolCall("refund_card", args, { origins, confirmation: edited.token })).rejects.toMatchObject({ code: "ApprovalUnreadable" });
    // the receipt cut short: the store cannot read it
    const cut = await deny();
    writeFileSync(cut.file, readFileSync(cut.file, "utf8").slice(0, 40));
    await expect(s.checkToolCall("refund_card", args, { origins, confirmation: cut.token })).rejects.toMatchObject({ code: "ApprovalUnreadable" });
    expect(s.history.entries.filter((e) => e.kind === "check" && e.decision === "allow")).toEqual([]);
  });
});
