/**
 * `stalwart-agents/ai` in the AI SDK's real loops (`generateText`, `streamText`) with a scripted
 * model, for each `ai` major the adapter supports: an allowed read runs and is reported; a write
 * waits for the SDK's approval request and runs once after the person's approval (approving twice
 * runs once; an edited input or a denial runs nothing); a refused call never runs and its reasons
 * reach the model as a tool error; an argument the person typed is inferred `typed`; a value copied
 * out of an untrusted read is held.
 */
import { describe, expect, it } from "vitest";
import * as ai7 from "ai";
import * as ai7test from "ai/test";
import * as ai6 from "ai-v6";
import * as ai6test from "ai-v6/test";
import { z } from "zod";
import { guard, guardOf, MemoryApprovals, toolApproval, ToolCallRefused, type CheckEvent } from "../../cli/adapters/ai/index.js";
import type { CheckEntry, Entry } from "../../worker/portable/engine/index.js";
import { bodies, brokenSession, CATALOGUE, freshSession, INBOX } from "./fixture.js";
import { script, type Step } from "./ai-script.js";

/* eslint-disable @typescript-eslint/no-explicit-any -- one test body over two majors' types */
const KITS = [
  { major: 7, sdk: ai7 as any, Mock: ai7test.MockLanguageModelV4 as any },
  { major: 6, sdk: ai6 as any, Mock: ai6test.MockLanguageModelV3 as any },
];

const checks = (entries: Entry[]) => entries.filter((e): e is CheckEntry => e.kind === "check");
const reportOf = (entries: Entry[], step: number) => entries.filter((e) => e.kind === "report" && e.of === step);

