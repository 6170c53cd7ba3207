/**
 * A read's `filter` applied by the adapters (cli/adapters/filter.ts), in each framework's real loop:
 * the model reads only the records the catalogue says to pass on (a salary of at least 70,000, and
 * a skill from the resume read earlier), the history records those, and a result the filter
 * cannot read (prose) is withheld whole, the model reading why, the call reported `ran`. A
 * streaming AI SDK tool with a filter yields only its filtered last value.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as ai from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { Agent, run, setTracingDisabled, tool } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { guard as guardAi } from "../../cli/adapters/ai/index.js";
import { guard as guardAgents } from "../../cli/adapters/openai-agents/index.js";
import type { Entry } from "../../worker/portable/engine/index.js";
import { Client } from "../../cli/sdk/index.js";
import { licensedHome } from "../helpers/licensed-home.js";
import { script } from "./ai-script.js";
import { JOBS, JOBS_CATALOGUE, SKILLS } from "../helpers/jobs.js";

beforeAll(() => setTracingDisabled(true));

const PROSE = "Four jobs: a (90k, ts), b (50k, ts), c (95k, go), d (80k).";
const session = () => new Client({ home: licensedHome("adapters-filter") }).session("filter", { catalogue: JOBS_CATALOGUE });
const searchReport = (entries: Entry[]) => {
  const c = entries.findLast((e) => e.kind === "check" && e.tool === "search_jobs")!;
  return entries.find((e) => e.kind === "report" && e.of === c.step) as { outcome: string; result: unknown };
};
const ids = (v: unknown) => (v as { jobs: { id: string }[] }).jobs.map((j) => j.id);

/** The model read jobs a and d and not c (JSON in its prompt, escaped or not), and the history recorded those. */
function keptOnly(s: ReturnType<typeof session>, seen: string): void {
  expect(seen).toMatch(/\\?"id\\?":\\?"a\\?"/);
  expect(seen).not.toMatch(/\\?"id\\?":\\?"c\\?"/);
  expect(searchReport(s.history.entries)).toMatchObject({ outcome: "ran" });
  expect(ids(searchReport(s.history.entries).result)).toEqual(["a", "d"]);
}

/** The model read why nothing was passed on, and none of the prose; the call is reported ran, without a result. */
function withheld(s: ReturnType<typeof session>, seen: string): void {
  expect(seen).toContain("search_jobs ran, but its result could not be filtered as the catalogue asks, so it is not passed on: it is not a JSON object or list");
  expect(seen).not.toContain("95k");
  expect(searchReport(s.history.entries)).toMatchObject({ outcome: "ran", result: null });
}

describe("the AI SDK adapter applies a read's filter", () => {
  const toolsFor = (s: ReturnType<typeof session>, as: "json" | "prose" | "stream") => {
    const searchJobs = as === "stream"
      ? async function* () {
          yield { jobs: [JOBS.jobs[2]] }; // a partial result: job c, which the filter drops
          yield JOBS;
        }
      : async () => (as === "prose" ? PROSE : JOBS);
    return guardAi({
      read_resume: ai.tool({ description: "resume", inputSchema: z.object({}), execute: async () => ({ skills: SKILLS }) }),
      search_jobs: ai.tool({ description: "jobs", inputSchema: z.object({}), execute: searchJobs as never }),
    }, s);
  };
  const go = async (as: "json" | "prose" | "stream") => {
    const s = session();
    const model = new MockLanguageModelV4(script([[{ id: "c1", tool: "read_resume", input: {} }], [{ id: "c2", tool: "search_jobs", input: {} }], "done"]));
    const r = await ai.generateText({ model, tools: toolsFor(s, as), messages: [{ role: "user", content: "find me a job" }], stopWhen: ai.stepCountIs(5) });
    return { s, r, prompt: JSON.stringify(model.doGenerateCalls[2]!.prompt) };
  };

  it("a JSON result: only the kept records reach the model, and the history records those", async () => {
    const { s, prompt } = await go("json");
    keptOnly(s, prompt);
  });

  it("a streaming tool yields only its filtered last value", async () => {
    const { s, r, prompt } = await go("stream");
    const results = r.steps.flatMap((st: { content: { type: string; output?: unknown }[] }) => st.content.filter((p) => p.type === "tool-result")).map((p: { output?: unknown }) => p.output);
    expect(results.slice(1)).toEqual([{ jobs: [JOBS.jobs[0], JOBS.jobs[3]] }]);
    expect(prompt).not.toMatch(/\\?"id\\?":\\?"c\\?"/);
    expect(ids(searchReport(s.history.entries).result)).toEqual(["a", "d"]);
  });

  it("prose the filter cannot read is withheld: the model reads why, the call is reported ran", async () => {
    const { s, prompt } = await go("prose");
    withheld(s, prompt);
  });
});

describe("the Agents JS adapter applies a read's filter", () => {
  const go = async (as: "json" | "prose") => {
    const s = session();
    const model = new ScriptedModel();
    model.enqueue([functionCall("read_resume", {}, { callId: "c1" })], [functionCall("search_jobs", {}, { callId: "c2" })], [assistantMessage("done")]);
    const tools = [
      tool({ name: "read_resume", description: "resume", parameters: z.object({}), execute: () => ({ skills: SKILLS }) }),
      tool({ name: "search_jobs", description: "jobs", parameters: z.object({}), execute: () => (as === "prose" ? PROSE : JOBS) }),
    ];
    await run(guardAgents(new Agent({ name: "jobs", instructions: "help", tools, model }), s), "find me a job");
    return { s, seen: JSON.stringify(model.calls[2]?.request.input) };
  };

  it("a JSON result: only the kept records reach the model, and the history records those", async () => {
    const { s, seen } = await go("json");
    keptOnly(s, seen);
  });

  it("prose the filter cannot read is withheld: the model reads why, the call is reported ran", async () => {
    const { s, seen } = await go("prose");
    withheld(s, seen);
  });
});
