/**
 * What a session's calls sent is the session's, not one guard's (outside audit 24, F1): a guard
 * made per request on the same session sees what the earlier guard's calls sent, so a lookup that
 * handed the model's id back does not vouch for it in the next request either; and a session
 * resumed from its saved form (another process) vouches with none of the results of calls it did
 * not see. In a real `generateText` loop (`ai` 7, scripted model).
 */
import { describe, expect, it } from "vitest";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { guard, type CheckEvent } from "../../cli/adapters/ai/index.js";
import { bodies, CATALOGUE, freshSession } from "./fixture.js";
import { script, type Step } from "./ai-script.js";

function toolsOf(b: ReturnType<typeof bodies>) {
  return {
    get_order: tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a: { order_id: string }) => b.impl.get_order(a) }),
    tag_order: tool({ description: "tag", inputSchema: z.object({ order_id: z.string(), tag: z.string() }), execute: async (a: { order_id: string; tag: string }) => b.impl.tag_order(a) }),
  };
}

const request = (tools: unknown, steps: Step[], text: string) =>
  generateText({ model: new MockLanguageModelV4(script(steps)), tools, messages: [{ role: "user", content: text }], stopWhen: stepCountIs(4) } as never);

describe("what was sent belongs to the session", () => {
  for (const how of ["one guard", "a guard per request", "resumed in another process"] as const) {
    it(`${how}: an id the model chose, echoed by its lookup in one request, is still the model's in the next`, async () => {
      const { client, session } = freshSession(`sent-${how.replace(/ /g, "-")}`);
      const b = bodies();
      const events: CheckEvent[] = [];
      const first = guard(toolsOf(b), session, { onCheck: (e) => events.push(e) });
      // request 1: the person names the customer, not the order; the model picks order 7 and looks it up
      await request(first, [[{ id: "c1", tool: "get_order", input: { order_id: "7" } }], "order 7 is c-208's"], "find the order of customer c-208");
      expect(b.count("get_order")).toBe(1);
      const next =
        how === "one guard" ? first
        : how === "a guard per request" ? guard(toolsOf(b), session, { onCheck: (e) => events.push(e) })
        : guard(toolsOf(b), client.resume(JSON.parse(JSON.stringify(session.toJSON())), { catalogue: CATALOGUE }), { onCheck: (e) => events.push(e) });
      // request 2: the model tags order 7 (`confirm: when_held`: it runs unasked only if nothing is held)
      await request(next, [[{ id: "c2", tool: "tag_order", input: { order_id: "7", tag: "c-208" } }], "asked"], "ok, tag it with the customer id c-208");
      const tag = events.find((e) => e.tool === "tag_order")!;
      expect(tag.origins.order_id!.origin, "the lookup only handed back what the model sent it").toBe("model");
      expect(tag.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
      expect(b.count("tag_order"), "nobody was asked, so it did not run").toBe(0);
    });
  }

  it("in the process that saw a lookup, what it found vouches; resumed elsewhere, that lookup vouches for nothing (it cannot tell what the call was sent)", async () => {
    const { client, session } = freshSession("sent-resumed-found");
    const b = bodies();
    const events: CheckEvent[] = [];
    const first = guard(toolsOf(b), session, { onCheck: (e) => events.push(e) });
    // the person typed 4411: the lookup's `customer` is what it found
    await request(first, [[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], "found"], "look up order 4411");
    await request(first, [[{ id: "c2", tool: "tag_order", input: { order_id: "4411", tag: "c-208" } }], "done"], "tag order 4411 with its customer");
    expect(events.find((e) => e.tool === "tag_order")!.origins.tag!.origin).toMatch(/^result:\d+\.customer$/);
    expect(b.count("tag_order")).toBe(1);
    const resumedEvents: CheckEvent[] = [];
    const resumed = guard(toolsOf(b), client.resume(JSON.parse(JSON.stringify(session.toJSON())), { catalogue: CATALOGUE }), { onCheck: (e) => resumedEvents.push(e) });
    await request(resumed, [[{ id: "c3", tool: "tag_order", input: { order_id: "4411", tag: "c-208" } }], "asked"], "tag order 4411 with its customer again");
    const tag = resumedEvents.find((e) => e.tool === "tag_order")!;
    expect(tag.origins.order_id!.origin).toBe("typed");
    expect(tag.origins.tag!.origin).toBe("model");
    expect(tag.check).toMatchObject({ decision: "confirm", reasons: ["argument_origin"] });
    expect(b.count("tag_order")).toBe(1);
  });

  it("a page number and a limit the model sent before do not make an order's total and quantity the model's (outside audit 25, F5)", async () => {
    const catalogue = `
settings: {language: en}
tools:
  - name: list_orders
    args: {type: object, properties: {customer: {type: string}, limit: {type: number}, page: {type: number}}, additionalProperties: false}
    returns: {type: object, properties: {order_ids: {type: array, items: {type: string}}}}
  - name: get_order
    args: {type: object, properties: {order_id: {type: string}}, required: [order_id], additionalProperties: false}
    returns: {type: object, properties: {order_id: {type: string}, total: {type: number}, quantity: {type: number}, sku: {type: string}}}
  - name: reship
    writes: true
    confirm: when_held
    args: {type: object, properties: {order_id: {type: string}, sku: {type: string}, quantity: {type: number}, total: {type: number}}, required: [order_id, sku, quantity, total], additionalProperties: false}
`;
    const own = freshSession("sent-paged").client.session("paged", { catalogue });
    const ran: string[] = [];
    const events: CheckEvent[] = [];
    const tools = guard({
      list_orders: tool({ description: "orders", inputSchema: z.object({ customer: z.string(), limit: z.number(), page: z.number() }), execute: async () => (ran.push("list_orders"), { order_ids: ["4411"] }) }),
      get_order: tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async ({ order_id }: { order_id: string }) => (ran.push("get_order"), { order_id, total: 40, quantity: 1, sku: "mug-blue" }) }),
      reship: tool({ description: "reship", inputSchema: z.object({ order_id: z.string(), sku: z.string(), quantity: z.number(), total: z.number() }), execute: async () => (ran.push("reship"), { ok: true }) }),
    }, own, { onCheck: (e) => events.push(e) });
    await request(tools, [
      [{ id: "c0", tool: "list_orders", input: { customer: "me", limit: 40, page: 1 } }],
      [{ id: "c1", tool: "get_order", input: { order_id: "4411" } }],
      [{ id: "c2", tool: "reship", input: { order_id: "4411", sku: "mug-blue", quantity: 1, total: 40 } }],
      "done",
    ], "my order 4411 arrived broken, please send a new one");
    const reship = events.find((e) => e.tool === "reship")!;
    expect(reship.origins.quantity!.origin).toMatch(/^result:\d+\.quantity$/);
    expect(reship.origins.total!.origin).toMatch(/^result:\d+\.total$/);
    expect(reship.check.decision).toBe("allow");
    expect(ran).toEqual(["list_orders", "get_order", "reship"]);
  });
});
