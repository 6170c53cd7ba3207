/**
 * A guarded agent run as a guarded agent's tool (`asTool`) whose nested run stops for a person: the
 * outer call is checked once and reported once, when it has run — after the approval, with the
 * nested agent's answer — and the nested tool runs once; in-process, from a saved `RunState`
 * restored on the same agent, and in a new client (where the outer call is checked again, since
 * only approvals are kept across processes, and still reported once); and two levels deep.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Agent, run, RunState, setTracingDisabled, tool, type RunToolApprovalItem } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { Client } from "../../cli/sdk/index.js";
import { guard, guardOf, MemoryApprovals, questionFor, type CheckEvent, type GuardSession } from "../../cli/adapters/openai-agents/index.js";
import type { CheckEntry, Entry } from "../../worker/portable/engine/index.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { bodies, CATALOGUE } from "./fixture.js";

beforeAll(() => setTracingDisabled(true));

/** The billing catalogue and the desk: the billing agent, as the front agent's tool. */
const DESK = `${CATALOGUE}
  - name: billing_desk
    args: {type: object, properties: {input: {type: string}}, required: [input], additionalProperties: false}
  - name: concierge
    args: {type: object, properties: {input: {type: string}}, required: [input], additionalProperties: false}
`;
const call = (name: string, args: Record<string, unknown>, callId: string) => [functionCall(name, args, { callId })];
const said = (text: string) => [assistantMessage(text)];
const checksOf = (entries: Entry[], tool: string) => entries.filter((e): e is CheckEntry => e.kind === "check" && e.tool === tool);
const reportsOf = (entries: Entry[], tool: string) => {
  const steps = new Set(checksOf(entries, tool).map((c) => c.step));
  return entries.filter((e) => e.kind === "report" && steps.has(e.of));
};

/** The front agent (guarded) with the billing agent (guarded, same session; its approvals in `approvals`) as its `billing_desk` tool. */
function desk(session: GuardSession, approvals?: MemoryApprovals, frontApprovals?: MemoryApprovals) {
  const b = bodies();
  const events: CheckEvent[] = [];
  const onCheck = (e: CheckEvent) => void events.push(e);
  const inner = new ScriptedModel();
  const outer = new ScriptedModel();
  const billing = guard(new Agent({ name: "billing", instructions: "help", model: inner, tools: [
    tool({ name: "get_order", description: "an order", parameters: z.object({ order_id: z.string() }), execute: (a) => b.impl.get_order(a) }),
    tool({ name: "refund_card", description: "refund", parameters: z.object({ order_id: z.string(), amount: z.number() }), execute: (a) => b.impl.refund_card(a) }),
  ] }), session, { onCheck, ...(approvals ? { approvals } : {}) });
  const front = guard(new Agent({ name: "front", instructions: "help", model: outer, tools: [billing.asTool({ toolName: "billing_desk", toolDescription: "billing" })] }), session, { onCheck, ...(frontApprovals ? { approvals: frontApprovals } : {}) });
  return { b, events, inner, outer, billing, front };
}

function fresh() {
  const home = licensedHome("adapters");
  return { home, session: new Client({ home }).session("nested", { catalogue: DESK }) };
}

/** The first run: the desk's nested refund waits for a person. */
async function firstRun(d: ReturnType<typeof desk>, session: GuardSession) {
  d.outer.enqueue(call("billing_desk", { input: "refund 40.00 on order 4411" }, "o1"));
  d.inner.enqueue(call("get_order", { order_id: "4411" }, "i1"), call("refund_card", { order_id: "4411", amount: 40 }, "i2"));
  const first = await run(d.front, "refund 40.00 on order 4411");
  expect(first.interruptions.map((i) => [(i as RunToolApprovalItem).name, i.agent])).toEqual([["refund_card", d.billing]]);
  const entries = session.history.entries;
  // The desk's call has not finished: checked, allowed, and not reported.
  expect(checksOf(entries, "billing_desk").map((c) => c.decision)).toEqual(["allow"]);
  expect(reportsOf(entries, "billing_desk")).toEqual([]);
  expect(checksOf(entries, "refund_card").map((c) => c.decision)).toEqual(["confirm"]);
  expect(d.b.count("refund_card")).toBe(0);
  return first;
}

