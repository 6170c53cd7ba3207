// The seed's store refund through OpenAI Agents JS, offline: the framework's scripted model asks
// for the order, then for the refund; the refund is the run's interruption, the person approves
// it, and it runs once.
//   node examples/adapters/agents-refund.mjs      (an activated home: `stalwart licence activate`)
import { Agent, run, setTracingDisabled, tool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { Client } from "stalwart-agents";
import { guard, questionFor } from "stalwart-agents/openai-agents";

setTracingDisabled(true); // offline: no traces are sent anywhere
const catalogue = new URL("../store/agent.yaml", import.meta.url).pathname;
const session = new Client().session("billing", { catalogue });
let refunds = 0;
const getOrder = tool({ name: "get_order", description: "Look up an order", parameters: z.object({ order_id: z.string() }), execute: ({ order_id }) => ({ order_id, status: "paid", total: 40, card: "visa-4242" }) });
const refundCard = tool({ name: "refund_card", description: "Refund a card", parameters: z.object({ order_id: z.string(), amount: z.number() }), execute: ({ order_id }) => (refunds++, { refund_id: `rf-${order_id}` }) });

const model = new ScriptedModel([
  [functionCall("get_order", { order_id: "4411" }, { callId: "c1" })],
  [functionCall("refund_card", { order_id: "4411", amount: 40 }, { callId: "c2" })],
  [assistantMessage("Pronto: estornei R$ 40,00 do pedido 4411.")],
]);
const agent = guard(new Agent({ name: "billing", instructions: "Atenda o cliente.", tools: [getOrder, refundCard], model }), session);

let result = await run(agent, "estorne 40,00 do pedido 4411");
for (const item of result.interruptions) {
  console.log(`${await questionFor(agent, item)}\n\n(the person approves)\n`);
  result.state.approve(item);
}
result = await run(agent, result.state);
console.log(result.finalOutput);
const decisions = session.history.entries.filter((e) => e.kind === "check").map((e) => `${e.tool} ${e.decision} ${e.reasons.join(",")}`.trim());
console.log(JSON.stringify({ refunds, decisions }));
