/**
 * A denial stays a denial with the AI SDK (outside audit 9, F2). The SDK answers a call the person
 * denied (`approved: false`) itself and calls none of the tool's hooks, so the guard did not learn
 * of it: the messages saved when the person was asked, sent back later with `approved: true` (a
 * second tab, a retried request), ran the call. `watchDenials(tools)` as the call's `onStart`
 * (ai 6: `experimental_onStart`), and every hook of the guarded tools, mark the denied call's record
 * rejected; an approval of it sent later runs nothing, and one sent beside the denial approves nothing.
 */
import { describe, expect, it } from "vitest";
import * as ai7 from "ai";
import * as ai7test from "ai/test";
import * as ai6 from "ai-v6";
import * as ai6test from "ai-v6/test";
import { z } from "zod";
import { guard, MemoryApprovals, watchDenials } from "../../cli/adapters/ai/index.js";
import { deniedCalls } from "../../cli/adapters/ai/denials.js";
import { bodies, freshSession } from "./fixture.js";
import { script, type Step } from "./ai-script.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- one test body over two majors' types */
const KITS = [
  { major: 7, sdk: ai7 as any, Mock: ai7test.MockLanguageModelV4 as any, onStart: "onStart" },
  { major: 6, sdk: ai6 as any, Mock: ai6test.MockLanguageModelV3 as any, onStart: "experimental_onStart" },
];

describe.each(KITS)("stalwart-agents/ai with ai $major: a denied call", ({ sdk, Mock, onStart }) => {
  const user = { role: "user", content: "refund 40.00 on order 4411" };
  const REFUND = { id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } };

  function setup(approvals = new MemoryApprovals(), session = freshSession().session) {
    const b = bodies();
    const raw = {
      get_order: sdk.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a: { order_id: string }) => b.impl.get_order(a) }),
      refund_card: sdk.tool({ description: "refund", inputSchema: z.object({ order_id: z.string(), amount: z.number() }), execute: async (a: { order_id: string; amount: number }) => b.impl.refund_card(a) }),
    };
    return { b, tools: guard(raw, session, { approvals }), approvals, session };
  }
  const generate = (tools: unknown, steps: Step[], messages: unknown[], watch = true) => {
    const model = new Mock(script(steps));
    return { model, result: sdk.generateText({ model, tools, messages, stopWhen: sdk.stepCountIs(4), ...(watch ? { [onStart]: watchDenials(tools as never) } : {}) }) };
  };
  const answer = (approvalId: string, approved: boolean) => ({ role: "tool", content: [{ type: "tool-approval-response", approvalId, approved }] });

  async function asked(tools: unknown) {
    const first = await generate(tools, [[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [REFUND]], [user]).result;
    const request = first.content.find((p: { type: string }) => p.type === "tool-approval-request");
    expect(request).toMatchObject({ toolCall: { toolCallId: "c2", toolName: "refund_card" } });
    return { saved: [user, ...first.response.messages], approvalId: request.approvalId as string };
  }

  it("the messages saved at the ask, approved later (a second tab), run nothing; the model reads that a person rejected it", async () => {
    const { b, tools } = setup();
    const { saved, approvalId } = await asked(tools);
    await generate(tools, ["not refunded"], [...saved, answer(approvalId, false)]).result;
    expect(b.count("refund_card")).toBe(0);
    const stale = generate(tools, ["refunded?"], [...saved, answer(approvalId, true)]);
    await stale.result;
    expect(b.count("refund_card")).toBe(0);
    expect(JSON.stringify(stale.model.doGenerateCalls[0].prompt)).toMatch(/a person rejected this call, and an approval sent for it later runs nothing/);
  });

  it("another guard of the session on the same approvals store (another request's handler) honours the denial", async () => {
    const approvals = new MemoryApprovals();
    const one = setup(approvals);
    const { saved, approvalId } = await asked(one.tools);
    await generate(one.tools, ["not refunded"], [...saved, answer(approvalId, false)]).result;
    const two = setup(approvals, one.session);
    await generate(two.tools, ["refunded?"], [...saved, answer(approvalId, true)]).result;
    expect(one.b.count("refund_card") + two.b.count("refund_card")).toBe(0);
  });

  it("an approval sent beside the denial of the same question approves nothing", async () => {
    const { b, tools } = setup();
    const { saved, approvalId } = await asked(tools);
    await generate(tools, ["x"], [...saved, answer(approvalId, false), answer(approvalId, true)], false).result.catch(() => undefined);
    await generate(tools, ["x"], [...saved, answer(approvalId, true), answer(approvalId, false)], false).result.catch(() => undefined);
    expect(b.count("refund_card")).toBe(0);
  });

  it("without onStart, a later hook of the guarded tools that sees the denial keeps it", async () => {
    const { b, tools } = setup();
    const { saved, approvalId } = await asked(tools);
    // the model goes on with another call after the denial: its hook reads the messages
    await generate(tools, [[{ id: "c3", tool: "get_order", input: { order_id: "4412" } }], "done"], [...saved, answer(approvalId, false)], false).result;
    await generate(tools, ["refunded?"], [...saved, answer(approvalId, true)], false).result;
    expect(b.count("refund_card")).toBe(0);
    expect(b.count("get_order")).toBe(2);
  });

  it("an approval with no denial anywhere still runs the call, once", async () => {
    const { b, tools } = setup();
    const { saved, approvalId } = await asked(tools);
    await generate(tools, ["refunded"], [...saved, answer(approvalId, true)]).result;
    await generate(tools, ["refunded"], [...saved, answer(approvalId, true)]).result;
    expect(b.count("refund_card")).toBe(1);
  });
});

describe("deniedCalls", () => {
  const call = (id: string, input: unknown) => ({ role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName: "pay", input }, { type: "tool-approval-request", toolCallId: id, approvalId: `a-${id}-${JSON.stringify(input)}` }] });
  const deny = (id: string, input: unknown) => ({ role: "tool", content: [{ type: "tool-approval-response", approvalId: `a-${id}-${JSON.stringify(input)}`, approved: false }] });

  it("only the latest call under a reused id counts; an SDK's execution-denied result is a denial too", () => {
    expect(deniedCalls([call("c0", { n: 1 }), deny("c0", { n: 1 }), call("c0", { n: 2 })] as never)).toEqual([]);
    expect(deniedCalls([call("c0", { n: 1 }), deny("c0", { n: 1 })] as never)).toEqual([{ toolCallId: "c0", toolName: "pay", input: { n: 1 } }]);
    expect(deniedCalls([call("c0", { n: 1 }), { role: "tool", content: [{ type: "tool-result", toolCallId: "c0", toolName: "pay", output: { type: "execution-denied" } }] }] as never)).toHaveLength(1);
    // a response from the assistant's side, or one for a question never asked, is nobody's denial
    expect(deniedCalls([call("c0", { n: 1 }), { role: "assistant", content: deny("c0", { n: 1 }).content }, deny("c9", {})] as never)).toEqual([]);
    expect(deniedCalls([null, { role: "tool", content: "x" }, { role: "tool", content: [null, 7] }] as never)).toEqual([]);
  });
});
