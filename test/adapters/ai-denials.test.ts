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

describe.each(KITS)("stalwart-agents/ai with ai $major: a denied call", ({ major, sdk, Mock, onStart }) => {
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

  // outside audit 11, F2: ai 7 denies what is falsy; the guard kept only `false` (ai 6 refuses
  // such messages itself: `approved` must be a boolean there)
  it("a denial given as 0, null or no answer at all stays a denial too", async () => {
    for (const no of [{ approved: 0 }, { approved: null }, {}]) {
      const { b, tools } = setup();
      const { saved, approvalId } = await asked(tools);
      const answered = generate(tools, ["not refunded"], [...saved, { role: "tool", content: [{ type: "tool-approval-response", approvalId, ...no }] }]).result;
      if (major === 6) {
        // ai 6 refuses the answer as it is given: nothing was decided, and the host is told
        await expect(answered).rejects.toThrow(/Invalid prompt/);
        expect(b.count("refund_card")).toBe(0);
        continue;
      }
      await answered;
      await generate(tools, ["refunded?"], [...saved, answer(approvalId, true)]).result;
      expect(b.count("refund_card"), JSON.stringify(no)).toBe(0);
    }
  });

  // outside audit 11, F4: a host keeping the call's input as the model's JSON text
  it("a denial whose messages keep the call's input as JSON text stays a denial", async () => {
    const { b, tools } = setup();
    const { saved, approvalId } = await asked(tools);
    const asText = saved.map((m: any) => (Array.isArray(m.content) ? { ...m, content: m.content.map((p: any) => (p.type === "tool-call" ? { ...p, input: JSON.stringify(p.input) } : p)) } : m));
    await generate(tools, ["not refunded"], [...asText, answer(approvalId, false)]).result;
    await generate(tools, ["refunded?"], [...saved, answer(approvalId, true)]).result;
    expect(b.count("refund_card")).toBe(0);
  });

  // outside audit 11, F1 and F3: a provider that reuses ids asks the same call again after the
  // denial; a second question took the record's place, and the approval of the first, from a copy
  // saved when it was asked, spent it (or the second denial was not kept)
  it("the same call made again under its id after a denial is refused, not asked again: an old approval spends nothing", async () => {
    const { b, tools } = setup();
    const { saved, approvalId } = await asked(tools);
    const denied = [...saved, answer(approvalId, false)];
    const again = generate(tools, [[REFUND], "I will not refund it."], denied);
    const r = await again.result;
    expect(r.content.some((p: { type: string }) => p.type === "tool-approval-request")).toBe(false);
    expect(JSON.stringify(again.model.doGenerateCalls.at(-1).prompt)).toMatch(/a person rejected this call, and an approval sent for it later runs nothing; the same call under the same call id is not asked again/);
    await generate(tools, ["refunded?"], [...saved, answer(approvalId, true)]).result;
    expect(b.count("refund_card")).toBe(0);
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
    expect(deniedCalls([call("c0", { n: 1 }), deny("c0", { n: 1 })] as never)).toEqual([{ toolCallId: "c0", toolName: "pay", input: { n: 1 }, question: 'a-c0-{"n":1}' }]);
    expect(deniedCalls([call("c0", { n: 1 }), { role: "tool", content: [{ type: "tool-result", toolCallId: "c0", toolName: "pay", output: { type: "execution-denied" } }] }] as never)).toHaveLength(1);
    // a response from the assistant's side, or one for a question never asked, is nobody's denial
    expect(deniedCalls([call("c0", { n: 1 }), { role: "assistant", content: deny("c0", { n: 1 }).content }, deny("c9", {})] as never)).toEqual([]);
    expect(deniedCalls([null, { role: "tool", content: "x" }, { role: "tool", content: [null, 7] }] as never)).toEqual([]);
  });

  // outside audit 11, F2 and F4
  it("an answer that is not `true` is a denial, as the SDK reads it or as the guard refuses it; an input kept as JSON text is read", () => {
    for (const approved of [0, null, undefined, "false", "true", 1]) {
      const answer = { role: "tool", content: [{ type: "tool-approval-response", approvalId: 'a-c0-{"n":1}', ...(approved === undefined ? {} : { approved }) }] };
      expect(deniedCalls([call("c0", { n: 1 }), answer] as never), String(approved)).toHaveLength(1);
    }
    const asText = { role: "assistant", content: [{ type: "tool-call", toolCallId: "c0", toolName: "pay", input: '{"n":1}' }, { type: "tool-approval-request", toolCallId: "c0", approvalId: "q" }] };
    expect(deniedCalls([asText, { role: "tool", content: [{ type: "tool-approval-response", approvalId: "q", approved: false }] }] as never)).toEqual([{ toolCallId: "c0", toolName: "pay", input: { n: 1 }, question: "q" }]);
  });
});
