/**
 * A host's own tool input guardrails run after the guard's. When one of them stops a call the
 * check allowed (it rejects the call, trips, or throws), the tool never runs — but the guard kept
 * the allowed check open: no report, so the call counted as made (an `at_most: 1` tool refused its
 * next call with `order_rule`, a spend stayed reserved) and its verdict lingered. Now such a call is
 * reported `failed`. Real `run()` loops with Agents JS's scripted model.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Agent, run, setTracingDisabled, tool, type ToolInputGuardrailDefinition } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { Client } from "../../cli/sdk/index.js";
import { guard } from "../../cli/adapters/openai-agents/index.js";
import type { CheckEntry, Entry } from "../../worker/portable/engine/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

beforeAll(() => setTracingDisabled(true));

const CATALOGUE = `
settings: {language: en}
tools:
  - name: tag_order
    writes: true
    confirm: when_held
    at_most: 1
    args: {type: object, properties: {order_id: {type: string}, tag: {type: string}}, required: [order_id, tag], additionalProperties: false}
`;

const checks = (entries: Entry[]) => entries.filter((e): e is CheckEntry => e.kind === "check");
const reportsOf = (entries: Entry[], step: number) => entries.filter((e) => e.kind === "report" && e.of === step);
const call = (args: Record<string, unknown>, callId: string) => [functionCall("tag_order", args, { callId })];
const said = (text: string) => [assistantMessage(text)];

/** A guarded agent whose `tag_order` carries the host's guardrail `host`, answering `first` once and allowing after. */
function setup(first: "rejectContent" | "throwException" | "throws") {
  const session = new Client({ home: licensedHome("adapters-host-guardrail") }).session("tags", { catalogue: CATALOGUE });
  const ran: unknown[] = [];
  let calls = 0;
  const host: ToolInputGuardrailDefinition = {
    type: "tool_input",
    name: "host-policy",
    run: async () => {
      calls++;
      if (calls > 1) return { behavior: { type: "allow" } };
      if (first === "throws") throw new Error("the host's policy service is down");
      return { behavior: first === "rejectContent" ? { type: "rejectContent", message: "the host's policy says not now" } : { type: "throwException" } };
    },
  };
  const tagOrder = tool({ name: "tag_order", description: "tag", parameters: z.object({ order_id: z.string(), tag: z.string() }), execute: (a) => (ran.push(a), "tagged"), inputGuardrails: [host] });
  const model = new ScriptedModel();
  const agent = guard(new Agent({ name: "tags", instructions: "help", tools: [tagOrder], model }), session);
  return { session, ran, model, agent };
}

describe("stalwart-agents/openai-agents: a call the host's own guardrail stops", () => {
  it("rejected by the host after the check allowed it: reported failed, so the tool's one call is still there to make", async () => {
    const { session, ran, model, agent } = setup("rejectContent");
    model.enqueue(call({ order_id: "4411", tag: "vip" }, "c1"), call({ order_id: "4411", tag: "vip" }, "c2"), said("tagged"));
    const r = await run(agent, "tag order 4411 as vip");
    expect(r.finalOutput).toBe("tagged");
    expect(ran).toHaveLength(1);
    const [first, second] = checks(session.history.entries);
    expect(first).toMatchObject({ tool: "tag_order", decision: "allow" });
    expect(reportsOf(session.history.entries, first!.step)).toMatchObject([{ outcome: "failed" }]);
    // the stopped call does not count against `at_most: 1`: the next one is allowed and runs
    expect(second).toMatchObject({ tool: "tag_order", decision: "allow" });
    expect(reportsOf(session.history.entries, second!.step)).toMatchObject([{ outcome: "ran" }]);
  });

  for (const how of ["throwException", "throws"] as const) {
    it(`the host's guardrail ${how === "throws" ? "throws" : "trips (throwException)"}: the run ends, and the allowed call is reported failed`, async () => {
      const { session, ran, model, agent } = setup(how);
      model.enqueue(call({ order_id: "4411", tag: "vip" }, "c1"), said("tagged"));
      await expect(run(agent, "tag order 4411 as vip")).rejects.toThrow();
      expect(ran).toHaveLength(0);
      const [first] = checks(session.history.entries);
      expect(first).toMatchObject({ tool: "tag_order", decision: "allow" });
      expect(reportsOf(session.history.entries, first!.step)).toMatchObject([{ outcome: "failed" }]);
    });
  }
});
