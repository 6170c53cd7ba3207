// The seed's store refund through the AI SDK, offline: the SDK's own mock model asks for the
// order, then for the refund; the refund waits for the person's approval, and runs once after it.
//   node examples/adapters/ai-refund.mjs        (an activated home: `stalwart licence activate`)
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { Client } from "stalwart-agents";
import { guard, toolApproval, watchDenials } from "stalwart-agents/ai";
import { scriptedModel } from "./scripted.mjs";

const catalogue = new URL("../store/agent.yaml", import.meta.url).pathname;
const session = new Client().session("billing", { catalogue });
let refunds = 0;
const tools = guard({
  get_order: tool({ description: "Look up an order", inputSchema: z.object({ order_id: z.string() }), execute: async ({ order_id }) => ({ order_id, status: "paid", total: 40, card: "visa-4242" }) }),
  refund_card: tool({ description: "Refund a card", inputSchema: z.object({ order_id: z.string(), amount: z.number() }), execute: async ({ order_id }) => (refunds++, { refund_id: `rf-${order_id}` }) }),
}, session);

const model = new MockLanguageModelV4(scriptedModel([
  [{ id: "c1", tool: "get_order", input: { order_id: "4411" } }],
  [{ id: "c2", tool: "refund_card", input: { order_id: "4411", amount: 40 } }],
  "Pronto: estornei R$ 40,00 do pedido 4411.",
]));
const messages = [{ role: "user", content: "estorne 40,00 do pedido 4411" }];
const first = await generateText({ model, tools, toolApproval: toolApproval(tools), onStart: watchDenials(tools), messages, stopWhen: stepCountIs(5) });
const asked = first.content.find((p) => p.type === "tool-approval-request");
console.log(`${asked.reason}\n\n(the person approves)\n`);

messages.push(...first.response.messages, { role: "tool", content: [{ type: "tool-approval-response", approvalId: asked.approvalId, approved: true }] });
const second = await generateText({ model, tools, toolApproval: toolApproval(tools), onStart: watchDenials(tools), messages, stopWhen: stepCountIs(5) });
console.log(second.text);
const decisions = session.history.entries.filter((e) => e.kind === "check").map((e) => `${e.tool} ${e.decision} ${e.reasons.join(",")}`.trim());
console.log(JSON.stringify({ refunds, decisions }));
