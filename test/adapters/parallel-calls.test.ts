/**
 * Calls a model sends together in one step, through `stalwart-agents/ai` in the AI SDK's real
 * `generateText` loop (each `ai` major the adapter supports). The framework runs them at once,
 * and a provider may put two calls under one id: "once" must still be once, and an allowed check
 * must never be left holding what it reserved for a call that did not run on it.
 */
import { describe, expect, it } from "vitest";
import * as ai7 from "ai";
import * as ai7test from "ai/test";
import * as ai6 from "ai-v6";
import * as ai6test from "ai-v6/test";
import { z } from "zod";
import { Agent, run, setTracingDisabled, tool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { guard } from "../../cli/adapters/ai/index.js";
import { guard as guardAgent } from "../../cli/adapters/openai-agents/index.js";
import { Client } from "../../cli/sdk/index.js";
import type { CheckEntry, Entry, ReportEntry } from "../../worker/portable/engine/index.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { script, type Step } from "./ai-script.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- one test body over two majors' types */
const KITS = [
  { major: 7, sdk: ai7 as any, Mock: ai7test.MockLanguageModelV4 as any },
  { major: 6, sdk: ai6 as any, Mock: ai6test.MockLanguageModelV3 as any },
];

const CATALOGUE = `
settings: {language: en}
tools:
  - name: tag_order
    writes: true
    confirm: when_held
    at_most: 1
    args: {type: object, properties: {order_id: {type: string}, tag: {type: string}}, required: [order_id, tag], additionalProperties: false}
  - name: pay
    writes: true
    confirm: when_held
    spend: [{field: amount, at_most: 60, per: session}]
    currency: USD
    args: {type: object, properties: {account: {type: string}, amount: {type: number}}, required: [account, amount], additionalProperties: false}
`;
const ASKED = "tag order 4411 as vip; pay acct-1 50, acct-2 50 and acct-3 5";

/** Every allowed check and what was reported of it: an allowed check with no report still holds its reservation. */
function ledger(entries: Entry[]) {
  const reports = entries.filter((e): e is ReportEntry => e.kind === "report");
  return entries
    .filter((e): e is CheckEntry => e.kind === "check" && e.decision === "allow")
    .map((c) => ({ step: c.step, tool: c.tool, outcomes: reports.filter((r) => r.of === c.step).map((r) => r.outcome) }));
}

function setup(sdk: any) {
  const session = new Client({ home: licensedHome("parallel") }).session("p", { catalogue: CATALOGUE });
  const ran: string[] = [];
  // each body takes a while, so the calls of one step overlap
  const slow = async <T>(what: string, out: T) => (ran.push(what), await new Promise((r) => setTimeout(r, 15)), out);
  const tools = guard({
    tag_order: sdk.tool({ inputSchema: z.object({ order_id: z.string(), tag: z.string() }), execute: (a: { order_id: string }) => slow(`tag ${a.order_id}`, { ok: true }) }),
    pay: sdk.tool({ inputSchema: z.object({ account: z.string(), amount: z.number() }), execute: (a: { account: string }) => slow(`pay ${a.account}`, { paid: true }) }),
  }, session);
  return { session, ran, tools };
}

describe.each(KITS)("calls of one step, ai $major", ({ sdk, Mock }) => {
  const loop = async (tools: unknown, steps: Step[]) => {
    const model = new Mock(script(steps));
    return sdk.generateText({ model, tools, messages: [{ role: "user", content: ASKED }], stopWhen: sdk.stepCountIs(4) });
  };

  it("the same call twice under one id runs once: the second is checked afresh and refused by `at_most: 1`", async () => {
    const { session, ran, tools } = setup(sdk);
    const call = { id: "call_0", tool: "tag_order", input: { order_id: "4411", tag: "vip" } };
    const r = await loop(tools, [[call, call], "done"]);
    expect(ran).toEqual(["tag 4411"]);
    const errors = r.steps[0].content.filter((c: any) => c.type === "tool-error");
    expect(errors.map((e: any) => String(e.error?.message ?? e.error))).toEqual([expect.stringContaining("order_rule")]);
    expect(ledger(session.history.entries)).toEqual([{ step: expect.any(Number), tool: "tag_order", outcomes: ["ran"] }]);
  });

  it("two calls under one id with other inputs: each is judged on its own input, and no allowed check is left holding its spend", async () => {
    const { session, ran, tools } = setup(sdk);
    const r = await loop(tools, [[
      { id: "c1", tool: "pay", input: { account: "acct-1", amount: 50 } },
      { id: "c2", tool: "pay", input: { account: "acct-2", amount: 50 } },
      { id: "c2", tool: "pay", input: { account: "acct-3", amount: 5 } },
    ], "done"]);
    expect(ran.sort()).toEqual(["pay acct-1", "pay acct-3"]);
    const errors = r.steps[0].content.filter((c: any) => c.type === "tool-error");
    expect(errors.map((e: any) => String(e.error?.message ?? e.error))).toEqual([expect.stringContaining("spend_exceeded")]);
    // every allowed check was reported: the two that ran `ran`, any let go before its call ran `failed`
    const l = ledger(session.history.entries);
    for (const c of l) expect(c.outcomes, `step ${c.step}`).toHaveLength(1);
    expect(l.filter((c) => c.outcomes[0] === "ran")).toHaveLength(2);
    // so what is left of the ceiling is what the two runs did not spend: 5 more fits, 6 does not
    const more = await session.checkToolCall("pay", { account: "acct-4", amount: 5 }, { origins: { account: "computed", amount: "computed" } });
    expect(more.decision).toBe("allow");
    await session.report(more.step, "failed");
    const over = await session.checkToolCall("pay", { account: "acct-4", amount: 6 }, { origins: { account: "computed", amount: "computed" } });
    expect(over.reasons).toContain("spend_exceeded");
  });
});

describe("calls of one turn, Agents JS", () => {
  it("two calls together past `at_most: 1` and a spend ceiling: one of each runs, and the model reads why the others did not", async () => {
    setTracingDisabled(true);
    const session = new Client({ home: licensedHome("parallel-agents") }).session("p", { catalogue: CATALOGUE });
    const ran: string[] = [];
    const slow = async (what: string) => (ran.push(what), await new Promise((r) => setTimeout(r, 15)), "ok");
    const model = new ScriptedModel();
    const agent = guardAgent(new Agent({ name: "b", instructions: "x", model, tools: [
      tool({ name: "tag_order", description: "t", parameters: z.object({ order_id: z.string(), tag: z.string() }), execute: (a) => slow(`tag ${a.order_id}`) }),
      tool({ name: "pay", description: "p", parameters: z.object({ account: z.string(), amount: z.number() }), execute: (a) => slow(`pay ${a.account}`) }),
    ] }), session);
    model.enqueue([
      functionCall("tag_order", { order_id: "4411", tag: "vip" }, { callId: "a1" }),
      functionCall("tag_order", { order_id: "4411", tag: "vip" }, { callId: "a2" }),
      functionCall("pay", { account: "acct-1", amount: 50 }, { callId: "p1" }),
      functionCall("pay", { account: "acct-2", amount: 50 }, { callId: "p2" }),
    ] as any, [assistantMessage("done")] as any);
    await run(agent, ASKED);
    expect(ran.filter((x) => x.startsWith("tag"))).toEqual(["tag 4411"]);
    expect(ran.filter((x) => x.startsWith("pay"))).toHaveLength(1);
    const sent = JSON.stringify(model.calls[1]?.request.input);
    expect(sent).toContain("order_rule");
    expect(sent).toContain("spend_exceeded");
    for (const c of ledger(session.history.entries)) expect(c.outcomes, `step ${c.step}`).toEqual(["ran"]);
  });
});
