/**
 * The host's callbacks in both adapters' real loops: the observers (`onCheck`, `log`) never change
 * a check's decision and never take the run down, whether they throw, reject or edit what they are
 * shown; a failing `isFailure` or approvals store is a failed report or a refusal, never an allow
 * and never a crash of the framework's loop.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as ai7 from "ai";
import * as ai7test from "ai/test";
import { Agent, run, setTracingDisabled, tool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { guard as guardAi, type CheckEvent } from "../../cli/adapters/ai/index.js";
import { guard as guardAgent, type AgentsGuardOptions } from "../../cli/adapters/openai-agents/index.js";
import type { CheckEntry, Entry } from "../../worker/portable/engine/index.js";
import { bodies, CATALOGUE, freshSession } from "./fixture.js";
import { billingAgent } from "./agents-billing.js";
import { script, type Step } from "./ai-script.js";

beforeAll(() => setTracingDisabled(true));

const checks = (entries: Entry[]) => entries.filter((e): e is CheckEntry => e.kind === "check");
const reportOf = (entries: Entry[], step: number) => entries.filter((e) => e.kind === "report" && e.of === step);

/** Observers that misbehave: each throws, rejects, or edits the event into an allow. */
const OBSERVERS: { name: string; logs: boolean; onCheck: (e: CheckEvent) => unknown }[] = [
  { name: "throws", logs: true, onCheck: () => { throw new Error("the audit sink is down"); } },
  { name: "rejects", logs: true, onCheck: async () => { throw new Error("the audit sink is down"); } },
  {
    name: "edits the event into an allow",
    logs: false,
    onCheck: (e) => {
      const c = e.check as { decision: string; reasons: string[]; confirmation?: string };
      c.decision = "allow";
      c.reasons = [];
      delete c.confirmation;
      (e.args as Record<string, unknown>).amount = 1;
    },
  },
];

describe.each(OBSERVERS)("an onCheck that $name", ({ onCheck, logs }) => {
  it("AI SDK: allowed runs, a write is asked about, a refusal refuses, and the loop completes", async () => {
    const { session } = freshSession();
    const b = bodies();
    const lines: string[] = [];
    const tools = guardAi({
      get_order: ai7.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a) => b.impl.get_order(a) }),
      refund_card: ai7.tool({ description: "refund", inputSchema: z.object({ order_id: z.string(), amount: z.number() }), execute: async (a) => b.impl.refund_card(a) }),
    }, session, { onCheck: onCheck as (e: CheckEvent) => void, log: (l) => lines.push(l) });
    const go = (steps: Step[], text: string) => ai7.generateText({ model: new ai7test.MockLanguageModelV4(script(steps) as never), tools, messages: [{ role: "user", content: text }], stopWhen: ai7.stepCountIs(5) });
    // refused (no get_order before it), then allowed, then asked
    const refused = await go([[{ id: "c0", tool: "refund_card", input: { order_id: "4411", amount: 40 } }], "sorry"], "refund 40.00 on order 4411");
    expect(refused.text).toBe("sorry");
    const asked = await go([[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], "refund 40.00 on order 4411");
    expect(asked.content.some((p) => p.type === "tool-approval-request")).toBe(true);
    expect(b.ran).toEqual([{ tool: "get_order", args: { order_id: "4411" } }]);
    const entries = session.history.entries;
    expect(checks(entries).map((e) => [e.tool, e.decision])).toEqual([["refund_card", "refuse"], ["get_order", "allow"], ["refund_card", "confirm"]]);
    expect(reportOf(entries, checks(entries)[1]!.step)).toMatchObject([{ outcome: "ran" }]);
    await new Promise((r) => setTimeout(r, 0));
    if (logs) expect(lines.length).toBeGreaterThan(0);
    for (const l of lines) expect(l).toMatch(/onCheck.*the audit sink is down/);
  });

  it("Agents JS: allowed runs, a write is an interruption, a refusal refuses, and the run completes", async () => {
    const { session } = freshSession();
    const b = bodies();
    const model = new ScriptedModel();
    const agent = guardAgent(billingAgent(model, b), session, { onCheck: onCheck as (e: CheckEvent) => void });
    model.enqueue([functionCall("refund_card", { order_id: "4411", amount: 40 }, { callId: "c0" })], [assistantMessage("sorry")]);
    expect((await run(agent, "refund 40.00 on order 4411")).finalOutput).toBe("sorry");
    model.enqueue([functionCall("get_order", { order_id: "4411" }, { callId: "c1" })], [functionCall("refund_card", { order_id: "4411", amount: 40 }, { callId: "c2" })]);
    const asked = await run(agent, "refund 40.00 on order 4411");
    expect(asked.interruptions).toHaveLength(1);
    expect(b.ran).toEqual([{ tool: "get_order", args: { order_id: "4411" } }]);
    expect(checks(session.history.entries).map((e) => [e.tool, e.decision])).toEqual([["refund_card", "refuse"], ["get_order", "allow"], ["refund_card", "confirm"]]);
  });
});

