// Round 17 (docs/perf/README.md): the bench:adapters loops taken apart, every mode one round in
// turn (sessions of 20 entries renewed every 20 rounds), so that load and the machine's caches
// fall on each alike. Prints mean µs of CPU per tool call.
//   npm run build
//   node --expose-gc --import tsx docs/perf/adapters-ab.round17.ts raw,hooked,stub,inside,guarded,alone 16
//   node --expose-gc --import tsx docs/perf/adapters-ab.round17.ts araw,ahooked,astub,aguarded 10
// AI SDK modes: raw (the tool as it is), hooked (the guard's hooks doing nothing), stub (the guard
// over a session whose check allows at once), guarded, inside (no guard: the tool's own execute
// makes the session's check + report), alone (10 check + report pairs, no framework). Agents JS:
// araw, ahooked, astub, aguarded. `mode@B` runs a mode on STALWART_BENCH_DIST_B (a second build,
// paths relative to this file), the rest on STALWART_BENCH_DIST (default dist/): same-run A/B.
import { generateText, stepCountIs, tool as aiTool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { Agent, run, setTracingDisabled, tool as agentsTool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
setTracingDisabled(true);
import { licensedHome } from "../../test/helpers/licensed-home.js";
import { script } from "../../test/adapters/ai-script.js";
const distA = new URL(process.env.STALWART_BENCH_DIST ?? "../../dist/", import.meta.url).href;
const distB = new URL(process.env.STALWART_BENCH_DIST_B ?? "../../dist/", import.meta.url).href;
async function lib(dist: string) {
  const agents = (await import(dist + "cli/adapters/openai-agents/index.js")) as typeof import("../../cli/adapters/openai-agents/index.js");
  const { Client } = (await import(dist + "cli/sdk/index.js")) as typeof import("../../cli/sdk/index.js");
  const ai = (await import(dist + "cli/adapters/ai/index.js")) as typeof import("../../cli/adapters/ai/index.js");
  const { describeSession, sessionInfo } = (await import(dist + "cli/sdk/session-info.js")) as typeof import("../../cli/sdk/session-info.js");
  const home = licensedHome("ab");
  return { client: new Client({ home }), agents, ai, describeSession, sessionInfo, home };
}
const A = await lib(distA);
const B = distB === distA ? A : await lib(distB);
const catalogue = new URL("../../examples/store/agent.yaml", import.meta.url).pathname;
const order = (order_id: string) => ({ order_id, status: "paid", total: 40, card: "visa-4242" });
const cpu = () => { const c = process.cpuUsage(); return c.user + c.system; };
async function sessionOf(L: typeof A, n: number) {
  const s = L.client.session("bench", { catalogue });
  await s.read("consulte o pedido 4411");
  while (s.history.entries.length < n) { const c = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } }); await s.report(c.step, "ran", order("4411")); }
  return s;
}
const raw = { get_order: aiTool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async ({ order_id }) => order(order_id) }) };
const hooked = { get_order: { ...raw.get_order, needsApproval: async () => false, execute: async (i: any, o: any) => raw.get_order.execute!(i, o) } } as any;
const messages = [{ role: "user" as const, content: "consulte o pedido 4411" }];
const stubOf = (L: typeof A, s: any) => L.describeSession({ id: s.id, history: s.history, toJSON: () => s.toJSON(), read: async () => ({ step: 0 }), checkToolCall: async () => ({ decision: "allow" as const, reasons: [], detail: {}, step: 1 }), report: async () => ({ step: 0 }) }, L.sessionInfo(s)!);
let round = 0;
async function aiRound(tools: any) {
  const n = round++;
  const batch = Array.from({ length: 10 }, (_, i) => ({ id: `c${i}-${n}`, tool: "get_order", input: { order_id: "4411" } }));
  const model = new MockLanguageModelV4(script([batch, "pronto"]) as never);
  const t0 = cpu();
  await generateText({ model, tools, messages, stopWhen: stepCountIs(3) });
  return cpu() - t0;
}
async function waitStill() {
  const { statSync } = await import("node:fs");
  for (const L of new Set([A, B])) { const s = await sessionOf(L, 2); await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } }); }
  await new Promise((r) => setTimeout(r, 3600));
  for (const L of new Set([A, B])) { const d = statSync(L.home); if (Date.now() - Math.max(d.mtimeMs, d.ctimeMs) < 3500) console.error("home not still", L.home); }
}
// mode: name[@B]
type Mode = { name: string; L: typeof A; state?: any };
const modes: Mode[] = (process.argv[2] ?? "raw,hooked,stub,guarded,alone").split(",").map((m) => { const [name, which] = m.split("@"); return { name: m, L: which === "B" ? B : A, state: { kind: name } }; });
const blocks = Number(process.argv[3] ?? 10);
async function renew(m: Mode) {
  const s = await sessionOf(m.L, 20);
  const k = m.state.kind;
  m.state.s = s;
  if (k.startsWith("a") && k !== "alone") return renewAgents(m);
  m.state.tools = k === "raw" ? raw : k === "hooked" ? hooked : k === "stub" ? m.L.ai.guard(raw, stubOf(m.L, s)) : k === "guarded" ? m.L.ai.guard(raw, s) : k === "inside" ? { get_order: { ...raw.get_order, execute: async (i: any) => { const c = await s.checkToolCall("get_order", i, { origins: { order_id: "typed" } }); await s.report(c.step, "ran", order("4411")); return order(i.order_id); } } } : undefined;
}
const agentsRaw = agentsTool({ name: "get_order", description: "an order", parameters: z.object({ order_id: z.string() }), execute: ({ order_id }) => order(order_id) });
function agentsHookedTool(): typeof agentsRaw {
  const t = agentsRaw;
  const copy = Object.create(Object.getPrototypeOf(t), Object.getOwnPropertyDescriptors(t)) as typeof agentsRaw;
  Object.assign(copy, { needsApproval: async () => false, invoke: (ctx: never, input: string, details: never) => t.invoke(ctx, input, details), inputGuardrails: [{ type: "tool_input", name: "noop", run: async () => ({ behavior: { type: "allow" } }) }] });
  return copy;
}
async function agentsRound(agent: Agent, model: ScriptedModel) {
  const n = round++;
  model.enqueue(Array.from({ length: 10 }, (_, i) => functionCall("get_order", { order_id: "4411" }, { callId: `c${i}-${n}` })), [assistantMessage("pronto")]);
  const t0 = cpu();
  await run(agent, "consulte o pedido 4411");
  return cpu() - t0;
}
async function renewAgents(m: Mode) {
  const s = m.state.s;
  const model = new ScriptedModel();
  const k = m.state.kind;
  const base = (tools: any[]) => new Agent({ name: "bench", instructions: "-", tools, model });
  m.state.model = model;
  m.state.agent = k === "araw" ? base([agentsRaw]) : k === "ahooked" ? base([agentsHookedTool()]) : k === "astub" ? m.L.agents.guard(base([agentsRaw]), stubOf(m.L, s)) : m.L.agents.guard(base([agentsRaw]), s);
}
async function one(m: Mode) {
  if (m.state.kind.startsWith("a") && m.state.kind !== "alone") return agentsRound(m.state.agent, m.state.model);
  if (m.state.kind === "alone") { const s = m.state.s; const t0 = cpu(); for (let k = 0; k < 10; k++) { const c = await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "typed" } }); await s.report(c.step, "ran", order("4411")); } return cpu() - t0; }
  return aiRound(m.state.tools);
}
// warm
for (let b = 0; b < 2; b++) { for (const m of modes) await renew(m); for (let r = 0; r < 20; r++) for (const m of modes) await one(m); }
await waitStill();
const tot = new Map<Mode, number[]>(modes.map((m) => [m, []]));
for (let b = 0; b < blocks; b++) {
  for (const m of modes) await renew(m);
  const sums = new Map<Mode, number>(modes.map((m) => [m, 0]));
  for (let r = 0; r < 20; r++) for (const m of (r % 2 ? [...modes].reverse() : modes)) sums.set(m, sums.get(m)! + (await one(m)));
  for (const m of modes) tot.get(m)!.push(sums.get(m)! / 200);
}
const med = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]!; };
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const m of modes) console.log(`${m.name.padEnd(14)} mean ${mean(tot.get(m)!).toFixed(1)} µs/call, median of blocks ${med(tot.get(m)!).toFixed(1)}`);
for (const L of new Set([A, B])) L.client.close();
