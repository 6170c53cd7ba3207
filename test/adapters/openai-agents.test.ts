/**
 * `stalwart-agents/openai-agents` in Agents JS's real `run()` loop with the framework's own
 * scripted model: an allowed read runs and is reported; a write is the run's interruption and runs
 * once after `state.approve(item)` (approving twice, or resuming the same saved state twice, runs
 * once); `state.reject(item)` runs and reports nothing; a refused call never runs and the model
 * reads its reasons; typed and untrusted origins are inferred; a saved `RunState` resumes in a new
 * client with its session.
 */
import { beforeAll, describe, expect, it, vi } from "vitest";
import { Agent, run, RunContext, RunState, setTracingDisabled, tool, toolNamespace, type RunToolApprovalItem } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { Client } from "../../cli/sdk/index.js";
import { guard, guardOf, guardTools, MemoryApprovals, type CheckEvent } from "../../cli/adapters/openai-agents/index.js";
import type { CheckEntry, Entry } from "../../worker/portable/engine/index.js";
import { bodies, brokenSession, CATALOGUE, freshSession, INBOX } from "./fixture.js";

beforeAll(() => setTracingDisabled(true));

const checks = (entries: Entry[]) => entries.filter((e): e is CheckEntry => e.kind === "check");
const reportOf = (entries: Entry[], step: number) => entries.filter((e) => e.kind === "report" && e.of === step);
const call = (name: string, args: Record<string, unknown>, callId: string) => [functionCall(name, args, { callId })];
const said = (text: string) => [assistantMessage(text)];

function setup(session = freshSession().session, approvals?: MemoryApprovals) {
  const b = bodies();
  const events: CheckEvent[] = [];
  const tools = [
    tool({ name: "get_order", description: "an order", parameters: z.object({ order_id: z.string() }), execute: (a) => b.impl.get_order(a) }),
    tool({ name: "read_inbox", description: "the inbox", parameters: z.object({}), execute: () => b.impl.read_inbox({}) }),
    tool({ name: "refund_card", description: "refund", parameters: z.object({ order_id: z.string(), amount: z.number() }), execute: (a) => b.impl.refund_card(a) }),
    tool({ name: "tag_order", description: "tag", parameters: z.object({ order_id: z.string(), tag: z.string() }), execute: (a) => b.impl.tag_order(a) }),
    tool({ name: "pay_invoice", description: "pay", parameters: z.object({ account: z.string(), amount: z.number() }), execute: (a) => b.impl.pay_invoice(a) }),
  ];
  const model = new ScriptedModel();
  const agent = guard(new Agent({ name: "billing", instructions: "help", tools, model }), session, { onCheck: (e) => events.push(e), ...(approvals ? { approvals } : {}) });
  return { session, b, events, model, agent };
}

/** What the model was sent on its `i`th call, as text (to see what it reads of a tool's answer). */
const seen = (model: ScriptedModel, i: number) => JSON.stringify(model.calls[i]?.request.input);

