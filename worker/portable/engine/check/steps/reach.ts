/**
 * Step 1 (checks.md): the tool is in the catalogue and this agent may reach it; with several
 * agents the call names its agent; with a lapsed licence a write is refused (every call when
 * `on_licence_lapse` is `refuse`). Reasons: `unknown_tool`, `agent_required`, `licence_lapsed`.
 */
import type { CompiledTool } from "../../catalogue/types.js";
import { PASS, type Call, type CheckFacts, type StepResult } from "../types.js";
import { isWrite } from "./classes.js";
import { nearest } from "../../schema/suggest.js";
import type { CompiledCatalogue } from "../../catalogue/types.js";

/** `detail.nearest`: the catalogue names the call likely meant (a typo), when there are any. */
function nearestOf(name: string, names: Iterable<string>): { nearest?: string[] } {
  const near = nearest(name, names);
  return near.length > 0 ? { nearest: near } : {};
}

/** The tools the call's agent may reach: its own when it names a known agent, else every tool. */
function reachable(catalogue: CompiledCatalogue, agent: string | null): Iterable<string> {
  const a = agent === null ? undefined : catalogue.agents.get(agent);
  return a ? a.tools : catalogue.tools.keys();
}

/** The one step that sees the tool possibly missing: the orchestrator resolves it before the steps. */
export function reach(call: Call, facts: CheckFacts, tool: CompiledTool | undefined): StepResult {
  const { catalogue } = facts;
  // A lapse under `refuse` refuses every operation, whatever the call names (licensing.md).
  const lic = facts.licence?.stage === "lapsed" ? facts.licence : undefined;
  const lapsedDetail = lic?.unreadable ? { unreadable: lic.unreadable } : lic?.lapsedAt ? { lapsed_at: lic.lapsedAt } : {};
  if (lic && (lic.onLapse === "refuse" || catalogue.settings.onLicenceLapse === "refuse")) return { kind: "refuse", reason: "licence_lapsed", detail: lapsedDetail };
  if (!tool) return { kind: "refuse", reason: "unknown_tool", detail: { tool: call.tool, ...nearestOf(call.tool, reachable(catalogue, call.agent)) } };

  if (catalogue.agents.size > 0) {
    if (call.agent === null) {
      if (catalogue.agents.size > 1) return { kind: "refuse", reason: "agent_required", detail: { agents: [...catalogue.agents.keys()] } };
    }
    const agent = call.agent === null ? catalogue.agents.values().next().value : catalogue.agents.get(call.agent);
    if (!agent) return { kind: "refuse", reason: "agent_required", detail: { agent: call.agent, agents: [...catalogue.agents.keys()] } };
    if (!agent.tools.has(tool.name)) return { kind: "refuse", reason: "unknown_tool", detail: { tool: call.tool, agent: agent.name, ...nearestOf(call.tool, agent.tools) } };
  }

  // `reads_only` (the stricter of the tenant's and the catalogue's setting decided above): writes stop.
  if (lic && isWrite(tool)) return { kind: "refuse", reason: "licence_lapsed", detail: lapsedDetail };
  return PASS;
}