describe.each(KITS)("stalwart-agents/ai with ai $major", ({ sdk, Mock }) => {
  function setup() {
    const { session } = freshSession();
    const b = bodies();
    const events: CheckEvent[] = [];
    const raw = {
      get_order: sdk.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a: { order_id: string }) => b.impl.get_order(a) }),
      read_inbox: sdk.tool({ description: "the inbox", inputSchema: z.object({}), execute: async () => b.impl.read_inbox({}) }),
      refund_card: sdk.tool({ description: "refund", inputSchema: z.object({ order_id: z.string(), amount: z.number() }), execute: async (a: { order_id: string; amount: number }) => b.impl.refund_card(a) }),
      tag_order: sdk.tool({ description: "tag", inputSchema: z.object({ order_id: z.string(), tag: z.string() }), execute: async (a: { order_id: string; tag: string }) => b.impl.tag_order(a) }),
      pay_invoice: sdk.tool({ description: "pay", inputSchema: z.object({ account: z.string(), amount: z.number() }), execute: async (a: { account: string; amount: number }) => b.impl.pay_invoice(a) }),
    };
    const tools = guard(raw, session, { onCheck: (e) => events.push(e) });
    return { session, b, events, tools };
  }
  const run = (tools: unknown, steps: Step[], messages: unknown[]) => {
    const model = new Mock(script(steps));
    return { model, result: sdk.generateText({ model, tools, messages, stopWhen: sdk.stepCountIs(8) }) };
  };
  const user = (content: string) => ({ role: "user", content });

  it("an allowed read runs once, its result is reported, and the person's words are turns", async () => {
    const { session, b, events, tools } = setup();
    const { result } = run(tools, [[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], "order 4411 totals 40"], [user("look up order 4411")]);
    const r = await result;
    expect(r.text).toBe("order 4411 totals 40");
    expect(b.count("get_order")).toBe(1);
    const entries = session.history.entries;
    expect(entries[0]).toMatchObject({ kind: "turn", text: "look up order 4411" });
    const [c] = checks(entries);
    expect(c).toMatchObject({ tool: "get_order", decision: "allow" });
    expect(reportOf(entries, c!.step)).toMatchObject([{ outcome: "ran", result: { order_id: "4411", total: 40, customer: "c-208" } }]);
    expect(events[0]!.origins.order_id).toMatchObject({ origin: "typed" });
  });

  it("a write waits for the SDK's approval request, runs once after approval, and approving twice runs once", async () => {
    const { session, b, tools } = setup();
    const messages: any[] = [user("refund 40.00 on order 4411")];
    const first = await run(tools, [[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], messages).result;
    const asked = first.content.find((p: { type: string }) => p.type === "tool-approval-request");
    expect(asked).toMatchObject({ toolCall: { toolCallId: "c2", toolName: "refund_card" } });
    expect(b.count("refund_card")).toBe(0);
    const confirm = checks(session.history.entries).find((e) => e.tool === "refund_card")!;
    expect(confirm).toMatchObject({ decision: "confirm" });
    expect(confirm.reasons).toContain("write");
    expect(await guardOf(tools)!.pending("c2")).toMatchObject({ tool: "refund_card", step: confirm.step, used: false });

    const approved = [...messages, ...first.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved: true }] }];
    const second = await run(tools, ["refunded"], approved).result;
    expect(second.text).toBe("refunded");
    expect(b.count("refund_card")).toBe(1);
    const allowed = checks(session.history.entries).filter((e) => e.tool === "refund_card" && e.decision === "allow");
    expect(allowed).toMatchObject([{ reasons: ["confirmed"], confirmed: confirm.step }]);
    expect(reportOf(session.history.entries, allowed[0]!.step)).toMatchObject([{ outcome: "ran", result: { refund_id: "rf-4411" } }]);

    // The same approval sent again: the token is spent, the refund does not run a second time.
    const { model, result } = run(tools, ["again?"], approved);
    await result;
    expect(b.count("refund_card")).toBe(1);
    expect(JSON.stringify(model.doGenerateCalls[0].prompt)).toMatch(/already used/);
  });

  it("an approval of an edited input covers nothing, and a denial runs nothing", async () => {
    const { session, b, tools } = setup();
    const messages: any[] = [user("refund 40.00 on order 4411")];
    const first = await run(tools, [[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], messages).result;
    const asked = first.content.find((p: { type: string }) => p.type === "tool-approval-request");
    // The conversation comes back with the call's input changed before it was approved.
    const edited = structuredClone(first.response.messages).map((m: any) => ({
      ...m,
      content: Array.isArray(m.content) ? m.content.map((p: any) => (p.type === "tool-call" && p.toolCallId === "c2" ? { ...p, input: { order_id: "4411", amount: 4000 } } : p)) : m.content,
    }));
    const model = new Mock(script(["not refunded"]));
    await sdk.generateText({ model, tools, stopWhen: sdk.stepCountIs(3), messages: [...messages, ...edited, { role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved: true }] }] });
    expect(b.count("refund_card")).toBe(0);
    // What the model reads for it: a tool error saying why.
    expect(JSON.stringify(model.doGenerateCalls[0].prompt)).toMatch(/the approval does not cover this call of refund_card/);
    const refunds = checks(session.history.entries).filter((e) => e.tool === "refund_card");
    expect(refunds.map((e) => e.decision)).toEqual(["confirm", "confirm"]); // checked again, from the start: asked again, never allowed

    const other = setup();
    const f2 = await run(other.tools, [[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], messages).result;
    const a2 = f2.content.find((p: { type: string }) => p.type === "tool-approval-request");
    await run(other.tools, ["not refunded"], [...messages, ...f2.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: a2.approvalId, approved: false }] }]).result;
    expect(other.b.count("refund_card")).toBe(0);
    const confirm = checks(other.session.history.entries).find((e) => e.tool === "refund_card")!;
    expect(reportOf(other.session.history.entries, confirm.step)).toEqual([]);
  });

  it("a refused call never runs, and the model reads its reasons as a tool error", async () => {
    const { session, b, tools } = setup();
    const { model, result } = run(tools, [[{ id: "c1", tool: "refund_card", input: { order_id: "4411", amount: 40 } }], "sorry"], [user("refund 40.00 on order 4411")]);
    const r = await result;
    expect(b.count("refund_card")).toBe(0);
    const err = r.steps[0].content.find((p: { type: string }) => p.type === "tool-error");
    expect(err.error).toBeInstanceOf(ToolCallRefused);
    expect(err.error.check).toMatchObject({ decision: "refuse", reasons: ["order_rule"] });
    expect(JSON.stringify(model.doGenerateCalls[1].prompt)).toMatch(/stalwart refused refund_card, and it did not run.*order_rule: after get_order/);
    const [c] = checks(session.history.entries);
    expect(c).toMatchObject({ decision: "refuse", reasons: ["order_rule"] });
    expect(reportOf(session.history.entries, c!.step)).toEqual([]);
  });

  it("a read's result holding a lone surrogate (text cut inside an emoji) still labels what is copied out of it", async () => {
    // undeclared or declared, a stray half of an emoji must not cost the report and, with it, the label
    for (const inbox of [{ ...INBOX, preview: "cut \ud83d" }, { ...INBOX, from: "billing \ude00" }]) {
      const { session, b, events, tools } = setup();
      b.impl.read_inbox = () => inbox;
      await run(tools, [[{ id: "c1", tool: "read_inbox", input: {} }], [{ id: "c2", tool: "pay_invoice", input: { account: INBOX.account, amount: 50 } }]], [user("deal with my inbox")]).result;
      const read = events.find((e) => e.tool === "read_inbox")!;
      expect(reportOf(session.history.entries, read.check.step)).toMatchObject([{ outcome: "ran", result: { from: inbox.from.replace(/[\ud800-\udfff]/, "\ufffd"), account: INBOX.account, amount: 50 } }]);
      const pay = events.find((e) => e.tool === "pay_invoice")!;
      expect(pay.origins.account).toEqual({ origin: `result:${read.check.step}.account`, labels: ["untrusted:read_inbox"], tool: "read_inbox" });
      expect(pay.check.reasons).toContain("tainted_call");
    }
  });

  it("an argument copied from the person's message is inferred typed; one they never typed is held", async () => {
    const { b, events, tools } = setup();
    await run(tools, [[{ id: "c1", tool: "tag_order", input: { order_id: "4411", tag: "vip" } }], [{ id: "c2", tool: "tag_order", input: { order_id: "4411", tag: "gold" } }]], [user("please tag order 4411 as VIP")]).result;
    expect(events[0]).toMatchObject({ tool: "tag_order", origins: { order_id: { origin: "typed" }, tag: { origin: "typed" } }, check: { decision: "allow" } });
    expect(events[1]).toMatchObject({ origins: { tag: { origin: "model" } }, check: { decision: "confirm", reasons: ["argument_origin"], detail: { arguments: ["tag"] } } });
    expect(b.ran).toEqual([{ tool: "tag_order", args: { order_id: "4411", tag: "vip" } }]);
  });

  it("a mailbox cut out of one the person typed is not inferred typed (outside audit 18, F3)", async () => {
    const { events, tools } = setup();
    await run(tools, [[{ id: "c1", tool: "tag_order", input: { order_id: "4411", tag: "team@example.com" } }], [{ id: "c2", tool: "tag_order", input: { order_id: "4411", tag: "ops-team@example.com" } }], "done"], [user("tag order 4411 for ops-team@example.com")]).result;
    expect(events[0]!.origins.tag).toMatchObject({ origin: "model" });
    expect(events[1]!.origins.tag).toMatchObject({ origin: "typed" });
  });

  it("a value copied out of an untrusted read's result is labelled and held", async () => {
    const { b, events, tools } = setup();
    const r = await run(tools, [[{ id: "c1", tool: "read_inbox", input: {} }], [{ id: "c2", tool: "pay_invoice", input: { account: INBOX.account, amount: 50 } }]], [user("deal with my inbox")]).result;
    const pay = events.find((e) => e.tool === "pay_invoice")!;
    expect(pay.origins.account).toEqual({ origin: `result:${events[0]!.check.step}.account`, labels: ["untrusted:read_inbox"], tool: "read_inbox" });
    expect(pay.check.decision).toBe("confirm");
    expect(pay.check.reasons).toContain("tainted_call");
    expect(b.count("pay_invoice")).toBe(0);
    expect(r.content.some((p: { type: string }) => p.type === "tool-approval-request")).toBe(true);
  });

  it("a tool that throws is reported failed; a check that cannot answer is a refusal and nothing runs", async () => {
    const { session, b, tools } = setup();
    await run(tools, [[{ id: "c1", tool: "get_order", input: { order_id: "0000" } }], "the service is down"], [user("look up order 0000")]).result;
    const [c] = checks(session.history.entries);
    expect(reportOf(session.history.entries, c!.step)).toMatchObject([{ outcome: "failed" }]);

    const broken = guard({ get_order: sdk.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a: { order_id: string }) => b.impl.get_order(a) }) }, brokenSession(), { catalogue: CATALOGUE });
    const { model, result } = run(broken, [[{ id: "c9", tool: "get_order", input: { order_id: "4411" } }], "no"], [user("look up order 4411")]);
    await result;
    expect(b.count("get_order")).toBe(1); // only the failing call above
    expect(JSON.stringify(model.doGenerateCalls[1].prompt)).toMatch(/internal_error: the check store is unreachable/);
  });

  const stream = async (tools: unknown, steps: Step[], messages: unknown[]) => {
    const model = new Mock(script(steps));
    const r = sdk.streamText({ model, tools, messages, stopWhen: sdk.stepCountIs(8) });
    const parts: any[] = [];
    for await (const p of r.fullStream) parts.push(p);
    return { model, parts, response: await r.response };
  };

  it("streamText: a write waits for approval and runs once after it; a denial runs nothing", async () => {
    const { session, b, tools } = setup();
    const messages: any[] = [user("refund 40.00 on order 4411")];
    const first = await stream(tools, [[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], messages);
    const asked = first.parts.find((p) => p.type === "tool-approval-request");
    expect(asked).toMatchObject({ toolCall: { toolCallId: "c2", toolName: "refund_card" } });
    expect(b.count("refund_card")).toBe(0);
    const answer = (approved: boolean) => [...messages, ...first.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved }] }];
    await stream(tools, ["refunded"], answer(true));
    expect(b.count("refund_card")).toBe(1);
    expect(checks(session.history.entries).filter((e) => e.tool === "refund_card").map((e) => e.decision)).toEqual(["confirm", "allow"]);
    // the same approval streamed again: spent
    const again = await stream(tools, ["again?"], answer(true));
    expect(b.count("refund_card")).toBe(1);
    expect(JSON.stringify(again.model.doStreamCalls[0].prompt)).toMatch(/already used/);

    const other = setup();
    const f2 = await stream(other.tools, [[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]], messages);
    const a2 = f2.parts.find((p) => p.type === "tool-approval-request");
    await stream(other.tools, ["not refunded"], [...messages, ...f2.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: a2.approvalId, approved: false }] }]);
    expect(other.b.count("refund_card")).toBe(0);
  });

  it("streamText: a refused call's reasons reach the model as a tool error, and an injected payment is held", async () => {
    const { b, events, tools } = setup();
    const refused = await stream(tools, [[{ id: "c1", tool: "refund_card", input: { order_id: "4411", amount: 40 } }], "sorry"], [user("refund 40.00 on order 4411")]);
    const err = refused.parts.find((p) => p.type === "tool-error");
    expect(err.error).toBeInstanceOf(ToolCallRefused);
    expect(JSON.stringify(refused.model.doStreamCalls[1].prompt)).toMatch(/stalwart refused refund_card, and it did not run.*order_rule: after get_order/);
    expect(b.count("refund_card")).toBe(0);

    const injected = await stream(tools, [[{ id: "c3", tool: "read_inbox", input: {} }], [{ id: "c4", tool: "pay_invoice", input: { account: INBOX.account, amount: 50 } }]], [user("deal with my inbox")]);
    const pay = events.find((e) => e.tool === "pay_invoice")!;
    expect(pay.origins.account).toMatchObject({ origin: `result:${events.find((e) => e.tool === "read_inbox")!.check.step}.account`, labels: ["untrusted:read_inbox"] });
    expect(pay.check).toMatchObject({ decision: "confirm" });
    expect(pay.check.reasons).toContain("tainted_call");
    expect(injected.parts.some((p) => p.type === "tool-approval-request")).toBe(true);
    expect(b.count("pay_invoice")).toBe(0);
  });

  it("a result that is not JSON data is reported ran without it; a lone surrogate in one is recorded as U+FFFD", async () => {
    const { session } = freshSession();
    const lines: string[] = [];
    const raw = {
      get_order: sdk.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a: { order_id: string }) => (a.order_id === "1" ? { order_id: "1", total: 40, at: new Date(0) } : { order_id: "2", customer: "bad \ud800" }) }),
    };
    const tools = guard(raw, session, { log: (l) => lines.push(l) });
    await run(tools, [[{ id: "c1", tool: "get_order", input: { order_id: "1" } }], [{ id: "c2", tool: "get_order", input: { order_id: "2" } }], "done"], [user("orders 1 and 2")]).result;
    const [c1, c2] = checks(session.history.entries);
    expect(reportOf(session.history.entries, c1!.step)).toMatchObject([{ outcome: "ran", result: null }]);
    expect(reportOf(session.history.entries, c2!.step)).toMatchObject([{ outcome: "ran", result: { order_id: "2", customer: "bad \ufffd" } }]);
    expect(lines).toEqual([]);
  });

  it("an approval given to a call the tool itself asks about covers nothing once its input is edited", async () => {
    // tag_order is allowed when typed (confirm: when_held); the host's own needsApproval asks anyway.
    const { session } = freshSession();
    const b = bodies();
    const raw = { tag_order: sdk.tool({ description: "tag", inputSchema: z.object({ order_id: z.string(), tag: z.string() }), needsApproval: true, execute: async (a: { order_id: string; tag: string }) => b.impl.tag_order(a) }) };
    const messages: any[] = [user("please tag order 4411 as VIP")];
    const tools = guard(raw, session);
    const first = await run(tools, [[{ id: "c1", tool: "tag_order", input: { order_id: "4411", tag: "vip" } }]], messages).result;
    const asked = first.content.find((p: { type: string }) => p.type === "tool-approval-request");
    expect(asked).toMatchObject({ toolCall: { toolCallId: "c1" } });
    // The conversation comes back approved, with the call's input changed to one nobody typed.
    const edited = structuredClone(first.response.messages).map((m: any) => ({
      ...m,
      content: Array.isArray(m.content) ? m.content.map((p: any) => (p.type === "tool-call" ? { ...p, input: { order_id: "4411", tag: "refund-me" } } : p)) : m.content,
    }));
    const answered = [...messages, ...edited, { role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved: true }] }];
    // The same guard (its first check of c1 was an allow of the other input), and one made for the next request.
    // What the model reads: our refusal, or (ai 6, which asks needsApproval again on resuming) the SDK's denial.
    const same = run(tools, ["not tagged"], answered);
    await same.result;
    expect(JSON.stringify(same.model.doGenerateCalls[0].prompt)).toMatch(/tag_order did not run|execution-denied/);
    const next = run(guard(raw, session, { approvals: new MemoryApprovals(JSON.parse(JSON.stringify(guardOf(tools)!.approvals))) }), ["not tagged"], answered);
    await next.result;
    expect(JSON.stringify(next.model.doGenerateCalls[0].prompt)).toMatch(/tag_order did not run|execution-denied/);
    expect(b.ran).toEqual([]);
    expect(checks(session.history.entries).filter((e) => e.decision === "allow").map((e) => e.reasons)).toEqual([[]]); // only the first, of the typed input
  });

  it("an input that is not JSON data (a transform left an undefined) is refused once, and the model reads why", async () => {
    const { session } = freshSession();
    const b = bodies();
    const schema = z.object({ order_id: z.string() }).transform((o) => ({ ...o, note: undefined }));
    const tools = guard({ get_order: sdk.tool({ description: "an order", inputSchema: schema, execute: async (a: { order_id: string }) => b.impl.get_order(a) }) }, session);
    const { model, result } = run(tools, [[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], "no"], [user("look up order 4411")]);
    await result;
    expect(b.count("get_order")).toBe(0);
    expect(JSON.stringify(model.doGenerateCalls[1].prompt)).toMatch(/value at `\/note` is undefined/);
    expect(checks(session.history.entries).map((e) => [e.decision, e.reasons])).toEqual([["refuse", ["argument_schema"]]]);
  });

  it("streamText: the same holds in a streaming loop", async () => {
    const { b, tools } = setup();
    const model = new Mock(script([[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]]));
    const r = sdk.streamText({ model, tools, messages: [user("refund 40.00 on order 4411")], stopWhen: sdk.stepCountIs(5) });
    const parts: { type: string }[] = [];
    for await (const p of r.fullStream) parts.push(p);
    expect(b.count("get_order")).toBe(1);
    expect(b.count("refund_card")).toBe(0);
    expect(parts.some((p) => p.type === "tool-approval-request")).toBe(true);
  });
});

