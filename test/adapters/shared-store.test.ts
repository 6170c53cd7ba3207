/**
 * One approvals store for two conversations, with a provider that reuses call ids (`call_0` in
 * each), as a host with one database table does (outside audit 7, F4): each conversation's call
 * is kept under its own session and call id, so each person is asked about their own call and
 * their approval runs it. A token presented in the wrong conversation is refused in words a
 * person reads, not a bare code.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { run, setTracingDisabled } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { Client } from "../../cli/sdk/index.js";
import { guard, guardOf, MemoryApprovals, type ApprovalStore, type PendingApproval } from "../../cli/adapters/openai-agents/index.js";
import { bodies, CATALOGUE } from "./fixture.js";
import { billingAgent } from "./agents-billing.js";
import { licensedHome } from "../helpers/licensed-home.js";

beforeAll(() => setTracingDisabled(true));

/** Two conversations on one client, each its own guarded agent, all on one approvals store. */
function twoConversations(approvals: ApprovalStore) {
  const client = new Client({ home: licensedHome("shared-store") });
  const b = bodies();
  const desk = (name: string, amount: number) => {
    const session = client.session(name, { catalogue: CATALOGUE });
    const model = new ScriptedModel([
      [functionCall("get_order", { order_id: "4411" }, { callId: "g0" })],
      [functionCall("refund_card", { order_id: "4411", amount }, { callId: "call_0" })],
    ]);
    const agent = guard(billingAgent(model, b), session, { approvals });
    return { session, model, agent, ask: () => run(agent, `refund ${amount} on order 4411`) };
  };
  return { b, desk };
}

const lastSeen = (model: ScriptedModel) => JSON.stringify(model.calls[model.calls.length - 1]?.request.input);

describe("stalwart-agents/openai-agents: one approvals store, two conversations", () => {
  it("the same call id in both: each person's approval runs their own call", async () => {
    const { b, desk } = twoConversations(new MemoryApprovals());
    const alice = desk("alice", 40);
    const bob = desk("bob", 40);
    const a = await alice.ask();
    const o = await bob.ask();
    expect([a.interruptions.length, o.interruptions.length]).toEqual([1, 1]);
    o.state.approve(o.interruptions[0]!);
    bob.model.enqueue([assistantMessage("refunded")]);
    await run(bob.agent, o.state);
    expect(b.count("refund_card")).toBe(1);
    a.state.approve(a.interruptions[0]!);
    alice.model.enqueue([assistantMessage("refunded")]);
    await run(alice.agent, a.state);
    expect(b.count("refund_card")).toBe(2);
  });

  it("each pending call keeps its own question", async () => {
    const { desk } = twoConversations(new MemoryApprovals());
    const alice = desk("alice", 40);
    const bob = desk("bob", 30);
    await alice.ask();
    await bob.ask();
    expect((await guardOf(alice.agent)!.pending("call_0"))?.question).toMatch(/amount = 40/);
    expect((await guardOf(bob.agent)!.pending("call_0"))?.question).toMatch(/amount = 30/);
  });

  it("a token presented in another conversation is refused in words, and nothing runs", async () => {
    // A host store that keeps one record whatever the key (keyed by call id alone, say).
    let slot: PendingApproval | undefined;
    const { b, desk } = twoConversations({ get: () => slot, set: (_k, r) => void (slot = r) });
    const alice = desk("alice", 40);
    const bob = desk("bob", 40);
    await alice.ask();
    const o = await bob.ask();
    o.state.approve(o.interruptions[0]!);
    bob.model.enqueue([assistantMessage("refunded?")]);
    await run(bob.agent, o.state);
    expect(b.count("refund_card")).toBe(0);
    expect(lastSeen(bob.model)).toMatch(/given in another conversation/);
  });
});
