/** The Agents JS billing desk the adapter tests share: `get_order` and `refund_card` over `bodies()`. */
import { Agent, tool } from "@openai/agents";
import type { ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import type { bodies } from "./fixture.js";

/** An unguarded `billing` agent with the two tools, running on `model`. */
export function billingAgent(model: ScriptedModel, b: ReturnType<typeof bodies>): Agent {
  return new Agent({ name: "billing", instructions: "help", model, tools: [
    tool({ name: "get_order", description: "an order", parameters: z.object({ order_id: z.string() }), execute: (a) => b.impl.get_order(a) }),
    tool({ name: "refund_card", description: "refund", parameters: z.object({ order_id: z.string(), amount: z.number() }), execute: (a) => b.impl.refund_card(a) }),
  ] });
}
