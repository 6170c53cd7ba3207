/**
 * What the host shows the person for an Agents JS interruption (outside audit 7, F6): the item's
 * arguments are the model's raw text, hidden characters and all; `questionFor(agent, item)` is the
 * check's question — hidden characters named, each argument's origin, the reasons.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { run, setTracingDisabled } from "@openai/agents";
import { functionCall, ScriptedModel } from "@openai/agents/testing";
import { guard, questionFor } from "../../cli/adapters/openai-agents/index.js";
import { bodies, freshSession } from "./fixture.js";
import { billingAgent } from "./agents-billing.js";

beforeAll(() => setTracingDisabled(true));

describe("stalwart-agents/openai-agents: the question for an interruption", () => {
  it("names hidden characters and says why, where the item shows the raw arguments", async () => {
    const { session } = freshSession();
    const model = new ScriptedModel([
      [functionCall("get_order", { order_id: "4411" }, { callId: "c0" })],
      [functionCall("refund_card", { order_id: "4411\u202E", amount: 40 }, { callId: "c1" })],
    ]);
    const agent = guard(billingAgent(model, bodies()), session);
    const r = await run(agent, "refund 40.00 on order 4411");
    const [item] = r.interruptions;
    expect(item!.rawItem).toMatchObject({ arguments: expect.stringContaining("\u202E") });
    const q = await questionFor(agent, item!);
    expect(q).toMatch(/^refund_card needs your approval before it runs\./);
    expect(q).toContain('order_id = "4411[U+202E]"');
    expect(q).toMatch(/\nWhy \([a-z_, ]+\): /);
    expect(q).not.toContain("\u202E");
  });

  it("answers nothing for an item whose call is not the one asked about", async () => {
    const { session } = freshSession();
    const model = new ScriptedModel([
      [functionCall("get_order", { order_id: "4411" }, { callId: "c0" })],
      [functionCall("refund_card", { order_id: "4411", amount: 40 }, { callId: "c1" })],
    ]);
    const agent = guard(billingAgent(model, bodies()), session);
    const r = await run(agent, "refund 40.00 on order 4411");
    const item = r.interruptions[0]!;
    expect(await questionFor(agent, item)).toMatch(/amount = 40/);
    const edited = { ...item, rawItem: { ...item.rawItem, arguments: JSON.stringify({ order_id: "4411", amount: 400 }) } } as typeof item;
    expect(await questionFor(agent, edited)).toBeUndefined();
  });
});
