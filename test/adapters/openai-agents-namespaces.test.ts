/**
 * Agents JS tools of one name in two namespaces (`toolNamespace`) are one tool to the check, but an
 * approval is of the call the person was asked about, namespace and all (outside audit 7, F14):
 * the question names the namespace, and an approval of `sandbox.delete_file` never runs
 * `prod.delete_file` — not when the saved RunState is edited to say `prod`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Agent, run, RunState, setTracingDisabled, tool, toolNamespace } from "@openai/agents";
import { assistantMessage, functionCall, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";
import { Client } from "../../cli/sdk/index.js";
import { guard, guardOf } from "../../cli/adapters/openai-agents/index.js";
import type { CheckEntry, Entry } from "../../worker/portable/engine/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

beforeAll(() => setTracingDisabled(true));

const CATALOGUE = `
settings: {language: en}
tools:
  - name: delete_file
    writes: true
    args: {type: object, properties: {path: {type: string}}, required: [path], additionalProperties: false}
`;

function setup() {
  const session = new Client({ home: licensedHome("namespaces") }).session("files", { catalogue: CATALOGUE });
  const ran: string[] = [];
  const desk = (ns: string) => toolNamespace({ name: ns, description: ns, tools: [
    tool({ name: "delete_file", description: "delete", parameters: z.object({ path: z.string() }), execute: (a) => (ran.push(`${ns}:${a.path}`), "deleted") }),
  ] });
  const model = new ScriptedModel();
  const agent = guard(new Agent({ name: "files", instructions: "help", tools: [...desk("sandbox"), ...desk("prod")], model }), session);
  const inNs = (ns: string, callId: string) => [{ ...functionCall("delete_file", { path: "/data/report.txt" }, { callId }), namespace: ns }];
  const outputs = (r: { newItems: { type: string }[] }) => r.newItems.flatMap((i) => (i.type === "tool_call_output_item" ? [JSON.stringify((i as { output?: unknown }).output)] : []));
  const checks = (entries: Entry[]) => entries.filter((e): e is CheckEntry => e.kind === "check").map((e) => `${e.decision}:${e.reasons.join(",")}`);
  return { session, ran, model, agent, inNs, outputs, checks };
}

/** The saved state with every `sandbox` made `prod` (what F14's attacker does to the stored RunState). */
const toProd = (saved: string) => saved.replaceAll("sandbox", "prod");

describe("stalwart-agents/openai-agents: namespaces", () => {
  it("the question names the call's namespace", async () => {
    const { model, agent, inNs } = setup();
    model.enqueue(inNs("sandbox", "c1"));
    const first = await run(agent, "delete /data/report.txt in the sandbox");
    expect(first.interruptions).toHaveLength(1);
    const q = (await guardOf(agent)!.pending("c1"))?.question;
    expect(q).toMatch(/^delete_file, in namespace `sandbox`, needs your approval/);
  });

  it("an approval of sandbox.delete_file does not run prod.delete_file when the saved state is edited", async () => {
    const { session, ran, model, agent, inNs, outputs, checks } = setup();
    model.enqueue(inNs("sandbox", "c1"));
    const first = await run(agent, "delete /data/report.txt in the sandbox");
    const edited = toProd(first.state.toString());
    expect(edited).not.toBe(first.state.toString());
    const state = await RunState.fromString(agent, edited);
    const [item] = state.getInterruptions();
    expect(item!.rawItem).toMatchObject({ name: "delete_file", namespace: "prod" });
    state.approve(item!);
    model.enqueue([assistantMessage("ok")]);
    const second = await run(agent, state);
    expect(ran).toEqual([]);
    expect(outputs(second).join(" ")).toMatch(/namespace `sandbox`/);
    // the token was never presented for the prod call: the check saw the ask only
    expect(checks(session.history.entries)).toEqual(["confirm:write"]);
  });

  it("an approval of the call as asked still runs it once, in its own namespace", async () => {
    const { ran, model, agent, inNs } = setup();
    model.enqueue(inNs("sandbox", "c1"));
    const first = await run(agent, "delete /data/report.txt in the sandbox");
    first.state.approve(first.interruptions[0]!);
    model.enqueue([assistantMessage("ok")]);
    await run(agent, first.state);
    expect(ran).toEqual(["sandbox:/data/report.txt"]);
  });
});