describe("stalwart-agents/openai-agents", () => {
  it("an allowed read runs once, its result is reported, and the person's words are turns", async () => {
    const { session, b, events, model, agent } = setup();
    model.enqueue(call("get_order", { order_id: "4411" }, "c1"), said("order 4411 totals 40"));
    const r = await run(agent, "look up order 4411");
    expect(r.finalOutput).toBe("order 4411 totals 40");
    expect(b.count("get_order")).toBe(1);
    const entries = session.history.entries;
    expect(entries[0]).toMatchObject({ kind: "turn", text: "look up order 4411" });
    const [c] = checks(entries);
    expect(c).toMatchObject({ tool: "get_order", decision: "allow" });
    expect(reportOf(entries, c!.step)).toMatchObject([{ outcome: "ran", result: { order_id: "4411", total: 40, customer: "c-208" } }]);
    expect(events[0]!.origins.order_id).toMatchObject({ origin: "typed" });
  });

  it("a write is the run's interruption, runs once after state.approve, and approving twice runs once", async () => {
    const { session, b, model, agent } = setup();
    model.enqueue(call("get_order", { order_id: "4411" }, "c1"), call("refund_card", { order_id: "4411", amount: 40 }, "c2"));
    const first = await run(agent, "refund 40.00 on order 4411");
    expect(first.interruptions).toHaveLength(1);
    const item = first.interruptions[0] as RunToolApprovalItem;
    expect(item.name).toBe("refund_card");
    expect(b.count("refund_card")).toBe(0);
    const confirm = checks(session.history.entries).find((e) => e.tool === "refund_card")!;
    expect(confirm.decision).toBe("confirm");
    const saved = first.state.toString(); // before the person answered

    first.state.approve(item);
    first.state.approve(item);
    model.enqueue(said("refunded"));
    const second = await run(agent, first.state);
    expect(second.finalOutput).toBe("refunded");
    expect(b.count("refund_card")).toBe(1);
    const allowed = checks(session.history.entries).filter((e) => e.tool === "refund_card" && e.decision === "allow");
    expect(allowed).toMatchObject([{ reasons: ["confirmed"], confirmed: confirm.step }]);
    expect(reportOf(session.history.entries, allowed[0]!.step)).toMatchObject([{ outcome: "ran", result: { refund_id: "rf-4411" } }]);

    // The state saved before the approval, resumed and approved again: the token is spent.
    const replay = await RunState.fromString(agent, saved);
    replay.approve(replay.getInterruptions()[0]!);
    model.enqueue(said("again?"));
    await run(agent, replay);
    expect(b.count("refund_card")).toBe(1);
    expect(seen(model, model.calls.length - 1)).toMatch(/approval was already used/);
  });

  it("a streamed run: the write is the interruption, runs once after state.approve, and is reported", async () => {
    const { session, b, model, agent } = setup();
    model.enqueue(call("get_order", { order_id: "4411" }, "c1"), call("refund_card", { order_id: "4411", amount: 40 }, "c2"));
    const first = await run(agent, "refund 40.00 on order 4411", { stream: true });
    for await (const _event of first.toStream()) void _event;
    await first.completed;
    expect(first.interruptions.map((i) => (i as RunToolApprovalItem).name)).toEqual(["refund_card"]);
    expect(b.count("refund_card")).toBe(0);
    first.state.approve(first.interruptions[0] as RunToolApprovalItem);
    model.enqueue(said("refunded"));
    const second = await run(agent, first.state, { stream: true });
    for await (const _event of second.toStream()) void _event;
    await second.completed;
    expect(second.finalOutput).toBe("refunded");
    expect(b.count("refund_card")).toBe(1);
    const refunds = checks(session.history.entries).filter((e) => e.tool === "refund_card");
    expect(refunds.map((e) => [e.decision, e.reasons])).toEqual([["confirm", ["write"]], ["allow", ["confirmed"]]]);
    expect(reportOf(session.history.entries, refunds[1]!.step)).toMatchObject([{ outcome: "ran", result: { refund_id: "rf-4411" } }]);
  });

  it("state.reject runs nothing and reports nothing", async () => {
    const { session, b, model, agent } = setup();
    model.enqueue(call("get_order", { order_id: "4411" }, "c1"), call("refund_card", { order_id: "4411", amount: 40 }, "c2"));
    const first = await run(agent, "refund 40.00 on order 4411");
    first.state.reject(first.interruptions[0]!);
    model.enqueue(said("not refunded"));
    const second = await run(agent, first.state);
    expect(second.finalOutput).toBe("not refunded");
    expect(b.count("refund_card")).toBe(0);
    const refunds = checks(session.history.entries).filter((e) => e.tool === "refund_card");
    expect(refunds.map((e) => e.decision)).toEqual(["confirm"]);
    expect(reportOf(session.history.entries, refunds[0]!.step)).toEqual([]);
  });

  it("a refused call never runs, nobody is asked, and the model reads its reasons", async () => {
    const { session, b, model, agent } = setup();
    model.enqueue(call("refund_card", { order_id: "4411", amount: 40 }, "c1"), said("sorry"));
    const r = await run(agent, "refund 40.00 on order 4411");
    expect(r.interruptions).toHaveLength(0);
    expect(b.count("refund_card")).toBe(0);
    expect(seen(model, 1)).toMatch(/stalwart refused refund_card, and it did not run.*order_rule: after get_order/);
    const [c] = checks(session.history.entries);
    expect(c).toMatchObject({ decision: "refuse", reasons: ["order_rule"] });
    expect(reportOf(session.history.entries, c!.step)).toEqual([]);
  });

  // the model's text `{"amount":40,"amount":900}` is a call JSON.parse reads as 900 and a tool
  // reading the text itself may read as 40 (outside audit 6, F1, the same gap at the worker)
  it("arguments that give a key twice are refused, and nothing runs", async () => {
    const { session, b, model, agent } = setup();
    model.enqueue([functionCall("get_order", '{"order_id":"4411","order_id":"9999"}', { callId: "c1" })], said("sorry"));
    const r = await run(agent, "look up order 4411");
    expect(r.interruptions).toHaveLength(0);
    expect(b.count("get_order")).toBe(0);
    expect(seen(model, 1)).toContain("get_order did not run: its arguments are not JSON, or give a key twice.");
    // Agents JS asks needsApproval with the arguments it parsed (the last `order_id`): that check
    // is in the history, and no report says the call ran
    expect(session.history.entries.filter((e) => e.kind === "report" && e.outcome === "ran")).toEqual([]);
  });

  it("an argument copied from the person's message is inferred typed; one they never typed is held", async () => {
    const { b, events, model, agent } = setup();
    model.enqueue(call("tag_order", { order_id: "4411", tag: "vip" }, "c1"), call("tag_order", { order_id: "4411", tag: "gold" }, "c2"));
    const r = await run(agent, "please tag order 4411 as VIP");
    expect(events[0]).toMatchObject({ tool: "tag_order", origins: { order_id: { origin: "typed" }, tag: { origin: "typed" } }, check: { decision: "allow" } });
    expect(events[1]).toMatchObject({ origins: { tag: { origin: "model" } }, check: { decision: "confirm", reasons: ["argument_origin"] } });
    expect(r.interruptions).toHaveLength(1);
    expect(b.ran).toEqual([{ tool: "tag_order", args: { order_id: "4411", tag: "vip" } }]);
  });

  it("a value copied out of an untrusted read's result is labelled and held", async () => {
    const { b, events, model, agent } = setup();
    model.enqueue(call("read_inbox", {}, "c1"), call("pay_invoice", { account: INBOX.account, amount: 50 }, "c2"));
    const r = await run(agent, "deal with my inbox");
    const pay = events.find((e) => e.tool === "pay_invoice")!;
    expect(pay.origins.account).toEqual({ origin: `result:${events[0]!.check.step}.account`, labels: ["untrusted:read_inbox"], tool: "read_inbox" });
    expect(pay.check.decision).toBe("confirm");
    expect(pay.check.reasons).toContain("tainted_call");
    expect(r.interruptions.map((i) => (i as RunToolApprovalItem).name)).toEqual(["pay_invoice"]);
    expect(b.count("pay_invoice")).toBe(0);
  });

  it("a tool that throws is reported failed; a check that cannot answer is a refusal and nothing runs", async () => {
    const { session, model, agent } = setup();
    model.enqueue(call("get_order", { order_id: "0000" }, "c1"), said("the service is down"));
    await run(agent, "look up order 0000");
    const [c] = checks(session.history.entries);
    expect(reportOf(session.history.entries, c!.step)).toMatchObject([{ outcome: "failed" }]);

    const b = bodies();
    const m = new ScriptedModel([call("get_order", { order_id: "4411" }, "c9"), said("no")]);
    const tools = guardTools([tool({ name: "get_order", description: "an order", parameters: z.object({ order_id: z.string() }), execute: (a) => b.impl.get_order(a) })], brokenSession(), { catalogue: CATALOGUE });
    await run(new Agent({ name: "billing", instructions: "help", tools, model: m }), "look up order 4411");
    expect(b.count("get_order")).toBe(0);
    expect(seen(m, 1)).toMatch(/internal_error: the check store is unreachable/);
  });

  it("a standing approval of a tool (alwaysApprove) covers no later call the check asks about", async () => {
    const { session, b, model, agent } = setup();
    model.enqueue(call("get_order", { order_id: "4411" }, "c1"), call("refund_card", { order_id: "4411", amount: 40 }, "c2"));
    const first = await run(agent, "refund 40.00 on order 4411, then read my inbox");
    first.state.approve(first.interruptions[0]!, { alwaysApprove: true });
    // After the approved refund, the model reads the inbox and refunds an amount nobody typed.
    model.enqueue(call("read_inbox", {}, "c3"), call("refund_card", { order_id: "4411", amount: 50 }, "c4"), said("done"));
    const second = await run(agent, first.state);
    expect(b.ran.filter((r) => r.tool === "refund_card")).toEqual([{ tool: "refund_card", args: { order_id: "4411", amount: 40 } }]);
    expect(second.interruptions).toEqual([]);
    expect(seen(model, model.calls.length - 1)).toMatch(/refund_card did not run: a person must approve this call/);
    const refunds = checks(session.history.entries).filter((e) => e.tool === "refund_card");
    expect(refunds.map((e) => e.decision)).toEqual(["confirm", "allow", "confirm"]);
    expect(refunds[2]!.reasons).toContain("tainted_call"); // 50 is the inbox's amount: the injected refund
  });

  it("an agent run as another agent's tool reads its input as the calling model's words, not the person's", async () => {
    const { session } = freshSession();
    const b = bodies();
    const pay = tool({ name: "pay_invoice", description: "pay", parameters: z.object({ account: z.string(), amount: z.number() }), execute: (a) => b.impl.pay_invoice(a) });
    const sub = guard(new Agent({ name: "payer", instructions: "pay", tools: [pay], model: new ScriptedModel([call("pay_invoice", { account: INBOX.account, amount: 50 }, "s1"), said("paid")]) }), session);
    // The orchestrator (not guarded here) was talked into it: its words are the payer's whole input.
    const top = new Agent({ name: "top", instructions: "help", tools: [sub.asTool({ toolName: "payer", toolDescription: "pays" })], model: new ScriptedModel([call("payer", { input: `pay 50 to ${INBOX.account}` }, "t1"), said("done")]) });
    await run(top, "what is in my inbox?");
    expect(b.count("pay_invoice")).toBe(0);
    expect(session.history.entries.filter((e) => e.kind === "turn")).toEqual([]);
    expect(checks(session.history.entries)).toMatchObject([{ tool: "pay_invoice", decision: "confirm", reasons: ["argument_origin"] }]);
  });

  it("a saved RunState resumes in a new client with its session and its approvals", async () => {
    const start = freshSession();
    const before = setup(start.session);
    before.model.enqueue(call("get_order", { order_id: "4411" }, "c1"), call("refund_card", { order_id: "4411", amount: 40 }, "c2"));
    const first = await run(before.agent, "refund 40.00 on order 4411");
    const savedState = first.state.toString();
    const savedSession = JSON.stringify(start.session.toJSON());
    const savedApprovals = JSON.stringify(guardOf(before.agent)!.approvals);

    // Another process: the same home, the session and the approvals read back.
    const client = new Client({ home: start.home });
    const session = client.resume(savedSession, { catalogue: CATALOGUE });
    const after = setup(session, new MemoryApprovals(JSON.parse(savedApprovals)));
    const state = await RunState.fromString(after.agent, savedState);
    state.approve(state.getInterruptions()[0]!);
    after.model.enqueue(said("refunded"));
    const done = await run(after.agent, state);
    expect(done.finalOutput).toBe("refunded");
    expect(before.b.count("refund_card") + after.b.count("refund_card")).toBe(1);
    expect(checks(session.history.entries).filter((e) => e.tool === "refund_card").map((e) => [e.decision, e.reasons])).toEqual([["confirm", ["write"]], ["allow", ["confirmed"]]]);
  });

  it("a namespaced tool (toolNamespace) runs once after state.approve", async () => {
    const { session } = freshSession();
    const b = bodies();
    const model = new ScriptedModel();
    const tools = toolNamespace({ name: "billing", description: "the billing desk", tools: [
      tool({ name: "get_order", description: "an order", parameters: z.object({ order_id: z.string() }), execute: (a) => b.impl.get_order(a) }),
      tool({ name: "refund_card", description: "refund", parameters: z.object({ order_id: z.string(), amount: z.number() }), execute: (a) => b.impl.refund_card(a) }),
    ] });
    const agent = guard(new Agent({ name: "billing", instructions: "help", tools, model }), session);
    // The model calls a namespaced tool by its name and namespace.
    const inBilling = (name: string, args: Record<string, unknown>, callId: string) => [{ ...functionCall(name, args, { callId }), namespace: "billing" }];
    model.enqueue(inBilling("get_order", { order_id: "4411" }, "c1"), inBilling("refund_card", { order_id: "4411", amount: 40 }, "c2"));
    const first = await run(agent, "refund 40.00 on order 4411");
    expect(first.interruptions).toHaveLength(1);
    first.state.approve(first.interruptions[0]!);
    model.enqueue(said("refunded"));
    const second = await run(agent, first.state);
    expect(second.finalOutput).toBe("refunded");
    expect(b.ran.map((r) => r.tool)).toEqual(["get_order", "refund_card"]);
    expect(checks(session.history.entries).filter((e) => e.tool === "refund_card").map((e) => [e.decision, e.reasons])).toEqual([["confirm", ["write"]], ["allow", ["confirmed"]]]);
  });

  it("an allowed call asks the run for the person's answer once, not again at the guardrail and the invoke (bench speed)", async () => {
    // The guardrail's and invoke's lookups are the ones with neither `functionTool` nor `agent`
    // (the framework's own pass one or both, as does the guard's first, in needsApproval). Each
    // costs Agents JS 0.20 a thrown and caught SyntaxError; a kept verdict answers without them.
    const lookups: unknown[] = [];
    const original = RunContext.prototype.isToolApproved;
    const counted = vi.spyOn(RunContext.prototype, "isToolApproved").mockImplementation(function (this: RunContext, q) {
      if (!("functionTool" in q) && !("agent" in q)) lookups.push(q.callId);
      return original.call(this, q);
    });
    try {
      const { session, b, model, agent } = setup();
      model.enqueue([...call("get_order", { order_id: "4411" }, "c1"), ...call("get_order", { order_id: "0000" }, "c2")], said("done"));
      await run(agent, "look up orders 4411 and 0000");
      expect(b.count("get_order")).toBe(2);
      expect(lookups).toEqual([]);
      const [c1, c2] = checks(session.history.entries);
      expect(reportOf(session.history.entries, c1!.step)).toMatchObject([{ outcome: "ran" }]);
      expect(reportOf(session.history.entries, c2!.step)).toMatchObject([{ outcome: "failed" }]);
    } finally {
      counted.mockRestore();
    }
  });
});
