/**
 * Step 8, the rulebook gate (checks.md "Rulebook gate", "Undo bound to what it undoes"): a
 * refusing rule refuses naming itself with its flow in detail; an asking rule adds `gate_clarify`;
 * facts nobody sent refuse (fail closed); an undo is never refused, only asked about; reads are
 * gated too. Unit tests on the pure step with a minimal step input (its holds collected here, as
 * the orchestrator does), then the step in the orchestrator's order to see what the caller gets.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import { runSteps, STEPS, type NamedStep } from "../../worker/portable/engine/check/orchestrator.js";
import { rulebookGate as gate } from "../../worker/portable/engine/check/steps/rulebook.js";
import type { Call, Hold, StepInput, StepResult } from "../../worker/portable/engine/check/types.js";
import type { Entry } from "../../worker/portable/engine/history/entry.js";
import { HistoryIndex } from "../../worker/portable/engine/history/index.js";
import { TurnIndex } from "../../worker/portable/engine/origins/typed.js";
import { compileRulebook, type CompiledRulebook } from "../../worker/portable/engine/rulebook/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { NOTHING_KEPT } from "../../worker/portable/engine/state/changes.js";

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), "utf8");
const catalogue = loadCatalogue(read("examples/store/agent.yaml"), { file: "agent.yaml", schemaCompiler: ajvCompiler });
const store = compileRulebook(read("examples/store/rulebook.yaml"), { file: "rulebook.yaml", catalogue });
const rich = compileRulebook(read("test/fixtures/rulebooks/rich.yaml"), { file: "rich.yaml", catalogue });

type Input = StepInput & { holds: Hold[] };

/** The step, with the holds it contributes collected into its input as the orchestrator does. */
function rulebookGate(c: Call, input: Input): StepResult {
  const r = gate(c, input);
  if (r.kind !== "pass") return r;
  input.holds.push(...(r.holds ?? []));
  return { kind: "pass" };
}

/** What session.ts builds, reduced to what the steps read; `valueDigest` is JSON here, in the entries too. */
function context(rulebook: CompiledRulebook | undefined, results: Record<string, Record<string, unknown>> = {}, history: Entry[] = []): Input {
  const tool = catalogue.tools.get("refund_card");
  if (!tool) throw new Error("the store catalogue has refund_card");
  return {
    catalogue,
    tool,
    history,
    sessionId: "s-test",
    turns: new TurnIndex("en"),
    context: {},
    now: Date.UTC(2025, 0, 31),
    openToken: () => null,
    holds: [],
    index: new HistoryIndex(catalogue, history),
    from: (tool, path) => results[tool]?.[path],
    valueDigest: (v) => JSON.stringify(v),
    kept: NOTHING_KEPT,
    taintModelAfterUntrusted: false,
    ...(rulebook ? { rulebook } : {}),
  };
}

/** A history where `charge_card` ran as step 0 with these arguments (what an undo undoes). */
function charged(args: Record<string, unknown>): Entry[] {
  const values = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, JSON.stringify(v)]));
  return [
    { v: 1, step: 0, at: 0, kind: "check", tool: "charge_card", agent: null, args: "0".repeat(64), origins: "0".repeat(64), labels: [], decision: "allow", reasons: ["confirmed"], confirmed: null, undo_of: null, values, link: "" },
    { v: 1, step: 1, at: 0, kind: "report", of: 0, outcome: "ran", result: { charge_id: "ch-1" }, link: "" },
  ] as Entry[];
}

function call(tool: string, args: Record<string, unknown>, options: { facts?: Record<string, unknown>; undoOf?: number } = {}): Call {
  const origins = Object.fromEntries(Object.keys(args).map((k) => [k, "context"]));
  return {
    tool, args, digest: "0".repeat(64), originsDigest: "0".repeat(64), origins, labels: [], labelsByArg: {}, agent: null,
    facts: options.facts ?? {},
    ...(options.undoOf !== undefined ? { undoOf: options.undoOf } : {}),
  };
}

