/**
 * What the adapters keep per call id, in both frameworks' real loops: a provider that reuses ids
 * (`call_0` in every run) gets each new call checked and asked about, while the same pending call
 * sent again stays one call, and no approval covers another call; what is kept stays within the
 * `limit`, and a call whose record was dropped never runs unasked.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as ai7 from "ai";
import * as ai7test from "ai/test";
import * as ai6 from "ai-v6";
import * as ai6test from "ai-v6/test";
import { run, RunState, setTracingDisabled } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { guard, guardOf, type GuardOptions } from "../../cli/adapters/ai/index.js";
import { guard as guardAgent, guardOf as agentGuardOf } from "../../cli/adapters/openai-agents/index.js";
import type { CheckEntry, Entry } from "../../worker/portable/engine/index.js";
import { bodies, freshSession } from "./fixture.js";
import { billingAgent } from "./agents-billing.js";
import { script, type Step } from "./ai-script.js";

beforeAll(() => setTracingDisabled(true));

/* eslint-disable @typescript-eslint/no-explicit-any -- one test body over two majors' types */
const KITS = [
  { major: 7, sdk: ai7 as any, Mock: ai7test.MockLanguageModelV4 as any },
  { major: 6, sdk: ai6 as any, Mock: ai6test.MockLanguageModelV3 as any },
];
const refundsIn = (entries: Entry[]) => entries.filter((e): e is CheckEntry => e.kind === "check" && e.tool === "refund_card").map((e) => e.decision);
/** What the guard keeps per call (private: read here only to see that it stays bounded). */
const kept = (g: object) => ({ decided: (g as any).decided.size as number, allowed: (g as any).allowed.size as number, approvals: Object.keys((g as any).approvals.toJSON()).length });

