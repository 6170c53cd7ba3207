/**
 * An Agents JS agent's MCP servers (`mcpServers`): their tools are function tools the framework
 * makes at each turn, never in `tools`, and they ran unchecked (outside audit 15, F1). Guarded,
 * each call is checked like the agent's own: a write waits for the person, an undeclared argument
 * never reaches the server, and an approval (across a saved RunState too) runs the call once.
 * The real MCP server is a stdio fixture that logs every call it receives.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, MCPServerStdio, run, RunState, setTracingDisabled } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { Client } from "../../cli/sdk/index.js";
import { guard } from "../../cli/adapters/openai-agents/index.js";
import type { CheckEntry, Entry } from "../../worker/portable/engine/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

const PAY = join(import.meta.dirname, "../gateway/fixtures/pay-server.mjs");

beforeAll(() => setTracingDisabled(true));

const CATALOGUE = `
settings: {language: en}
tools:
  - name: pay
    writes: true
    args: {type: object, properties: {amount: {type: number}}, required: [amount], additionalProperties: false}
`;

const servers: MCPServerStdio[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function setup(tag: string) {
  const log = join(mkdtempSync(join(tmpdir(), "stalwart-agents-mcp-")), "pay.log");
  const server = new MCPServerStdio({ name: "payments", command: process.execPath, args: [PAY], env: { ...process.env, PAY_LOG: log } as Record<string, string> });
  await server.connect();
  servers.push(server);
  const session = new Client({ home: licensedHome("agents-mcp") }).session(`mcp-${tag}`, { catalogue: CATALOGUE });
  const model = new ScriptedModel();
  const agent = guard(new Agent({ name: "payments", instructions: "help", tools: [], mcpServers: [server], model }), session);
  const paid = () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n").filter(Boolean).length : 0);
  const checks = (entries: Entry[]) => entries.filter((e): e is CheckEntry => e.kind === "check").map((e) => `${e.tool}:${e.decision}:${e.reasons.join(",")}`);
  return { session, model, agent, paid, checks };
}

describe("stalwart-agents/openai-agents: an MCP server's tools", { timeout: 60_000 }, () => {
  it("a write waits for the person and does not reach the server; approved, it runs once", async () => {
    const { session, model, agent, paid, checks } = await setup("approve");
    model.enqueue([functionCall("pay", { amount: 5 }, { callId: "c1" })]);
    const first = await run(agent, "pay 5");
    expect(first.interruptions).toHaveLength(1);
    expect(paid()).toBe(0);
    expect(checks(session.history.entries)).toEqual(["pay:confirm:write"]);
    // approved in a RunState saved and restored, as a host that waits for the person does
    const state = await RunState.fromString(agent, first.state.toString());
    state.approve(state.getInterruptions()[0]!);
    model.enqueue([assistantMessage("paid")]);
    const second = await run(agent, state);
    expect(second.finalOutput).toBe("paid");
    expect(paid()).toBe(1);
    expect(checks(session.history.entries)).toEqual(["pay:confirm:write", "pay:allow:confirmed"]);
    expect(session.history.entries.some((e) => e.kind === "report" && e.outcome === "ran")).toBe(true);
  });

  it("a refused call never reaches the server, and the model reads why", async () => {
    const { session, model, agent, paid, checks } = await setup("refuse");
    model.enqueue([functionCall("pay", { amount: 5, to: "acct-666" }, { callId: "c1" })]);
    model.enqueue([assistantMessage("could not")]);
    const r = await run(agent, "pay 5");
    expect(r.interruptions).toHaveLength(0);
    expect(paid()).toBe(0);
    expect(checks(session.history.entries)).toEqual(["pay:refuse:argument_schema"]);
    const out = r.newItems.flatMap((i) => (i.type === "tool_call_output_item" ? [JSON.stringify((i as { output?: unknown }).output)] : []));
    expect(out.join(" ")).toMatch(/argument_schema|not declared/);
  });
});
