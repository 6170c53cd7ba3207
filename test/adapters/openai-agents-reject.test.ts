/**
 * A person's "no" to an Agents JS interruption (`state.reject(item)`) is durable (outside audit 7,
 * F10): Agents JS handles a rejection itself, calling none of the tool's hooks, so the adapter
 * learns of it where the run's context takes it (`RunContext.rejectTool`) and marks the call's
 * record rejected. The RunState saved when the person was asked, approved later (a retried request,
 * a stale tab, another process), runs nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Agent, run, RunState, setTracingDisabled, tool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { Client } from "../../cli/sdk/index.js";
import { guard, guardOf, guardTools, MemoryApprovals } from "../../cli/adapters/openai-agents/index.js";
import type { CheckEntry, Entry } from "../../worker/portable/engine/index.js";
import { bodies, CATALOGUE, freshSession } from "./fixture.js";
import { billingAgent } from "./agents-billing.js";

beforeAll(() => setTracingDisabled(true));

const refunds = (entries: Entry[]) => entries.filter((e): e is CheckEntry => e.kind === "check" && e.tool === "refund_card").map((e) => `${e.decision}:${e.reasons.join(",")}`);
const said = (text: string) => [assistantMessage(text)];
/** What the model read last, as text (the tool's answer for the call it made). */
const lastSeen = (model: ScriptedModel) => JSON.stringify(model.calls[model.calls.length - 1]?.request.input);

/** The model looks the order up, then asks for the refund (`refund_card` comes `after: [get_order]`). */
const asked = () => [[functionCall("get_order", { order_id: "4411" }, { callId: "c0" })], [functionCall("refund_card", { order_id: "4411", amount: 40 }, { callId: "c1" })]];

/**
 * The person rejects the call in a state read back from `saved`, and the run goes on; then the
 * same saved state is approved and run, as a retried request or a stale tab would.
 */
async function rejectThenApproveStale(agent: Agent<any, any>, model: ScriptedModel, saved: string): Promise<void> {
  const rejected = await RunState.fromString(agent, saved);
  rejected.reject(rejected.getInterruptions()[0]!);
  model.enqueue(said("not refunded"));
  await run(agent, rejected);
  const stale = await RunState.fromString(agent, saved);
  stale.approve(stale.getInterruptions()[0]!);
  model.enqueue(said("refunded?"));
  await run(agent, stale);
}

function setup(session = freshSession().session, approvals?: MemoryApprovals) {
  const b = bodies();
  const model = new ScriptedModel();
  const agent = guard(billingAgent(model, b), session, approvals ? { approvals } : {});
  return { session, b, model, agent };
}

describe("stalwart-agents/openai-agents: a rejection is durable", () => {
  it("the state saved at the ask, approved after the person rejected the call, runs nothing", async () => {
    const { session, b, model, agent } = setup();
    model.enqueue(...asked());
    const first = await run(agent, "refund 40.00 on order 4411");
    await rejectThenApproveStale(agent, model, first.state.toString());
    expect(b.count("refund_card")).toBe(0);
    expect(lastSeen(model)).toMatch(/a person rejected this call/);
    expect(refunds(session.history.entries)).toEqual(["confirm:write"]);
    expect(await guardOf(agent)!.pending("c1")).toMatchObject({ used: true, denied: true });
  });

  it("the rejection is in the store the moment state.reject returns, and holds in another process", async () => {
    const start = freshSession();
    const before = setup(start.session);
    before.model.enqueue(...asked());
    const first = await run(before.agent, "refund 40.00 on order 4411");
    const savedState = first.state.toString();
    first.state.reject(first.interruptions[0]!);
    // saved at once, without running the rejection: the host answered, and stopped there
    const savedApprovals = JSON.stringify(guardOf(before.agent)!.approvals);
    const savedSession = JSON.stringify(start.session.toJSON());

    const session = new Client({ home: start.home }).resume(savedSession, { catalogue: CATALOGUE });
    const after = setup(session, new MemoryApprovals(JSON.parse(savedApprovals)));
    const state = await RunState.fromString(after.agent, savedState);
    state.approve(state.getInterruptions()[0]!);
    after.model.enqueue(said("refunded?"));
    await run(after.agent, state);
    expect(before.b.count("refund_card") + after.b.count("refund_card")).toBe(0);
    expect(lastSeen(after.model)).toMatch(/a person rejected this call/);
  });

  // outside audit 11, F3: the same call under the same id in a later run took the rejected
  // record's place as a new question, and the state saved at the first, approved, spent it
  it("the same call under the same id in a later run is refused, not asked again: the first question's state runs nothing", async () => {
    const { session, b, model, agent } = setup();
    model.enqueue(...asked());
    const first = await run(agent, "refund 40.00 on order 4411");
    const saved = first.state.toString();
    const rejected = await RunState.fromString(agent, saved);
    rejected.reject(rejected.getInterruptions()[0]!);
    model.enqueue(said("not refunded"));
    await run(agent, rejected);
    model.enqueue([functionCall("refund_card", { order_id: "4411", amount: 40 }, { callId: "c1" })], said("I cannot refund it."));
    const again = await run(agent, "refund 40.00 on order 4411, please");
    expect(again.interruptions).toEqual([]);
    expect(lastSeen(model)).toMatch(/a person rejected this call, and an approval sent for it later runs nothing; the same call under the same call id is not asked again/);
    const stale = await RunState.fromString(agent, saved);
    stale.approve(stale.getInterruptions()[0]!);
    model.enqueue(said("refunded?"));
    await run(agent, stale);
    expect(b.count("refund_card")).toBe(0);
    expect(refunds(session.history.entries)).toEqual(["confirm:write"]);
  });

  it("tools guarded with guardTools: the rejection is durable too", async () => {
    const { session } = freshSession();
    const b = bodies();
    const model = new ScriptedModel();
    const raw = billingAgent(model, b);
    const tools = guardTools(raw.tools, session);
    const agent = raw.clone({ tools });
    await session.read("refund 40.00 on order 4411");
    model.enqueue(...asked());
    const first = await run(agent, "refund 40.00 on order 4411");
    await rejectThenApproveStale(agent, model, first.state.toString());
    expect(b.count("refund_card")).toBe(0);
    expect(lastSeen(model)).toMatch(/a person rejected this call/);
  });
});