describe.each(KITS)("stalwart-agents/ai with ai $major: call ids", ({ sdk, Mock }) => {
  function setup(options: GuardOptions = {}) {
    const { session } = freshSession();
    const b = bodies();
    const tools = guard({
      get_order: sdk.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a: { order_id: string }) => b.impl.get_order(a) }),
      refund_card: sdk.tool({ description: "refund", inputSchema: z.object({ order_id: z.string(), amount: z.number() }), execute: async (a: { order_id: string; amount: number }) => b.impl.refund_card(a) }),
      tag_order: sdk.tool({ description: "tag", inputSchema: z.object({ order_id: z.string(), tag: z.string() }), needsApproval: true, execute: async (a: { order_id: string; tag: string }) => b.impl.tag_order(a) }),
    }, session, options);
    const go = async (steps: Step[], messages: any[]) => {
      const model = new Mock(script(steps));
      const r = await sdk.generateText({ model, tools, messages, stopWhen: sdk.stepCountIs(6) });
      const asked = r.content.filter((p: { type: string }) => p.type === "tool-approval-request");
      return { model, r, asked, next: [...messages, ...(r.responseMessages ?? r.response.messages)] };
    };
    const answer = (asked: { approvalId: string }, approved = true) => ({ role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved }] });
    const refunds = () => b.ran.filter((x) => x.tool === "refund_card").map((x) => x.args);
    return { session, b, tools, go, answer, refunds };
  }
  const user = (content: string) => ({ role: "user", content });

  it("a reused id with another input, after the earlier call settled, is a new call: asked, and run once approved", async () => {
    const { session, go, answer, refunds } = setup();
    const t1 = await go([[{ id: "g0", tool: "get_order", input: { order_id: "4411" } }], [{ id: "call_0", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], [user("refund 40.00 on order 4411")]);
    const t1done = await go(["refunded"], [...t1.next, answer(t1.asked[0])]);
    expect(refunds()).toEqual([{ order_id: "4411", amount: 40 }]);
    // The provider numbers calls per response: the next refund is `call_0` again.
    const t2 = await go([[{ id: "call_0", tool: "refund_card", input: { order_id: "4411", amount: 10 } }]], [...t1done.next, user("and refund 10.00 on order 4411")]);
    expect(t2.asked).toMatchObject([{ toolCall: { toolCallId: "call_0", input: { order_id: "4411", amount: 10 } } }]);
    expect(refunds()).toHaveLength(1);
    const t2done = await go(["refunded 10"], [...t2.next, answer(t2.asked[0])]);
    expect(t2done.r.text).toBe("refunded 10");
    expect(refunds()).toEqual([{ order_id: "4411", amount: 40 }, { order_id: "4411", amount: 10 }]);
    expect(refundsIn(session.history.entries)).toEqual(["confirm", "allow", "confirm", "allow"]);
    // Each approval once: sending the second one again runs nothing more.
    const again = await go(["again?"], [...t2.next, answer(t2.asked[0])]);
    expect(refunds()).toHaveLength(2);
    expect(JSON.stringify(again.model.doGenerateCalls[0].prompt)).toMatch(/already used/);
  });

  it("an approval of one call never covers another under the same id", async () => {
    const { go, answer, refunds } = setup();
    const first = await go([[{ id: "g0", tool: "get_order", input: { order_id: "4411" } }], [{ id: "call_0", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], [user("refund 40.00 on order 4411")]);
    // Unanswered, the person starts over; the new call gets the same id and its own question.
    const second = await go([[{ id: "g0", tool: "get_order", input: { order_id: "4411" } }], [{ id: "call_0", tool: "refund_card", input: { order_id: "4411", amount: 10 } }]], [user("refund 10.00 on order 4411")]);
    expect(second.asked).toMatchObject([{ toolCall: { toolCallId: "call_0" } }]);
    // The first question answered now: its record gave way to the second call's, so it runs
    // nothing (and never the second call's input).
    const late = await go(["not refunded"], [...first.next, answer(first.asked[0])]);
    expect(refunds()).toEqual([]);
    expect(JSON.stringify(late.model.doGenerateCalls[0].prompt)).toMatch(/refund_card/);
    await go(["refunded 10"], [...second.next, answer(second.asked[0])]);
    expect(refunds()).toEqual([{ order_id: "4411", amount: 10 }]);
    await go(["again"], [...first.next, answer(first.asked[0])]);
    expect(refunds()).toEqual([{ order_id: "4411", amount: 10 }]);
  });

  it("what the guard keeps stays within its limit, and a call whose record was dropped never runs unasked", async () => {
    const { tools, go, answer, refunds, b } = setup({ limit: 3 });
    const waiting: { next: any[]; asked: any }[] = [];
    for (let i = 0; i < 8; i++) {
      const t = await go([[{ id: `g${i}`, tool: "get_order", input: { order_id: "4411" } }], [{ id: `r${i}`, tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], [user("refund 40.00 on order 4411")]);
      waiting.push({ next: t.next, asked: t.asked[0] });
      // allowed by the check, asked by the tool's own needsApproval, never answered
      await go([[{ id: `t${i}`, tool: "tag_order", input: { order_id: "4411", tag: "vip" } }]], [user("please tag order 4411 as VIP")]);
    }
    const g = guardOf(tools)!;
    expect(kept(g).decided).toBeLessThanOrEqual(3);
    expect(kept(g).allowed).toBeLessThanOrEqual(3);
    expect(kept(g).approvals).toBeLessThanOrEqual(3);
    // The oldest request, answered: its record is gone, so it is refused, not run.
    const old = await go(["not refunded"], [...waiting[0]!.next, answer(waiting[0]!.asked)]);
    expect(refunds()).toEqual([]);
    // What the model reads: our refusal, or (ai 6, which asks needsApproval again on resuming) the SDK's denial.
    expect(JSON.stringify(old.model.doGenerateCalls[0].prompt)).toMatch(/refund_card did not run|execution-denied/);
    // The newest, answered: runs once.
    await go(["refunded"], [...waiting[7]!.next, answer(waiting[7]!.asked)]);
    expect(refunds()).toHaveLength(1);
    // Spent and settled calls go too: many more approved-and-run calls keep it within the limit.
    for (let i = 8; i < 14; i++) {
      const t = await go([[{ id: `g${i}`, tool: "get_order", input: { order_id: "4411" } }], [{ id: `r${i}`, tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], [user("refund 40.00 on order 4411")]);
      await go(["refunded"], [...t.next, answer(t.asked[0])]);
    }
    expect(refunds()).toHaveLength(7);
    expect(b.count("tag_order")).toBe(0);
    expect(kept(g).decided).toBeLessThanOrEqual(3);
    expect(kept(g).allowed).toBeLessThanOrEqual(3);
    expect(kept(g).approvals).toBeLessThanOrEqual(3);
  });
});

describe("stalwart-agents/openai-agents: call ids", () => {
  function setup(limit?: number) {
    const { session } = freshSession();
    const b = bodies();
    const model = new ScriptedModel();
    const agent = guardAgent(billingAgent(model, b), session, limit === undefined ? {} : { limit });
    const refunds = () => b.ran.filter((x) => x.tool === "refund_card").map((x) => x.args);
    return { session, model, agent, refunds };
  }
  const call = (name: string, args: Record<string, unknown>, callId: string) => [functionCall(name, args, { callId })];

  it("a reused id with another input in a later run is a new call: an interruption, run once approved", async () => {
    const { session, model, agent, refunds } = setup();
    model.enqueue(call("get_order", { order_id: "4411" }, "g0"), call("refund_card", { order_id: "4411", amount: 40 }, "call_0"));
    const r1 = await run(agent, "refund 40.00 on order 4411");
    r1.state.approve(r1.interruptions[0]!);
    model.enqueue([assistantMessage("refunded")]);
    await run(agent, r1.state);
    model.enqueue(call("refund_card", { order_id: "4411", amount: 10 }, "call_0"));
    const r2 = await run(agent, "and refund 10.00 on order 4411");
    expect(r2.interruptions).toHaveLength(1);
    r2.state.approve(r2.interruptions[0]!);
    model.enqueue([assistantMessage("refunded 10")]);
    expect((await run(agent, r2.state)).finalOutput).toBe("refunded 10");
    expect(refunds()).toEqual([{ order_id: "4411", amount: 40 }, { order_id: "4411", amount: 10 }]);
    expect(refundsIn(session.history.entries)).toEqual(["confirm", "allow", "confirm", "allow"]);
  });

  it("the same pending call resumed unanswered is the same call, and its approval runs it once", async () => {
    const { session, model, agent, refunds } = setup();
    model.enqueue(call("get_order", { order_id: "4411" }, "g0"), call("refund_card", { order_id: "4411", amount: 40 }, "call_0"));
    const saved = (await run(agent, "refund 40.00 on order 4411")).state.toString();
    const again = await run(agent, await RunState.fromString(agent, saved));
    expect(again.interruptions).toHaveLength(1);
    expect(refundsIn(session.history.entries)).toEqual(["confirm"]);
    again.state.approve(again.interruptions[0]!);
    model.enqueue([assistantMessage("refunded")]);
    await run(agent, again.state);
    expect(refunds()).toEqual([{ order_id: "4411", amount: 40 }]);
    expect(refundsIn(session.history.entries)).toEqual(["confirm", "allow"]);
  });

  it("an approval of one call never covers another under the same id", async () => {
    const { model, agent, refunds } = setup();
    model.enqueue(call("get_order", { order_id: "4411" }, "g0"), call("refund_card", { order_id: "4411", amount: 40 }, "call_0"));
    const saved = (await run(agent, "refund 40.00 on order 4411")).state.toString();
    model.enqueue(call("refund_card", { order_id: "4411", amount: 10 }, "call_0"));
    const r2 = await run(agent, "no: refund 10.00 on order 4411");
    expect(r2.interruptions).toHaveLength(1);
    const s1 = await RunState.fromString(agent, saved);
    s1.approve(s1.getInterruptions()[0]!);
    model.enqueue([assistantMessage("not refunded")]);
    await run(agent, s1);
    expect(refunds()).toEqual([]);
    r2.state.approve(r2.interruptions[0]!);
    model.enqueue([assistantMessage("refunded 10")]);
    await run(agent, r2.state);
    expect(refunds()).toEqual([{ order_id: "4411", amount: 10 }]);
  });

  it("what the guard keeps stays within its limit, and a call whose record was dropped never runs", async () => {
    const { model, agent, refunds } = setup(2);
    const states: string[] = [];
    for (let i = 0; i < 6; i++) {
      model.enqueue(call("get_order", { order_id: "4411" }, `g${i}`), call("refund_card", { order_id: "4411", amount: 40 }, `r${i}`));
      states.push((await run(agent, "refund 40.00 on order 4411")).state.toString());
    }
    const g = agentGuardOf(agent)!;
    expect(kept(g).approvals).toBeLessThanOrEqual(2);
    expect(kept(g).decided).toBeLessThanOrEqual(2);
    expect(kept(g).allowed).toBeLessThanOrEqual(2);
    const oldest = await RunState.fromString(agent, states[0]!);
    oldest.approve(oldest.getInterruptions()[0]!);
    model.enqueue([assistantMessage("not refunded")]);
    await run(agent, oldest);
    expect(refunds()).toEqual([]);
    const newest = await RunState.fromString(agent, states[5]!);
    newest.approve(newest.getInterruptions()[0]!);
    model.enqueue([assistantMessage("refunded")]);
    await run(agent, newest);
    expect(refunds()).toHaveLength(1);
  });

  it("after a handoff, the next guarded agent's call under a reused id is asked about, and runs once approved", async () => {
    const { session } = freshSession();
    const b = bodies();
    const deskModel = new ScriptedModel();
    const desk = guardAgent(billingAgent(deskModel, b), session);
    const model = new ScriptedModel();
    const front = guardAgent(billingAgent(model, b).clone({ name: "front", handoffs: [desk] }), session);
    model.enqueue(call("get_order", { order_id: "4411" }, "g0"), call("refund_card", { order_id: "4411", amount: 40 }, "call_0"));
    const r1 = await run(front, "refund 40.00 on order 4411, and 10.00 too");
    r1.state.approve(r1.interruptions[0]!);
    // The front desk's refund runs; it hands off, and the billing desk's model numbers its call `call_0` too.
    model.enqueue(call("transfer_to_billing", {}, "h0"));
    deskModel.enqueue(call("refund_card", { order_id: "4411", amount: 10 }, "call_0"), [assistantMessage("refunded both")]);
    const r2 = await run(front, r1.state);
    expect(r2.interruptions.map((i) => (i as { agent: { name: string } }).agent.name)).toEqual(["billing"]);
    r2.state.approve(r2.interruptions[0]!);
    expect((await run(front, r2.state)).finalOutput).toBe("refunded both");
    expect(b.ran.filter((x) => x.tool === "refund_card").map((x) => x.args)).toEqual([{ order_id: "4411", amount: 40 }, { order_id: "4411", amount: 10 }]);
    expect(refundsIn(session.history.entries)).toEqual(["confirm", "allow", "confirm", "allow"]);
  });
});
