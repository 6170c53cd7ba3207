/**
 * A call the check allows and the tool's own `needsApproval` puts to a person has not run, and may
 * never (a denial, an answer that never comes): what its check reserved — here an `at_most: 1` —
 * must not stay held for it. Denied, the person can still have the one call they then approve;
 * approved, the call runs once and counts once. A `needsApproval` of the tool's own that throws
 * stops the loop as it would unguarded, and holds nothing either. Both frameworks' real loops
 * (`ai` 7 with `toolApproval`, `ai` 6 with per-tool `needsApproval`, Agents JS `state.reject` /
 * `approve`).
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as ai7 from "ai";
import * as ai7test from "ai/test";
import * as ai6 from "ai-v6";
import * as ai6test from "ai-v6/test";
import { Agent, run, setTracingDisabled, tool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { Client } from "../../cli/sdk/index.js";
import { guard, toolApproval } from "../../cli/adapters/ai/index.js";
import { guard as guardAgent } from "../../cli/adapters/openai-agents/index.js";
import type { Entry } from "../../worker/portable/engine/index.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { script, type Step } from "./ai-script.js";

beforeAll(() => setTracingDisabled(true));

/** `subscribe` is allowed when the plan was typed (when_held), once per session (`at_most: 1`). */
const CATALOGUE = `
settings: {language: en}
tools:
  - name: subscribe
    writes: true
    confirm: when_held
    at_most: 1
    args: {type: object, properties: {plan: {type: string}}, required: [plan], additionalProperties: false}
`;
const session = () => new Client({ home: licensedHome("own-approval") }).session("own", { catalogue: CATALOGUE });
/** The history as one line per check and report. */
const told = (entries: Entry[]) => entries.flatMap((e) => (e.kind === "check" ? [`check ${e.decision} ${e.reasons.join(",")}`] : e.kind === "report" ? [`report ${e.outcome}`] : []));

/** Each allow that was put to a person is given back (`failed`) as it is asked; the approved one is checked afresh and runs. */
const HISTORY = ["check allow ", "report failed", "check allow ", "report failed", "check allow ", "report ran", "check refuse order_rule"];

/* eslint-disable @typescript-eslint/no-explicit-any -- one test body over two majors' types */
const KITS = [
  { major: 7, sdk: ai7 as any, Mock: ai7test.MockLanguageModelV4 as any, hook: true },
  { major: 6, sdk: ai6 as any, Mock: ai6test.MockLanguageModelV3 as any, hook: false },
];

describe.each(KITS)("ai $major: an allowed call the tool itself asks about", ({ sdk, Mock, hook }) => {
  function setup() {
    const s = session();
    const plans: string[] = [];
    const tools = guard({ subscribe: sdk.tool({ description: "subscribe", inputSchema: z.object({ plan: z.string() }), needsApproval: true, execute: async (a: { plan: string }) => (plans.push(a.plan), { ok: true }) }) }, s);
    const go = async (steps: Step[], messages: any[]) => {
      const r = await sdk.generateText({ model: new Mock(script(steps)), tools, messages, stopWhen: sdk.stepCountIs(4), ...(hook ? { toolApproval: toolApproval(tools) } : {}) });
      return { asked: r.content.filter((p: { type: string }) => p.type === "tool-approval-request"), next: [...messages, ...(r.responseMessages ?? r.response.messages)] };
    };
    const answer = (asked: { approvalId: string }, approved: boolean) => ({ role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved }] });
    return { s, plans, go, answer };
  }

  it("denied, holds nothing: the call the person then approves runs once, and a third is refused", async () => {
    const { s, plans, go, answer } = setup();
    const t1 = await go([[{ id: "c1", tool: "subscribe", input: { plan: "gold" } }]], [{ role: "user", content: "subscribe me to gold" }]);
    expect(t1.asked).toHaveLength(1);
    const t2 = await go(["not subscribed"], [...t1.next, answer(t1.asked[0], false)]);
    const t3 = await go([[{ id: "c2", tool: "subscribe", input: { plan: "gold" } }], "not subscribed"], [...t2.next, { role: "user", content: "yes, subscribe me to gold after all" }]);
    expect(t3.asked).toHaveLength(1);
    const t4 = await go(["subscribed"], [...t3.next, answer(t3.asked[0], true)]);
    expect(plans).toEqual(["gold"]);
    // The one call the session allows is spent now: another is refused, and nobody is asked.
    const t5 = await go([[{ id: "c3", tool: "subscribe", input: { plan: "gold" } }], "no"], [...t4.next, { role: "user", content: "gold again" }]);
    expect(t5.asked).toEqual([]);
    expect(plans).toEqual(["gold"]);
    expect(told(s.history.entries)).toEqual(HISTORY);
  });
});