/** After the approval: the refund ran once; the desk's call and the refund each reported once, in the order they ended. */
function expectRanOnce(d: ReturnType<typeof desk>, entries: Entry[], deskChecks: number) {
  expect(d.b.count("refund_card")).toBe(1);
  expect(checksOf(entries, "billing_desk")).toHaveLength(deskChecks);
  expect(checksOf(entries, "refund_card").map((c) => [c.decision, c.reasons])).toEqual([["confirm", ["write"]], ["allow", ["confirmed"]]]);
  const refund = reportsOf(entries, "refund_card");
  const outer = reportsOf(entries, "billing_desk");
  expect(refund).toMatchObject([{ outcome: "ran", result: { refund_id: "rf-4411" } }]);
  expect(outer).toMatchObject([{ outcome: "ran", of: checksOf(entries, "billing_desk").at(-1)!.step }]);
  expect(outer[0]!.step).toBeGreaterThan(refund[0]!.step);
}

/** What the models say once the run resumes after the person answered: the nested agent, then the desk. */
function thenSay(d: ReturnType<typeof desk>, inner: string, outer: string): void {
  d.inner.enqueue(said(inner));
  d.outer.enqueue(said(outer));
}

/** The desk's first run, stopped for the person, answered on its own state; resumed with the two models' next words. */
async function answered(answer: "approve" | "reject", nested: string, outer: string) {
  const { session } = fresh();
  const d = desk(session);
  const first = await firstRun(d, session);
  first.state[answer](first.interruptions[0]!);
  thenSay(d, nested, outer);
  return { session, d, second: await run(d.front, first.state) };
}

