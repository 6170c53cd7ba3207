/**
 * The gateway's own pending records (cli/gateway/asked.ts), on the engine's memory store: which ask
 * waits on an open record, and which are withdrawn as the gateway stops.
 */
import { describe, expect, it } from "vitest";
import { createHmac } from "node:crypto";
import { MemoryApprovalStore, approvalStatus, decide, type PendingRecord } from "../../worker/portable/engine/index.js";
import { AskedRecords } from "../../cli/gateway/asked.js";
import { argsDigest } from "../helpers/pending-record.js";

const K = (text: string) => new Uint8Array(createHmac("sha256", "k").update(text).digest());
const T0 = Date.parse("2031-06-01T00:00:00Z");
let n = 0;
function ask(over: Partial<PendingRecord> = {}): PendingRecord {
  n++;
  const args = over.args ?? { path: "/notes/a.txt", content: "hello" };
  return {
    v: 1, id: `p_${n.toString(16).padStart(16, "0")}`, session: "s1", step: 2 * n, tool: "write_file", agent: null, args, digest: argsDigest(args),
    origins: { path: { origin: "model", labels: [] }, content: { origin: "model", labels: [] } }, reasons: ["argument_origin"],
    wording: "`path`, `content` were not typed by you. Allow write_file?", counters: [], token: `t${n}`, created: T0, expires: T0 + 60_000, ...over,
  };
}

describe("the gateway's own pending records", () => {
  it("an ask shown the same way waits on the open record; one shown otherwise, or after a decision, is its own", async () => {
    const store = new MemoryApprovalStore();
    const asked = new AskedRecords(store);
    const add = (r: PendingRecord) => store.add(r);
    const first = await asked.enter(ask(), T0, add);
    expect((await asked.enter(ask(), T0 + 1, add)).id, "the same ask").toBe(first.id);
    const tainted = await asked.enter(ask({ reasons: ["argument_origin", "tainted_call"] }), T0 + 2, add);
    expect(tainted.id, "another reason").not.toBe(first.id);
    const copied = await asked.enter(ask({ origins: { path: { origin: "model", labels: [] }, content: { origin: "result:4.content", labels: [] } } }), T0 + 3, add);
    expect(copied.id, "another origin").not.toBe(first.id);
    await decide(store, K, first.id, { decision: "deny", by: "ana", at: T0 + 4 });
    const after = await asked.enter(ask(), T0 + 5, add);
    expect(after.id, "its record was denied").not.toBe(first.id);
    expect(store.list().length).toBe(4);
  });

  it("an expired record is neither waited on nor withdrawn", async () => {
    const store = new MemoryApprovalStore();
    const asked = new AskedRecords(store);
    const add = (r: PendingRecord) => store.add(r);
    const old = await asked.enter(ask(), T0, add);
    const next = await asked.enter(ask({ created: T0 + 60_000, expires: T0 + 120_000 }), T0 + 60_000, add);
    expect(next.id, "the old one expired").not.toBe(old.id);
    const lines: string[] = [];
    expect(await asked.withdrawAll(T0 + 60_001, (l) => lines.push(l))).toBe(1);
    expect(approvalStatus(store.get(old.id)!, T0 + 60_001)).toBe("expired");
    expect(approvalStatus(store.get(next.id)!, T0 + 60_001)).toBe("withdrawn");
    expect(lines).toEqual(["withdrew 1 pending confirmation: this gateway's session ends as it stops, so no later call can use them"]);
  });

  it("the checker's records (the check worker recorded each ask as it answered): a repeat's copy is withdrawn, a failure to is said", async () => {
    const store = new MemoryApprovalStore();
    const lines: string[] = [];
    const asked = new AskedRecords(store, { recorded: true, log: (l) => lines.push(l) });
    // the checker adds each record before the gateway sees it; the gateway adds nothing itself
    const answered = (r: PendingRecord) => (store.add(r), r);
    const first = await asked.enter(answered(ask()), T0, () => undefined);
    const copy = answered(ask());
    expect((await asked.enter(copy, T0 + 1, () => undefined)).id).toBe(first.id);
    expect(approvalStatus(store.get(copy.id)!, T0 + 1)).toBe("withdrawn");
    expect(approvalStatus(store.get(first.id)!, T0 + 1)).toBe("pending");
    // a store that cannot withdraw the copy: the ask still waits on the open record, and the log says so
    const failing = Object.assign(Object.create(store) as MemoryApprovalStore, { withdraw: () => { throw new Error("the worker is away"); } });
    const other = new AskedRecords(failing, { recorded: true, log: (l) => lines.push(l) });
    const a = await other.enter(answered(ask({ args: { path: "/notes/b.txt", content: "x" }, digest: argsDigest({ path: "/notes/b.txt", content: "x" }) })), T0, () => undefined);
    const b = answered(ask({ args: { path: "/notes/b.txt", content: "x" }, digest: argsDigest({ path: "/notes/b.txt", content: "x" }) }));
    expect((await other.enter(b, T0 + 1, () => undefined)).id).toBe(a.id);
    expect(lines).toEqual([`pending ${b.id} (the same call as an open one) not withdrawn: the worker is away`]);
  });

  it("records that are not the gateway's own are added as they come and never withdrawn", async () => {
    const store = new MemoryApprovalStore();
    const asked = new AskedRecords(undefined);
    const a = await asked.enter(ask(), T0, (r) => store.add(r));
    const b = await asked.enter(ask(), T0, (r) => store.add(r));
    expect(b.id).not.toBe(a.id);
    expect(await asked.withdrawAll(T0, () => undefined)).toBe(0);
    expect(store.list().map((x) => approvalStatus(x, T0))).toEqual(["pending", "pending"]);
  });

  it("a store that cannot be read while the gateway stops: each record it could not withdraw is named, nothing thrown", async () => {
    const store = new MemoryApprovalStore();
    const asked = new AskedRecords(store);
    const r = await asked.enter(ask(), T0, (x) => store.add(x));
    store.get = () => {
      throw new Error("disk gone");
    };
    const lines: string[] = [];
    expect(await asked.withdrawAll(T0, (l) => lines.push(l))).toBe(0);
    expect(lines).toEqual([`pending ${r.id} not withdrawn: disk gone`]);
  });
});