describe.each(KITS)("ai $major: a needsApproval of the tool's own that throws", ({ sdk, Mock, hook }) => {
  it("stops the loop as it would unguarded, and holds nothing: the next call runs", async () => {
    const s = session();
    const plans: string[] = [];
    let broken = true;
    const own = () => {
      if (broken) throw new Error("the approval policy is unreachable");
      return false;
    };
    const tools = guard({ subscribe: sdk.tool({ description: "subscribe", inputSchema: z.object({ plan: z.string() }), needsApproval: own, execute: async (a: { plan: string }) => (plans.push(a.plan), { ok: true }) }) }, s);
    const go = (id: string) => sdk.generateText({ model: new Mock(script([[{ id, tool: "subscribe", input: { plan: "gold" } }], "done"])), tools, messages: [{ role: "user", content: "subscribe me to gold" }], stopWhen: sdk.stepCountIs(4), ...(hook ? { toolApproval: toolApproval(tools) } : {}) });
    await expect(go("c1")).rejects.toThrow(/the approval policy is unreachable/);
    broken = false;
    await go("c2");
    expect(plans).toEqual(["gold"]);
    expect(told(s.history.entries)).toEqual(["check allow ", "report failed", "check allow ", "report ran"]);
  });
});

describe("Agents JS: an allowed call the tool itself asks about", () => {
  it("rejected, holds nothing: the call the person then approves runs once, and a third is refused", async () => {
    const s = session();
    const plans: string[] = [];
    const model = new ScriptedModel();
    const subscribe = tool({ name: "subscribe", description: "subscribe", parameters: z.object({ plan: z.string() }), needsApproval: true, execute: async (a) => (plans.push(a.plan), { ok: true }) });
    const agent = guardAgent(new Agent({ name: "desk", instructions: "help", model, tools: [subscribe] }), s);
    model.enqueue([functionCall("subscribe", { plan: "gold" }, { callId: "c1" })], [assistantMessage("not subscribed")]);
    const first = await run(agent, "subscribe me to gold");
    expect(first.interruptions).toHaveLength(1);
    first.state.reject(first.interruptions[0]!);
    await run(agent, first.state);
    model.enqueue([functionCall("subscribe", { plan: "gold" }, { callId: "c2" })], [assistantMessage("subscribed")]);
    const second = await run(agent, "yes, subscribe me to gold after all");
    expect(second.interruptions).toHaveLength(1);
    second.state.approve(second.interruptions[0]!);
    await run(agent, second.state);
    expect(plans).toEqual(["gold"]);
    model.enqueue([functionCall("subscribe", { plan: "gold" }, { callId: "c3" })], [assistantMessage("no")]);
    const third = await run(agent, "gold again");
    expect(third.interruptions).toEqual([]);
    expect(plans).toEqual(["gold"]);
    expect(told(s.history.entries)).toEqual(HISTORY);
  });

  it("a needsApproval of the tool's own that throws stops the run as it would unguarded, and holds nothing: the next call runs", async () => {
    const s = session();
    const plans: string[] = [];
    let broken = true;
    const own = async () => {
      if (broken) throw new Error("the approval policy is unreachable");
      return false;
    };
    const model = new ScriptedModel();
    const subscribe = tool({ name: "subscribe", description: "subscribe", parameters: z.object({ plan: z.string() }), needsApproval: own, execute: async (a) => (plans.push(a.plan), { ok: true }) });
    const agent = guardAgent(new Agent({ name: "desk", instructions: "help", model, tools: [subscribe] }), s);
    model.enqueue([functionCall("subscribe", { plan: "gold" }, { callId: "c1" })]);
    await expect(run(agent, "subscribe me to gold")).rejects.toThrow(/the approval policy is unreachable/);
    broken = false;
    model.enqueue([functionCall("subscribe", { plan: "gold" }, { callId: "c2" })], [assistantMessage("subscribed")]);
    await run(agent, "subscribe me to gold");
    expect(plans).toEqual(["gold"]);
    expect(told(s.history.entries)).toEqual(["check allow ", "report failed", "check allow ", "report ran"]);
  });
});
