/**
 * A `waits: "nested"` approval record is taken only for an agent tool of a guarded agent, and only
 * while the session's signed history still holds its check allowed and unreported. A function
 * tool's call is always checked anew, whatever record its call id has: a record written by hand
 * (or replayed) for a tool with an effect of its own must not let a second call run on the first
 * call's check.
 */
import { describe, expect, it } from "vitest";
import { CallGuard, MemoryApprovals } from "../../cli/adapters/openai-agents/index.js";
import { keyOf, sha256Key } from "../../cli/adapters/data.js";
import { recordKey } from "../../cli/adapters/records.js";
import type { PendingApproval } from "../../cli/adapters/approvals.js";
import { freshSession } from "./fixture.js";

const ARGS = { order_id: "4411", tag: "vip" };

/** A session whose last check is `tag_order` allowed and not reported, and a record naming that check. */
async function openCheck() {
  const { session } = freshSession("nested-record");
  await session.read("tag order 4411 as vip");
  const first = await session.checkToolCall("tag_order", ARGS, { origins: { order_id: "typed", tag: "typed" } });
  expect(first.decision).toBe("allow");
  const record: PendingApproval = { v: 1, tool: "tag_order", step: first.step, token: "", reasons: [], question: "", used: false, call: sha256Key(keyOf("tag_order", ARGS)!), waits: "nested" };
  return { session, first, record };
}

describe("nested approval records", () => {
  it("a function tool's call is checked anew, whatever record its id has", async () => {
    const { session, first, record } = await openCheck();
    const guard = new CallGuard(session, { approvals: new MemoryApprovals({ [recordKey(session.id, "c2")]: record }) });
    const v = await guard.check("c2", "tag_order", ARGS);
    expect(v.check.step).toBeGreaterThan(first.step);
    expect(session.history.entries.filter((e) => e.kind === "check")).toHaveLength(2);
    // the record named another call's check: it is let go
    expect(await guard.approvals.get(recordKey(session.id, "c2"))).toBeUndefined();
  });

  it("an agent tool's record is the kept check while the history holds it open, and only then", async () => {
    const { session, first, record } = await openCheck();
    const guard = new CallGuard(session, { approvals: new MemoryApprovals({ [recordKey(session.id, "c2")]: record, [recordKey(session.id, "c3")]: { ...record, call: sha256Key(keyOf("tag_order", { ...ARGS, tag: "x" })!) } }) });
    guard.nested.resumable("tag_order");
    const v = await guard.check("c2", "tag_order", ARGS);
    expect(v).toMatchObject({ decision: "allow", check: { step: first.step } });
    expect(session.history.entries).toHaveLength(first.step + 1);
    // another call's arguments under its own id: checked anew
    const other = await guard.check("c3", "tag_order", { ...ARGS, tag: "x" });
    expect(other.check.step).toBeGreaterThan(first.step);
    // reported once; the same record then backs nothing
    await guard.ran(v.check, { ok: true });
    guard.settle("c2");
    const again = new CallGuard(session, { approvals: new MemoryApprovals({ [recordKey(session.id, "c2")]: record }) });
    again.nested.resumable("tag_order");
    expect((await again.check("c2", "tag_order", ARGS)).check.step).toBeGreaterThan(first.step);
  });
});