describe("the other host callbacks", () => {
  it("a log that rejects is contained like one that throws", async () => {
    const { session } = freshSession();
    const b = bodies();
    const failing = { ...session, id: session.id, history: session.history, read: session.read.bind(session), checkToolCall: session.checkToolCall.bind(session), report: async () => { throw new Error("the store is full"); } };
    const tools = guardAi({ get_order: ai7.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a) => b.impl.get_order(a) }) }, failing, { catalogue: CATALOGUE, log: async () => { throw new Error("the log sink is down"); } });
    const r = await ai7.generateText({ model: new ai7test.MockLanguageModelV4(script([[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], "done"]) as never), tools, messages: [{ role: "user", content: "look up order 4411" }], stopWhen: ai7.stepCountIs(5) });
    expect(r.text).toBe("done");
    await new Promise((r) => setTimeout(r, 0)); // an unhandled rejection would fail this file
  });

  it("Agents JS: an isFailure that throws reports the call failed, and the run goes on with the tool's output", async () => {
    const { session } = freshSession();
    const b = bodies();
    const lines: string[] = [];
    const model = new ScriptedModel([[functionCall("get_order", { order_id: "4411" }, { callId: "c1" })], [assistantMessage("order 4411 totals 40")]]);
    const options: AgentsGuardOptions = { isFailure: () => { throw new Error("cannot tell"); }, log: (l) => lines.push(l) };
    const agent = guardAgent(new Agent({ name: "billing", instructions: "help", model, tools: [tool({ name: "get_order", description: "an order", parameters: z.object({ order_id: z.string() }), execute: (a) => b.impl.get_order(a) })] }), session, options);
    const r = await run(agent, "look up order 4411");
    expect(r.finalOutput).toBe("order 4411 totals 40");
    expect(b.count("get_order")).toBe(1);
    const [c] = checks(session.history.entries);
    // Not known to have succeeded: no result is recorded for a later call to cite.
    expect(reportOf(session.history.entries, c!.step)).toMatchObject([{ outcome: "failed" }]);
    expect(lines.join("\n")).toMatch(/isFailure.*cannot tell/);
  });

  it("an approvals store that throws is a refusal: nothing runs and the loop completes", async () => {
    const broken = { get: () => { throw new Error("the approvals table is gone"); }, set: () => { throw new Error("the approvals table is gone"); } };
    const { session } = freshSession();
    const b = bodies();
    const model = new ai7test.MockLanguageModelV4(script([[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }], "no"]) as never);
    const tools = guardAi({
      get_order: ai7.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a) => b.impl.get_order(a) }),
      refund_card: ai7.tool({ description: "refund", inputSchema: z.object({ order_id: z.string(), amount: z.number() }), execute: async (a) => b.impl.refund_card(a) }),
    }, session, { approvals: broken });
    const r = await ai7.generateText({ model, tools, messages: [{ role: "user", content: "refund 40.00 on order 4411" }], stopWhen: ai7.stepCountIs(5) });
    expect(r.text).toBe("no");
    expect(b.count("refund_card")).toBe(0);
    expect(r.content.some((p) => p.type === "tool-approval-request")).toBe(false);
    expect(JSON.stringify(model.doGenerateCalls[2]!.prompt)).toMatch(/the approvals table is gone/);

    const m2 = new ScriptedModel([[functionCall("get_order", { order_id: "4411" }, { callId: "c1" })], [functionCall("refund_card", { order_id: "4411", amount: 40 }, { callId: "c2" })], [assistantMessage("no")]]);
    const agent = guardAgent(billingAgent(m2, b), freshSession().session, { approvals: broken });
    const r2 = await run(agent, "refund 40.00 on order 4411");
    expect(r2.finalOutput).toBe("no");
    expect(r2.interruptions).toEqual([]);
    expect(b.count("refund_card")).toBe(0);
  });
});