describe("stalwart-agents/ai with ai 7's toolApproval", () => {
  it("asks with the check's own question as the approval request's reason", async () => {
    const { session } = freshSession();
    const b = bodies();
    const tools = guard({ refund_card: ai7.tool({ description: "refund", inputSchema: z.object({ order_id: z.string(), amount: z.number() }), execute: async (a) => b.impl.refund_card(a) }),
      get_order: ai7.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a) => b.impl.get_order(a) }) }, session);
    const model = new ai7test.MockLanguageModelV4(script([[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }]]) as never);
    const r = await ai7.generateText({ model, tools, toolApproval: toolApproval(tools), messages: [{ role: "user", content: "refund 40.00 on order 4411" }], stopWhen: ai7.stepCountIs(5) });
    const asked = r.content.find((p) => p.type === "tool-approval-request");
    expect(asked).toMatchObject({ toolCall: { toolName: "refund_card" } });
    expect(asked && "reason" in asked ? asked.reason : "").toMatch(/^refund_card needs your approval before it runs\.\n\nArguments:\n {2}order_id = "4411" {3}\(typed by you\)\n {2}amount = 40 {3}\(typed by you\)/);
    expect(b.count("refund_card")).toBe(0);
  });

  // outside audit (person-in-the-loop) F1: the reason is the gateway's question, which showed U+202E raw
  it("the reason names hidden characters as the approvals page does", async () => {
    const { session } = freshSession();
    const b = bodies();
    const tools = guard({ tag_order: ai7.tool({ description: "tag", inputSchema: z.object({ order_id: z.string(), tag: z.string() }), execute: async (a) => b.impl.tag_order(a) }) }, session);
    const model = new ai7test.MockLanguageModelV4(script([[{ id: "c1", tool: "tag_order", input: { order_id: "4411", tag: "vip\u202Eko\u200B\u{E0041}" } }]]) as never);
    const r = await ai7.generateText({ model, tools, toolApproval: toolApproval(tools), messages: [{ role: "user", content: "please tag order 4411" }], stopWhen: ai7.stepCountIs(5) });
    const asked = r.content.find((p) => p.type === "tool-approval-request");
    const reason = asked && "reason" in asked ? String(asked.reason) : "";
    expect(reason).toContain('tag = "vip[U+202E]ko[U+200B][U+E0041]"');
    expect(/[\u202E\u200B]|\u{E0041}/u.test(reason)).toBe(false);
    expect(b.count("tag_order")).toBe(0);
  });

  it("a call the check allows is still asked about when the tool's own needsApproval says so", async () => {
    const { session } = freshSession();
    const b = bodies();
    const tools = guard({ tag_order: ai7.tool({ description: "tag", inputSchema: z.object({ order_id: z.string(), tag: z.string() }), needsApproval: true, execute: async (a) => b.impl.tag_order(a) }) }, session);
    const model = new ai7test.MockLanguageModelV4(script([[{ id: "c1", tool: "tag_order", input: { order_id: "4411", tag: "vip" } }], "tagged"]) as never);
    const r = await ai7.generateText({ model, tools, toolApproval: toolApproval(tools), messages: [{ role: "user", content: "please tag order 4411 as VIP" }], stopWhen: ai7.stepCountIs(5) });
    expect(checks(session.history.entries).map((e) => e.decision)).toEqual(["allow"]);
    expect(r.content.find((p) => p.type === "tool-approval-request")).toMatchObject({ toolCall: { toolCallId: "c1", toolName: "tag_order" } });
    expect(b.count("tag_order")).toBe(0);
  });
});