const refund = (amount: number) => ({ order_id: "4411", amount });
const paid = { order_status: "paid" };

describe("step 8 on its own", () => {
  it("passes without a rulebook, and for a tool no rule names", () => {
    expect(rulebookGate(call("refund_card", refund(40)), context(undefined))).toEqual({ kind: "pass" });
    const ctx = context(store);
    expect(rulebookGate(call("get_order", { order_id: "4411" }), ctx)).toEqual({ kind: "pass" });
    expect(ctx.holds).toEqual([]);
  });

  it("a refusing rule refuses with its name as the reason and its flow in detail", () => {
    const ctx = context(store);
    expect(rulebookGate(call("refund_card", refund(40), { facts: { order_status: "pending" } }), ctx)).toEqual({
      kind: "refuse",
      reason: "refund_only_paid_orders",
      detail: { flow: "refunds", rule: "refund_only_paid_orders", wording: "Only paid orders can be refunded." },
    });
    expect(ctx.holds).toEqual([]);
  });

  it("a rule whose `when` does not hold passes", () => {
    const ctx = context(store);
    expect(rulebookGate(call("refund_card", refund(40), { facts: paid }), ctx)).toEqual({ kind: "pass" });
    expect(ctx.holds).toEqual([]);
  });

  it("an asking rule adds a gate_clarify hold with its question and flow, and passes on", () => {
    const ctx = context(store);
    expect(rulebookGate(call("refund_card", refund(600), { facts: paid }), ctx)).toEqual({ kind: "pass" });
    expect(ctx.holds).toEqual<Hold[]>([
      { reason: "gate_clarify", detail: { question: "Refunds over 500 need a second look: go ahead?", flow: "refunds" }, wording: "Refunds over 500 need a second look: go ahead?" },
    ]);
  });

  it("facts nobody sent: the refusing rule refuses anyway, naming what could not be read", () => {
    const r = rulebookGate(call("refund_card", refund(40)), context(store));
    expect(r).toMatchObject({ kind: "refuse", reason: "refund_only_paid_orders", detail: { flow: "refunds", rule: "refund_only_paid_orders", unknown: "facts.order_status" } });
    expect((r as unknown as { detail: { wording: string } }).detail.wording).toMatch(/^Only paid orders can be refunded\. .*facts\.order_status.* could not be read/);
  });

  it("a value nobody could read makes an asking rule ask", () => {
    const rb = compileRulebook("rules:\n  - {name: big, flow: refunds, tools: [refund_card], when: [{field: args.amount, over: {from: get_order.total}}], then: ask, question: More than the order?}\n", { catalogue });
    const ctx = context(rb); // get_order never returned
    expect(rulebookGate(call("refund_card", refund(40)), ctx)).toEqual({ kind: "pass" });
    expect(ctx.holds).toEqual([{ reason: "gate_clarify", detail: { question: "More than the order?", flow: "refunds", unknown: "get_order.total" }, wording: "More than the order?" }]);
  });

  it("reads `{from: tool.field}` through ctx.from", () => {
    const over = context(rich, { get_order: { total: 30 } });
    expect(rulebookGate(call("refund_card", refund(40), { facts: { ...paid, customer_tier: "vip", open_disputes: [] } }), over)).toMatchObject({ kind: "refuse", reason: "refund_within_order_total" });
    const under = context(rich, { get_order: { total: 50 } });
    expect(rulebookGate(call("refund_card", refund(40), { facts: { ...paid, customer_tier: "vip", open_disputes: [] } }), under)).toEqual({ kind: "pass" });
    const never = context(rich);
    expect(rulebookGate(call("refund_card", refund(40), { facts: { ...paid, customer_tier: "vip", open_disputes: [] } }), never)).toMatchObject({ kind: "refuse", reason: "refund_within_order_total", detail: { unknown: "get_order.total" } });
  });

  it("the first refusing rule in file order wins, and an earlier asking rule's hold is dropped with the refusal", () => {
    const rb = compileRulebook(
      "rules:\n" +
        "  - {name: ask_first, flow: a, tools: [refund_card], then: ask, question: Sure?}\n" +
        "  - {name: first_refusal, flow: b, tools: [refund_card], when: [{field: args.amount, over: 10}], then: refuse}\n" +
        "  - {name: second_refusal, flow: c, when: [{field: facts.x, is: 1}], then: refuse}\n",
    );
    const ctx = context(rb);
    expect(rulebookGate(call("refund_card", refund(40), { facts: { x: 1 } }), ctx)).toMatchObject({ kind: "refuse", reason: "first_refusal", detail: { flow: "b", rule: "first_refusal" } });
    expect(ctx.holds).toEqual([]);
    expect(rulebookGate(call("refund_card", refund(5), { facts: { x: 1 } }), context(rb))).toMatchObject({ kind: "refuse", reason: "second_refusal", detail: { flow: "c", wording: "The c flow does not allow this refund_card call (rule second_refusal)." } });
  });

  it("several asking rules make one gate_clarify hold, questions in file order", () => {
    const ctx = context(rich);
    const facts = { ...paid, customer_tier: "regular", open_disputes: ["d-1"] };
    expect(rulebookGate(call("refund_card", refund(400), { facts }), { ...ctx, holds: ctx.holds, from: () => 1000 })).toEqual({ kind: "pass" });
    expect(ctx.holds).toHaveLength(1);
    expect(ctx.holds[0]).toEqual({
      reason: "gate_clarify",
      detail: {
        question: "A refund of 100 to 500 for a regular customer: go ahead? Order 4411 has an open dispute: go ahead?",
        flow: "refunds",
        questions: ["A refund of 100 to 500 for a regular customer: go ahead?", "Order 4411 has an open dispute: go ahead?"],
        flows: ["refunds", "operations"],
      },
      wording: "A refund of 100 to 500 for a regular customer: go ahead? Order 4411 has an open dispute: go ahead?",
    });
  });

  it("reads are gated too", () => {
    expect(rulebookGate(call("read_inbox", { folder: "in" }), context(rich))).toMatchObject({ kind: "refuse", reason: "no_inbox_reads", detail: { flow: "privacy", rule: "no_inbox_reads" } });
    const ctx = context(rich);
    expect(rulebookGate(call("get_order", { order_id: "4411" }, { facts: { open_disputes: [1] } }), ctx)).toEqual({ kind: "pass" });
    expect(ctx.holds.map((h) => h.reason)).toEqual(["gate_clarify"]);
  });

  describe("an undo is never refused by the rulebook", () => {
    it("a refusing rule whose `when` holds does not refuse an undo", () => {
      const ctx = context(store);
      expect(rulebookGate(call("refund_card", refund(40), { facts: { order_status: "pending" }, undoOf: 3 }), ctx)).toEqual({ kind: "pass" });
      expect(ctx.holds).toEqual([]);
    });

    it("nor one that cannot read its facts", () => {
      expect(rulebookGate(call("refund_card", refund(40), { undoOf: 3 }), context(store))).toEqual({ kind: "pass" });
    });

    it("nor a rule that always refuses", () => {
      expect(rulebookGate(call("read_inbox", { folder: "in" }, { undoOf: 0 }), context(rich))).toEqual({ kind: "pass" });
    });

    it("but asking rules still ask", () => {
      const ctx = context(store);
      expect(rulebookGate(call("refund_card", refund(600), { facts: { order_status: "pending" }, undoOf: 3 }), ctx)).toEqual({ kind: "pass" });
      expect(ctx.holds.map((h) => [h.reason, h.detail?.question])).toEqual([["gate_clarify", "Refunds over 500 need a second look: go ahead?"]]);
    });
  });
});

