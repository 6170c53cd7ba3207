/**
 * The approval store and receipts (issue 12): the same cases against the store in memory and the
 * one under the home; receipts verify only as signed; a decision is made once; an expired record
 * lets nothing through; "always" covers only the same digest in the same session.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHmac } from "node:crypto";
import {
  MemoryApprovalStore, approvalStatus, callDigest, decide, makeReceipt, receiptProblem, recordShapeError, signReceipt, standingFor, standingIn, standingOf, approvedFor,
  type ApprovalStore, type PendingRecord, type SignedReceipt,
} from "../../worker/portable/engine/index.js";
import { FileApprovalStore } from "../../cli/approvals/store.js";
import { addAndFindStanding, memoryApprovals } from "../../worker/workerd/check/approvals-store.js";
import { prng } from "../helpers/prng.js";
import { argsDigest } from "../helpers/pending-record.js";

const mac = (key: string) => (text: string) => new Uint8Array(createHmac("sha256", key).update(text).digest());
const K = mac("installation-key");
const T0 = Date.parse("2026-03-01T10:00:00Z");

let n = 0;
function record(over: Partial<PendingRecord> = {}): PendingRecord {
  n++;
  const r: PendingRecord = {
    v: 1, id: `p_${n.toString(16).padStart(16, "0")}`, session: "s1", step: 3, tool: "refund_card", agent: null,
    args: { order_id: "4411", amount: 40 }, digest: "a".repeat(64), origins: { order_id: { origin: "typed", labels: [] }, amount: { origin: "model", labels: [] } },
    reasons: ["argument_origin"], wording: "`amount` was not typed by you. Allow refund_card?", counters: [],
    token: "st1.x.y", created: T0 + n, expires: T0 + 86_400_000, ...over,
  };
  // the digest the arguments have, unless a case sets another (the file store reads none other back)
  return over.digest ? r : { ...r, digest: argsDigest(r.args) };
}

const stores: [string, () => ApprovalStore][] = [
  ["memory", () => new MemoryApprovalStore()],
  ["files under the home", () => new FileApprovalStore(mkdtempSync(join(tmpdir(), "stalwart-approvals-")))],
  ["the check worker's, per tenant", () => memoryApprovals()(undefined, "acme")],
];

describe.each(stores)("approval store (%s)", (_name, make) => {
  it("lists newest first and derives each status from the receipt, the spend and the clock", async () => {
    const s = make();
    const a = record(), b = record(), c = record({ expires: T0 + 10 });
    for (const r of [a, b, c]) await s.add(r);
    expect((await s.list()).map((x) => x.record.id)).toEqual([c.id, b.id, a.id]);
    expect(approvalStatus((await s.get(a.id))!, T0 + 100)).toBe("pending");
    expect(approvalStatus((await s.get(c.id))!, T0 + 100)).toBe("expired");
    await decide(s, K, a.id, { decision: "approve", by: "ana", at: T0 + 200 });
    expect(approvalStatus((await s.get(a.id))!, T0 + 300)).toBe("approved");
    expect(await s.markUsed(a.id)).toBe(true);
    expect(await s.markUsed(a.id), "a token is handed out once").toBe(false);
    expect(approvalStatus((await s.get(a.id))!, T0 + 300)).toBe("used");
  });

  it("keeps what it was handed: a caller changing its record, or a record it got back, changes nothing stored", async () => {
    const s = make();
    const a = record({ args: { order_id: "4411", amount: 40, lines: [{ sku: "x", qty: 1 }], note: { text: "n" } } });
    await s.add(a);
    const want = structuredClone(a);
    (a.args.lines as { qty: number }[])[0]!.qty = 9;
    (a.args.note as { text: string }).text = "changed";
    a.args.amount = 1;
    a.origins.amount!.labels.push("pii");
    a.reasons.push("x");
    const got = (await s.get(a.id))!;
    expect(got.record).toEqual(want);
    (got.record.args.lines as { qty: number }[])[0]!.qty = 7;
    got.record.counters.push({ counter: "c", adds: 1, ceiling: 1, per: "day", before: null, after: null });
    const listed = (await s.list())[0]!;
    listed.record.reasons.length = 0;
    expect((await s.get(a.id))!.record).toEqual(want);
  });

  it("decides once: a second decision is refused naming the first; an expired one cannot be decided", async () => {
    const s = make();
    const a = record(), c = record({ expires: T0 + 10 });
    await s.add(a);
    await s.add(c);
    await decide(s, K, a.id, { decision: "deny", by: "ana", at: T0 + 1, message: "wrong order" });
    await expect(decide(s, K, a.id, { decision: "approve", by: "bob", at: T0 + 2 })).rejects.toMatchObject({ code: "ApprovalDecided", message: expect.stringContaining("denied by ana") });
    await expect(decide(s, K, c.id, { decision: "approve", by: "bob", at: T0 + 20 })).rejects.toMatchObject({ code: "ApprovalDecided", message: expect.stringContaining("expired") });
    expect(await s.markUsed(a.id), "a denial spends nothing").toBe(false);
    expect(approvedFor(await s.list(), "s1", "refund_card", a.digest, T0 + 30)).toBeUndefined();
    await expect(decide(s, K, "p_ffffffffffffffff", { decision: "approve", by: "bob", at: T0 })).rejects.toMatchObject({ code: "ApprovalNotFound" });
  });

  it("refuses a receipt for another call (the approval binds the digest)", async () => {
    const s = make();
    const a = record();
    await s.add(a);
    const other = signReceipt(K, makeReceipt({ ...a, digest: "b".repeat(64) }, { decision: "approve", by: "ana", at: T0 }));
    expect(await s.decide(a.id, other, T0)).toMatchObject({ ok: false, why: "mismatch" });
    expect((await s.get(a.id))!.receipt).toBeNull();
  });

  it("`always` covers the same argument digest in the same session only", async () => {
    const s = make();
    const a = record();
    await s.add(a);
    await decide(s, K, a.id, { decision: "approve", by: "ana", at: T0, always: true });
    const all = await s.list();
    expect(standingFor(all, "s1", "refund_card", null, a.digest)?.record.id).toBe(a.id);
    expect(standingFor(all, "s1", "refund_card", null, "b".repeat(64))).toBeUndefined();
    expect(standingFor(all, "s2", "refund_card", null, a.digest)).toBeUndefined();
    expect(standingFor(all, "s1", "charge_card", null, a.digest)).toBeUndefined();
    // the store's index answers what the list does
    expect(s.standing, "every store here indexes its standing approvals").toBeTypeOf("function");
    expect((await standingIn(s, "s1", "refund_card", null, a.digest))?.record.id).toBe(a.id);
    expect(await standingIn(s, "s1", "refund_card", null, "b".repeat(64))).toBeUndefined();
    expect(await standingIn(s, "s2", "refund_card", null, a.digest)).toBeUndefined();
    expect(await standingIn(s, "s1", "charge_card", null, a.digest)).toBeUndefined();
    expect(await standingIn(s, "s1", "refund_card", "billing-bot", a.digest), "another agent's call").toBeUndefined();
  });

  // outside audit 10, F5: approved as the model's own, the same arguments copied out of an
  // untrusted read since are held `tainted_call`, a question the person never saw
  it("an approval, given or standing, covers a later ask only when it is asked for the same holds", async () => {
    const s = make();
    const a = record();
    await s.add(a);
    await decide(s, K, a.id, { decision: "approve", by: "ana", at: T0, always: true });
    const same = record();
    const tainted = record({ reasons: ["argument_origin", "tainted_call"], origins: { order_id: { origin: "typed", labels: [] }, amount: { origin: "result:4.amount", labels: ["untrusted:read_inbox"] } } });
    expect((await standingOf(s, same))?.record.id).toBe(a.id);
    expect(await standingOf(s, tainted)).toBeUndefined();
    expect(await standingOf(s, record({ reasons: ["argument_origin", "tainted_call"] })), "other reasons alone").toBeUndefined();
    // the worker's record-and-find, as its confirm path takes it
    expect((await addAndFindStanding(s, same))?.record.id).toBe(a.id);
    expect(await addAndFindStanding(s, tainted)).toBeUndefined();
    const all = await s.list();
    expect(approvedFor(all, "s1", "refund_card", a.digest, T0 + 1, same)?.record.id).toBe(a.id);
    expect(approvedFor(all, "s1", "refund_card", a.digest, T0 + 1, tainted)).toBeUndefined();
  });

  it("the standing index names the newest standing approval, never a one-off or a denial", async () => {
    const s = make();
    const once = record(), denied = record(), older = record(), newer = record(), other = record({ agent: "billing-bot" });
    for (const r of [once, denied, older, newer, other]) await s.add(r);
    await decide(s, K, once.id, { decision: "approve", by: "ana", at: T0 });
    await decide(s, K, denied.id, { decision: "deny", by: "ana", at: T0 });
    expect(await standingIn(s, "s1", "refund_card", null, once.digest), "approved once is not always").toBeUndefined();
    await decide(s, K, newer.id, { decision: "approve", by: "bob", at: T0, always: true });
    await decide(s, K, older.id, { decision: "approve", by: "ana", at: T0, always: true });
    await decide(s, K, other.id, { decision: "approve", by: "cy", at: T0, always: true });
    const found = await standingIn(s, "s1", "refund_card", null, newer.digest);
    expect(found?.record.id).toBe(standingFor(await s.list(), "s1", "refund_card", null, newer.digest)?.record.id);
    expect(found?.record.id).toBe(newer.id);
    expect(found?.receipt?.by).toBe("bob");
    expect((await standingIn(s, "s1", "refund_card", "billing-bot", other.digest))?.record.id).toBe(other.id);
    await s.markUsed(newer.id);
    expect((await standingIn(s, "s1", "refund_card", null, newer.digest))?.used, "what it names is read as it is now").toBe(true);
  });
});

// The worker's store has no withdraw: a check worker's sessions outlive any one gateway.
describe.each(stores.slice(0, 2))("withdrawing a record whose session ended (%s)", (_name, make) => {
  it("closes a pending or approved-unrun record once; it can no longer be decided or found approved", async () => {
    const s = make();
    const waiting = record(), approved = record();
    for (const r of [waiting, approved]) await s.add(r);
    await decide(s, K, approved.id, { decision: "approve", by: "ana", at: T0 + 1 });
    expect(await s.withdraw!(waiting.id)).toBe(true);
    expect(await s.withdraw!(waiting.id), "once").toBe(false);
    expect(await s.withdraw!(approved.id)).toBe(true);
    expect(approvalStatus((await s.get(waiting.id))!, T0 + 2)).toBe("withdrawn");
    expect(approvalStatus((await s.get(approved.id))!, T0 + 2)).toBe("withdrawn");
    await expect(decide(s, K, waiting.id, { decision: "approve", by: "bob", at: T0 + 3 })).rejects.toThrow(/cannot be decided: it is withdrawn/);
    expect((await s.get(waiting.id))!.receipt, "no receipt stored").toBeNull();
    expect(approvedFor(await s.list(), "s1", "refund_card", approved.digest, T0 + 3), "an approval withdrawn covers nothing").toBeUndefined();
  });

  it("leaves a record that was used, denied or edited as it is", async () => {
    const s = make();
    const used = record(), denied = record(), edited = record();
    for (const r of [used, denied, edited]) await s.add(r);
    await decide(s, K, used.id, { decision: "approve", by: "ana", at: T0 + 1 });
    await s.markUsed(used.id);
    await decide(s, K, denied.id, { decision: "deny", by: "ana", at: T0 + 1 });
    await decide(s, K, edited.id, { decision: "edit", by: "ana", at: T0 + 1, edited: { order_id: "4411", amount: 4 } });
    for (const [r, status] of [[used, "used"], [denied, "denied"], [edited, "edited"]] as const) {
      expect(await s.withdraw!(r.id), status).toBe(false);
      expect(approvalStatus((await s.get(r.id))!, T0 + 2)).toBe(status);
    }
    expect(await s.withdraw!("p_00000000000000ff"), "an unknown id").toBe(false);
  });

  it("a standing approval withdrawn stands for nothing", async () => {
    const s = make();
    const always = record();
    await s.add(always);
    await decide(s, K, always.id, { decision: "approve", by: "ana", at: T0, always: true });
    expect((await standingIn(s, "s1", "refund_card", null, always.digest))?.record.id).toBe(always.id);
    await s.withdraw!(always.id);
    expect(standingFor(await s.list(), "s1", "refund_card", null, always.digest)).toBeUndefined();
    expect(await standingIn(s, "s1", "refund_card", null, always.digest)).toBeUndefined();
  });
});

describe("the home's standing index", () => {
  it("is built once for a home whose records predate it, and a damaged one names nothing it should not", async () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-approvals-"));
    const first = new FileApprovalStore(home);
    const a = record(), b = record();
    await first.add(a);
    await first.add(b);
    await decide(first, K, a.id, { decision: "approve", by: "ana", at: T0, always: true });
    // a home from before the index: no standing/ at all
    rmSync(join(home, "approvals", "standing"), { recursive: true });
    expect((await new FileApprovalStore(home).standing("s1", "refund_card", null, a.digest))?.record.id).toBe(a.id);
    // an index file edited to name a record that does not stand for this call is not believed
    const dir = join(home, "approvals", "standing");
    const [name] = readdirSync(dir).filter((n) => !n.startsWith("."));
    writeFileSync(join(dir, name!), `${b.id}\n`);
    expect(await new FileApprovalStore(home).standing("s1", "refund_card", null, a.digest)).toBeUndefined();
  });
});

describe("a damaged file under the home's approvals", () => {
  const damage: [string, string][] = [["emptied", ""], ["cut short", '{"v": 1, "id": "p_'], ["not a record", "null"], ["a list", "[]"]];

  it.each(damage)("a record %s is ApprovalUnreadable naming the file, from get, list and decide", async (_what, text) => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-approvals-"));
    const s = new FileApprovalStore(home);
    const a = record();
    s.add(a);
    const file = join(home, "approvals", "pending", `${a.id}.json`);
    writeFileSync(file, text);
    for (const read of [() => s.get(a.id), () => s.list(), () => decide(s, K, a.id, { decision: "approve", by: "ana", at: T0 })]) {
      await expect(async () => read()).rejects.toMatchObject({ code: "ApprovalUnreadable", message: expect.stringContaining(file) });
    }
  });

  it.each([
    ["a time that is not one", { created: "yesterday" }],
    ["no origins", { origins: null }],
    ["arguments that are not an object", { args: "x" }],
    ["a counter without its numbers", { counters: [{ counter: "c", per: "month" }] }],
  ])("a record that is JSON but holds %s is ApprovalUnreadable (it printed RangeError / TypeError)", (_what, over) => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-approvals-"));
    const s = new FileApprovalStore(home);
    const a = record();
    s.add(a);
    writeFileSync(join(home, "approvals", "pending", `${a.id}.json`), JSON.stringify({ ...a, ...over }));
    expect(() => s.list()).toThrow(expect.objectContaining({ code: "ApprovalUnreadable" }));
  });

  it("a record under another id's name, or a damaged receipt, is ApprovalUnreadable too", async () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-approvals-"));
    const s = new FileApprovalStore(home);
    const a = record(), b = record();
    s.add(a);
    s.add(b);
    writeFileSync(join(home, "approvals", "pending", `${b.id}.json`), JSON.stringify(a));
    expect(() => s.get(b.id)).toThrow(expect.objectContaining({ code: "ApprovalUnreadable" }));
    await decide(s, K, a.id, { decision: "deny", by: "ana", at: T0 });
    const receipt = join(home, "approvals", "receipts", `${a.id}.json`);
    writeFileSync(receipt, "");
    expect(() => s.get(a.id)).toThrow(expect.objectContaining({ code: "ApprovalUnreadable", message: expect.stringContaining(receipt) }));
    writeFileSync(receipt, JSON.stringify({ decision: "deny", by: "ana", at: "x" }));
    expect(() => s.get(a.id)).toThrow(expect.objectContaining({ code: "ApprovalUnreadable", message: expect.stringContaining(receipt) }));
  });

  it("a record that is a link to a file elsewhere is not followed, and no error quotes what a file holds (outside audit 23, F3)", () => {
    const home = mkdtempSync(join(tmpdir(), "stalwart-approvals-"));
    const s = new FileApprovalStore(home);
    const a = record(), b = record();
    s.add(a);
    s.add(b);
    const elsewhere = join(mkdtempSync(join(tmpdir(), "stalwart-elsewhere-")), "secret");
    writeFileSync(elsewhere, "root:x:0:0:secret-words\n");
    const pending = join(home, "approvals", "pending", `${a.id}.json`);
    rmSync(pending);
    symlinkSync(elsewhere, pending);
    const linked = (() => { try { s.get(a.id); } catch (e) { return e as Error & { code?: string }; } })();
    expect(linked).toMatchObject({ code: "ApprovalUnreadable", message: expect.stringContaining("is a symbolic link, which is not followed here") });
    expect(linked!.message).not.toContain("root:x");
    // a damaged record in place: said to be no JSON, without its text
    writeFileSync(join(home, "approvals", "pending", `${b.id}.json`), "root:x:0:0:secret-words");
    const damaged = (() => { try { s.get(b.id); } catch (e) { return e as Error & { code?: string }; } })();
    expect(damaged).toMatchObject({ code: "ApprovalUnreadable", message: expect.stringContaining("it is not JSON") });
    expect(damaged!.message).not.toContain("root:x");
  });
});

describe("receipts", () => {
  const base = () => signReceipt(K, makeReceipt(record(), { decision: "approve", by: "ana", at: T0, message: "ok" }));

  it("verify as signed and bind the exact call", () => {
    const r = base();
    expect(receiptProblem(K, r)).toBeNull();
    expect(r.call).toBe(callDigest({ session: "s1", step: 3, tool: "refund_card", agent: null, digest: argsDigest({ order_id: "4411", amount: 40 }) }));
    expect(receiptProblem(mac("another-key"), r)).toMatch(/MAC does not verify/);
  });

  it("fail verification after any edit by hand (property: 500 random edits)", () => {
    const rand = prng(12);
    const edits: ((r: Record<string, unknown>) => void)[] = [
      (r) => (r.by = `${String(r.by)}x`),
      (r) => (r.decision = r.decision === "approve" ? "deny" : "approve"),
      (r) => (r.at = (r.at as number) + 1 + Math.floor(rand() * 1000)),
      (r) => (r.args = "b".repeat(64)),
      (r) => (r.session = "s2"),
      (r) => (r.ask = (r.ask as number) + 1),
      (r) => (r.message = "changed"),
      (r) => (r.always = !r.always),
      (r) => (r.tool = "charge_card"),
      (r) => (r.call = "c".repeat(64)),
      (r) => (r.extra = 1),
      (r) => delete r.message,
      (r) => {
        const m = r.mac as string;
        const i = Math.floor(rand() * m.length);
        r.mac = m.slice(0, i) + (m[i] === "0" ? "1" : "0") + m.slice(i + 1);
      },
    ];
    for (let i = 0; i < 500; i++) {
      const r = structuredClone(base()) as unknown as Record<string, unknown>;
      // one to three different edits (the same one twice may undo itself)
      const picked = new Set<number>();
      const k = 1 + Math.floor(rand() * 3);
      while (picked.size < k) picked.add(Math.floor(rand() * edits.length));
      for (const j of picked) edits[j]!(r);
      expect(receiptProblem(K, r), JSON.stringify(r)).not.toBeNull();
    }
  });

  it("an edit carries the new arguments; only an edit does", () => {
    const r = signReceipt(K, makeReceipt(record(), { decision: "edit", by: "ana", at: T0, edited: { order_id: "4411", amount: 30 } }));
    expect(receiptProblem(K, r)).toBeNull();
    const forged = { ...r, decision: "approve" } as SignedReceipt;
    expect(receiptProblem(K, forged)).not.toBeNull();
  });
});

describe("a record's origins as read back", () => {
  it("may name the tool whose result an origin is, as a string only", () => {
    const origins = (tool: unknown) => ({ order_id: { origin: "typed", labels: [] }, amount: { origin: "result:2.total", labels: [], tool } });
    expect(recordShapeError(record({ origins: origins("get_order") as PendingRecord["origins"] }))).toBeNull();
    expect(recordShapeError(record({ origins: origins(7) as unknown as PendingRecord["origins"] }))).toBe("its origins are unreadable");
    expect(recordShapeError(record({ origins: origins({ name: "get_order" }) as unknown as PendingRecord["origins"] }))).toBe("its origins are unreadable");
  });
});