describe("stalwart-agents/openai-agents: a guarded agent as another guarded agent's tool", () => {
  it("a nested approval resumes in the same run state: the outer call is checked and reported once", async () => {
    const { session, d, second } = await answered("approve", "refunded 40.00", "your refund is on its way");
    expect(second.finalOutput).toBe("your refund is on its way");
    expectRanOnce(d, session.history.entries, 1);
    expect(d.events.filter((e) => e.tool === "billing_desk")).toHaveLength(1);
  });

  it("the question for a nested agent's call names that agent (outside audit 15, F4)", async () => {
    const { session } = fresh();
    const d = desk(session);
    const first = await firstRun(d, session);
    const item = first.interruptions[0]!;
    // asked from the front agent the host runs: the refund is the billing agent's
    expect(await questionFor(d.front, item)).toMatch(/^refund_card, for the agent billing, needs your approval before it runs\.\n/);
    // the billing agent's own question, asked of it, is as it was
    expect(await questionFor(d.billing, { ...item, agent: d.billing } as typeof item)).toMatch(/^refund_card needs your approval before it runs\.\n/);
  });

  it("a nested approval resumes from a saved RunState restored on the same agent", async () => {
    const { session } = fresh();
    const d = desk(session);
    const first = await firstRun(d, session);
    const state = await RunState.fromString(d.front, first.state.toString());
    const item = state.getInterruptions()[0]!;
    expect([(item as RunToolApprovalItem).name, item.agent]).toEqual(["refund_card", d.billing]);
    state.approve(item);
    thenSay(d, "refunded 40.00", "your refund is on its way");
    const second = await run(d.front, state);
    expect(second.finalOutput).toBe("your refund is on its way");
    expect(second.interruptions).toEqual([]);
    expectRanOnce(d, session.history.entries, 1);
  });

  it("a nested approval the person rejects: the refund never runs, and the desk's call is reported once", async () => {
    const { session, d, second } = await answered("reject", "the refund was not approved", "no refund");
    expect(second.finalOutput).toBe("no refund");
    expect(d.b.count("refund_card")).toBe(0);
    const entries = session.history.entries;
    expect(checksOf(entries, "billing_desk")).toHaveLength(1);
    expect(reportsOf(entries, "billing_desk")).toMatchObject([{ outcome: "ran" }]);
    expect(reportsOf(entries, "refund_card")).toEqual([]);
  });

  it("a nested approval resumes in a new client: the outer call is checked again there, and reported once", async () => {
    const start = fresh();
    const before = desk(start.session);
    const first = await firstRun(before, start.session);
    const savedState = first.state.toString();
    const savedSession = JSON.stringify(start.session.toJSON());
    const savedApprovals = JSON.stringify(guardOf(before.billing)!.approvals);

    const session = new Client({ home: start.home }).resume(savedSession, { catalogue: DESK });
    const after = desk(session, new MemoryApprovals(JSON.parse(savedApprovals)));
    const state = await RunState.fromString(after.front, savedState);
    state.approve(state.getInterruptions()[0]!);
    after.inner.enqueue(said("refunded 40.00"));
    after.outer.enqueue(said("your refund is on its way"));
    const second = await run(after.front, state);
    expect(second.finalOutput).toBe("your refund is on its way");
    expect(before.b.count("refund_card")).toBe(0);
    expectRanOnce(after, session.history.entries, 2);
  });

  it("resumed in a new client with the desk's approvals saved too: the outer call is checked once, so an `at_most: 1` desk still runs", async () => {
    const once = DESK.replace("  - name: billing_desk\n", "  - name: billing_desk\n    at_most: 1\n");
    expect(once).not.toBe(DESK);
    const home = licensedHome("adapters");
    const start = new Client({ home }).session("nested", { catalogue: once });
    const before = desk(start, undefined, new MemoryApprovals());
    const first = await firstRun(before, start);
    const savedState = first.state.toString();
    const savedSession = JSON.stringify(start.toJSON());
    const savedBilling = JSON.stringify(guardOf(before.billing)!.approvals);
    const savedFront = JSON.stringify(guardOf(before.front)!.approvals);

    const session = new Client({ home }).resume(savedSession, { catalogue: once });
    const after = desk(session, new MemoryApprovals(JSON.parse(savedBilling)), new MemoryApprovals(JSON.parse(savedFront)));
    const state = await RunState.fromString(after.front, savedState);
    state.approve(state.getInterruptions()[0]!);
    after.inner.enqueue(said("refunded 40.00"));
    after.outer.enqueue(said("your refund is on its way"));
    const second = await run(after.front, state);
    expect(second.finalOutput).toBe("your refund is on its way");
    expectRanOnce(after, session.history.entries, 1);
    expect(after.events.filter((e) => e.tool === "billing_desk")).toEqual([]);
  });

  it("the same saved state resumed twice in new clients: the second resume runs nothing again", async () => {
    const once = DESK.replace("  - name: billing_desk\n", "  - name: billing_desk\n    at_most: 1\n");
    const home = licensedHome("adapters");
    const start = new Client({ home }).session("nested", { catalogue: once });
    const before = desk(start, undefined, new MemoryApprovals());
    const first = await firstRun(before, start);
    const saved = { state: first.state.toString(), session: JSON.stringify(start.toJSON()), billing: JSON.stringify(guardOf(before.billing)!.approvals), front: JSON.stringify(guardOf(before.front)!.approvals) };
    const resume = async () => {
      const session = new Client({ home }).resume(saved.session, { catalogue: once });
      const d = desk(session, new MemoryApprovals(JSON.parse(saved.billing)), new MemoryApprovals(JSON.parse(saved.front)));
      const state = await RunState.fromString(d.front, saved.state);
      state.approve(state.getInterruptions()[0]!);
      d.inner.enqueue(said("refunded 40.00"));
      d.outer.enqueue(said("done"));
      await run(d.front, state);
      return { d, session };
    };
    const one = await resume();
    expectRanOnce(one.d, one.session.history.entries, 1);
    const two = await resume();
    expect(two.d.b.count("refund_card")).toBe(0);
    expect(two.d.events.filter((e) => e.tool === "refund_card").map((e) => e.check.decision)).toEqual(["refuse"]);
  });

  it("a kept nested record the history does not back (another step, other arguments) keeps nothing: the call is checked anew", async () => {
    const start = fresh();
    const before = desk(start.session, undefined, new MemoryApprovals());
    const first = await firstRun(before, start.session);
    const front = guardOf(before.front)!.approvals as MemoryApprovals;
    const [id, record] = Object.entries(front.toJSON())[0]!;
    expect(record).toMatchObject({ waits: "nested", tool: "billing_desk", token: "" });
    expect(() => new MemoryApprovals({ [id!]: { ...record!, waits: "later" as never } })).toThrow(/is not one `toJSON\(\)` wrote/);
    const refund = checksOf(start.session.history.entries, "refund_card")[0]!.step;
    for (const doctored of [{ ...record!, step: refund }, { ...record!, step: record!.step + 1 }, { ...record!, used: true }]) {
      const session = new Client({ home: start.home }).resume(JSON.stringify(start.session.toJSON()), { catalogue: DESK });
      const d = desk(session, new MemoryApprovals(JSON.parse(JSON.stringify(guardOf(before.billing)!.approvals))), new MemoryApprovals({ [id!]: doctored }));
      const state = await RunState.fromString(d.front, first.state.toString());
      state.approve(state.getInterruptions()[0]!);
      thenSay(d, "refunded 40.00", "done");
      await run(d.front, state);
      expect(d.events.filter((e) => e.tool === "billing_desk")).toHaveLength(1);
    }
  });

  it("two levels deep: each outer call waits for the innermost approval, and each is reported once, innermost first", async () => {
    const { session } = fresh();
    const d = desk(session);
    // `front` (with the billing desk) is itself the concierge of a guarded `lobby`.
    const lobbyModel = new ScriptedModel([call("concierge", { input: "refund 40.00 on order 4411" }, "c1")]);
    const lobby = guard(new Agent({ name: "lobby", instructions: "help", model: lobbyModel, tools: [d.front.asTool({ toolName: "concierge", toolDescription: "the front desk" })] }), session);
    d.outer.enqueue(call("billing_desk", { input: "refund 40.00 on order 4411" }, "o1"));
    d.inner.enqueue(call("get_order", { order_id: "4411" }, "i1"), call("refund_card", { order_id: "4411", amount: 40 }, "i2"));
    const first = await run(lobby, "refund 40.00 on order 4411");
    expect(first.interruptions.map((i) => i.agent)).toEqual([d.billing]);
    expect(reportsOf(session.history.entries, "concierge")).toEqual([]);
    expect(reportsOf(session.history.entries, "billing_desk")).toEqual([]);

    const state = await RunState.fromString(lobby, first.state.toString());
    state.approve(state.getInterruptions()[0]!);
    d.inner.enqueue(said("refunded 40.00"));
    d.outer.enqueue(said("refunded"));
    lobbyModel.enqueue(said("your refund is on its way"));
    const second = await run(lobby, state);
    expect(second.finalOutput).toBe("your refund is on its way");
    const entries = session.history.entries;
    expectRanOnce(d, entries, 1);
    expect(checksOf(entries, "concierge")).toHaveLength(1);
    const [concierge] = reportsOf(entries, "concierge");
    expect(concierge).toMatchObject({ outcome: "ran" });
    expect(concierge!.step).toBeGreaterThan(reportsOf(entries, "billing_desk")[0]!.step);
  });
});