describe("step 8 in the check's order", () => {
  // the orchestrator's list with step 8 in its place (the session adds it once it carries a rulebook)
  const steps: NamedStep[] = [...STEPS.filter((s) => s.number < 8), { number: 8, name: "rulebook", run: gate }, ...STEPS.filter((s) => s.number > 8)];

  it("a refund the rulebook's flow refuses: refuse at step 8, the rule as the reason, its flow in detail", () => {
    const answer = runSteps(call("refund_card", refund(40), { facts: { order_status: "pending" } }), context(store), steps);
    expect(answer).toMatchObject({ at: "rulebook", verdict: { kind: "refuse", reason: "refund_only_paid_orders", detail: { flow: "refunds", rule: "refund_only_paid_orders", wording: "Only paid orders can be refunded." } } });
  });

  it("a refund the rulebook asks about: confirm with gate_clarify (`write` only stands alone), the question first", () => {
    const answer = runSteps(call("refund_card", refund(600), { facts: paid }), context(store), steps);
    expect(answer.at).toBe("confirm");
    expect(answer.verdict).toMatchObject({ kind: "confirm", reasons: ["gate_clarify"], detail: { question: "Refunds over 500 need a second look: go ahead?", flow: "refunds" } });
    expect((answer.verdict as unknown as { detail: { wording: string } }).detail.wording).toMatch(/^Refunds over 500 need a second look: go ahead\? .*Allow refund_card\?$/);
  });

  it("a refund the rulebook lets through goes on to the write's own confirmation", () => {
    const answer = runSteps(call("refund_card", refund(40), { facts: paid }), context(store), steps);
    expect(answer.verdict).toMatchObject({ kind: "confirm", reasons: ["write"] });
  });

  it("an earlier step answers first: a schema error is refused at step 3 whatever the rulebook says", () => {
    const answer = runSteps(call("refund_card", { ...refund(40), note: "x" }, { facts: { order_status: "pending" } }), context(store), steps);
    expect(answer).toMatchObject({ at: "argument_schema", verdict: { kind: "refuse", reason: "argument_schema" } });
  });

  it("an undo whose tool the rulebook would refuse is allowed, `compensation` (the essay's failed run)", () => {
    const undo = call("refund_card", refund(40), { facts: { order_status: "pending" }, undoOf: 0 });
    expect(runSteps(undo, context(store, {}, charged(refund(40))), steps)).toMatchObject({ at: "compensation", verdict: { kind: "allow", reason: "compensation", detail: { undo_of: 0 } } });
    // the same call, not an undo, is refused by the rule
    expect(runSteps(call("refund_card", refund(40), { facts: { order_status: "pending" } }), context(store, {}, charged(refund(40))), steps)).toMatchObject({ at: "rulebook", verdict: { reason: "refund_only_paid_orders" } });
  });

  it("an undo the rulebook asks about is confirmed with gate_clarify alone", () => {
    const undo = call("refund_card", refund(600), { undoOf: 0 });
    const answer = runSteps(undo, context(store, {}, charged(refund(600))), steps);
    expect(answer).toMatchObject({ at: "confirm", verdict: { kind: "confirm", reasons: ["gate_clarify"], detail: { question: "Refunds over 500 need a second look: go ahead?", flow: "refunds" } } });
  });

  it("an asking rule on a read turns it into a confirmation", () => {
    const answer = runSteps(call("get_order", { order_id: "4411" }, { facts: { open_disputes: [1] } }), context(rich), steps);
    expect(answer).toMatchObject({ at: "confirm", verdict: { kind: "confirm", reasons: ["gate_clarify"], detail: { question: "Order 4411 has an open dispute: go ahead?", flow: "operations" } } });
  });

  it("a read the rulebook refuses is refused at step 8", () => {
    expect(runSteps(call("read_inbox", { folder: "in" }), context(rich), steps)).toMatchObject({ at: "rulebook", verdict: { kind: "refuse", reason: "no_inbox_reads", detail: { flow: "privacy" } } });
  });
});
