/**
 * A guard on a session whose home has no licence (the first run of a new project): the check
 * cannot answer, so the tool does not run (fail closed), and what the model reads says why and
 * what fixes it, with the error's code and hint, as the gateway says it. Before, the model read
 * only "internal_error: no activated licence in …", without the command that gives one.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as sdk from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { Agent, run, setTracingDisabled, tool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { Client } from "../../cli/sdk/index.js";
import { guard as guardAi } from "../../cli/adapters/ai/index.js";
import { guardTools } from "../../cli/adapters/openai-agents/index.js";
import { script } from "./ai-script.js";
import { bodies, CATALOGUE } from "./fixture.js";

beforeAll(() => setTracingDisabled(true));

const unlicensed = () => new Client({ home: mkdtempSync(join(tmpdir(), "stalwart-adapters-nolicence-")) }).session("adapters", { catalogue: CATALOGUE });
const SAYS = /internal_error \(LicenceRequired\): no activated licence in `[^`]+` — .*`stalwart licence dev`/;

describe("a guard on a home without a licence", () => {
  it("AI SDK: the tool does not run, and the model reads the code and the command that fixes it", async () => {
    const b = bodies();
    const tools = guardAi({ get_order: sdk.tool({ description: "an order", inputSchema: z.object({ order_id: z.string() }), execute: async (a: { order_id: string }) => b.impl.get_order(a) }) }, unlicensed());
    const model = new MockLanguageModelV4(script([[{ id: "c1", tool: "get_order", input: { order_id: "4411" } }], "no"]) as never);
    await sdk.generateText({ model, tools, messages: [{ role: "user", content: "look up order 4411" }], stopWhen: sdk.stepCountIs(3) });
    expect(b.count("get_order")).toBe(0);
    expect(JSON.stringify(model.doGenerateCalls[1]!.prompt)).toMatch(SAYS);
  });

  it("Agents JS: the same", async () => {
    const b = bodies();
    const m = new ScriptedModel([[functionCall("get_order", { order_id: "4411" }, { callId: "c1" })], [assistantMessage("no")]]);
    const tools = guardTools([tool({ name: "get_order", description: "an order", parameters: z.object({ order_id: z.string() }), execute: (a) => b.impl.get_order(a) })], unlicensed());
    await run(new Agent({ name: "billing", instructions: "help", tools, model: m }), "look up order 4411");
    expect(b.count("get_order")).toBe(0);
    expect(JSON.stringify(m.calls[1]?.request.input)).toMatch(SAYS);
  });
});
