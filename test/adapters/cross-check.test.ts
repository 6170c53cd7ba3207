/**
 * The adapters decide what a host declaring every origin by hand would: each case runs through
 * `stalwart-agents/ai` in a real `generateText` loop and through `stalwart-agents/openai-agents`
 * in a real `run()` loop (origins inferred), and once through `checkToolCall` with the origins
 * written out, and every call gets the same decision and reasons.
 */
import { describe, expect, it } from "vitest";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { Agent, run, setTracingDisabled, tool as agentsTool } from "@openai/agents";
import { functionCall, ScriptedModel, assistantMessage } from "@openai/agents/testing";
import { guard, type CheckEvent } from "../../cli/adapters/ai/index.js";
import { guard as guardAgent } from "../../cli/adapters/openai-agents/index.js";
import { bodies, freshSession, INBOX } from "./fixture.js";
import { script } from "./ai-script.js";

interface Call {
  tool: "get_order" | "read_inbox" | "refund_card" | "tag_order" | "pay_invoice";
  input: Record<string, unknown>;
  /** the origins a careful host would declare; `at[i]` is the step of the case's `i`th call */
  declared: (at: number[]) => Record<string, string>;
}

const CASES: { name: string; turn: string; calls: Call[]; held: string }[] = [
  { name: "a read of a typed order", turn: "look up order 4411", held: "allow", calls: [{ tool: "get_order", input: { order_id: "4411" }, declared: () => ({ order_id: "typed" }) }] },
  { name: "a tag the person typed", turn: "please tag order 4411 as VIP", held: "allow", calls: [{ tool: "tag_order", input: { order_id: "4411", tag: "vip" }, declared: () => ({ order_id: "typed", tag: "typed" }) }] },
  { name: "a tag the model chose", turn: "please tag order 4411", held: "confirm argument_origin", calls: [{ tool: "tag_order", input: { order_id: "4411", tag: "gold" }, declared: () => ({ order_id: "typed", tag: "model" }) }] },
  {
    name: "a tag copied from an order's result", turn: "tag order 4411 with its customer id", held: "allow",
    calls: [
      { tool: "get_order", input: { order_id: "4411" }, declared: () => ({ order_id: "typed" }) },
      { tool: "tag_order", input: { order_id: "4411", tag: "c-208" }, declared: (at) => ({ order_id: "typed", tag: `result:${at[0]}.customer` }) },
    ],
  },
  {
    // the lookup answers with the id it was asked about: that echo is no source of it
    name: "an order id the model chose, echoed back by its lookup", turn: "tag the order of customer c-208 with the customer id", held: "confirm argument_origin",
    calls: [
      { tool: "get_order", input: { order_id: "7" }, declared: () => ({ order_id: "model" }) },
      { tool: "tag_order", input: { order_id: "7", tag: "c-208" }, declared: () => ({ order_id: "model", tag: "typed" }) },
    ],
  },
  {
    name: "a payment copied out of the inbox", turn: "deal with my inbox", held: "confirm tainted_call",
    calls: [
      { tool: "read_inbox", input: {}, declared: () => ({}) },
      { tool: "pay_invoice", input: { account: INBOX.account, amount: INBOX.amount }, declared: (at) => ({ account: `result:${at[0]}.account`, amount: `result:${at[0]}.amount` }) },
    ],
  },
  { name: "a refund before its order was read", turn: "refund 40.00 on order 4411", held: "refuse order_rule", calls: [{ tool: "refund_card", input: { order_id: "4411", amount: 40 }, declared: () => ({ order_id: "typed", amount: "typed" }) }] },
  {
    name: "a refund after its order was read", turn: "refund 40.00 on order 4411", held: "confirm write",
    calls: [
      { tool: "get_order", input: { order_id: "4411" }, declared: () => ({ order_id: "typed" }) },
      { tool: "refund_card", input: { order_id: "4411", amount: 40 }, declared: () => ({ order_id: "typed", amount: "typed" }) },
    ],
  },
];

/** The same calls through `checkToolCall`, origins declared by hand, in a session of their own. */
async function byHand(turn: string, calls: Call[], impl: Record<string, (a: never) => unknown>) {
  const hand = freshSession().session;
  await hand.read(turn);
  const at: number[] = [];
  const declared: { decision: string; reasons: string[] }[] = [];
  for (const c of calls) {
    const check = await hand.checkToolCall(c.tool, c.input, { origins: c.declared(at) });
    at.push(check.step);
    declared.push({ decision: check.decision, reasons: check.reasons });
    if (check.decision === "allow") await hand.report(check.step, "ran", impl[c.tool]!(c.input as never));
  }
  return declared;
}

describe("inferred origins decide as declared ones", () => {
  it.each(CASES)("AI SDK: $name", async ({ turn, calls, held }) => {
    const { session } = freshSession();
    const b = bodies();
    const events: CheckEvent[] = [];
    const impl = b.impl as Record<string, (a: never) => unknown>;
    const raw = Object.fromEntries(calls.map((c) => [c.tool, tool({ description: c.tool, inputSchema: z.record(z.string(), z.unknown()), execute: async (a) => impl[c.tool]!(a as never) })]));
    const tools = guard(raw, session, { onCheck: (e) => events.push(e) });
    const model = new MockLanguageModelV4(script([...calls.map((c, i) => [{ id: `c${i}`, tool: c.tool, input: c.input }]), "done"]) as never);
    await generateText({ model, tools, messages: [{ role: "user", content: turn }], stopWhen: stepCountIs(calls.length + 1) });

    const declared = await byHand(turn, calls, impl);
    expect(events.map((e) => ({ decision: e.check.decision, reasons: e.check.reasons }))).toEqual(declared);
    const last = declared[declared.length - 1]!;
    expect([last.decision, ...last.reasons].join(" ")).toBe(held);
  });

  it.each(CASES)("Agents JS: $name", async ({ turn, calls, held }) => {
    setTracingDisabled(true);
    const { session } = freshSession();
    const b = bodies();
    const events: CheckEvent[] = [];
    const impl = b.impl as Record<string, (a: never) => unknown>;
    const names = [...new Set(calls.map((c) => c.tool))];
    const tools = names.map((name) => agentsTool({ name, description: name, parameters: z.object({}).passthrough(), execute: (a) => impl[name]!(a as never) }));
    const model = new ScriptedModel([...calls.map((c, i) => [functionCall(c.tool, c.input, { callId: `c${i}` })]), [assistantMessage("done")]]);
    await run(guardAgent(new Agent({ name: "billing", instructions: "help", tools, model }), session, { onCheck: (e) => events.push(e) }), turn);

    const declared = await byHand(turn, calls, impl);
    expect(events.map((e) => ({ decision: e.check.decision, reasons: e.check.reasons }))).toEqual(declared);
    const last = declared[declared.length - 1]!;
    expect([last.decision, ...last.reasons].join(" ")).toBe(held);
  });
});
