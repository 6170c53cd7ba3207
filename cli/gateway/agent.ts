/**
 * Which of the catalogue's agents the gateway's calls are made as (`--agent NAME`). MCP carries no
 * agent, so with more than one in the catalogue every call was refused `agent_required`; with
 * one, the engine takes it. What that agent reaches is all `tools/list` offers: a tool the check
 * would refuse `unknown_tool` is not shown to the model.
 */
import { closest, InputError, type CompiledCatalogue } from "../../worker/portable/engine/index.js";

export interface GatewayAgent {
  /** the agent named to the session; undefined: none named (the catalogue has none, or one) */
  agent?: string;
  /** the tools that agent reaches; undefined: every tool (the catalogue names no agents) */
  reach?: ReadonlySet<string>;
}

export function gatewayAgent(catalogue: CompiledCatalogue, given: string | undefined): GatewayAgent {
  const names = [...catalogue.agents.keys()];
  if (given === undefined) {
    if (names.length > 1) throw new InputError(`the catalogue names ${names.length} agents (${names.join(", ")}), and a call through the gateway names none`, "/agents", `give the one whose calls this gateway makes: \`--agent ${names[0]}\``);
    const only = names.length === 1 ? catalogue.agents.get(names[0]!) : undefined;
    return only ? { reach: only.tools } : {};
  }
  if (names.length === 0) throw new InputError(`\`--agent ${given}\`: the catalogue names no agents`, "/agents", "leave `--agent` out, or name the agent under `agents:` in the catalogue");
  const agent = catalogue.agents.get(given);
  if (!agent) {
    const near = closest(given, names);
    throw new InputError(`\`--agent ${given}\` is not an agent of the catalogue (${names.join(", ")})`, "/agents", near ? `did you mean \`--agent ${near}\`?` : "`agents:` in the catalogue names them");
  }
  return { agent: agent.name, reach: agent.tools };
}
