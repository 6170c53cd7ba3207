/**
 * Labels propagate by themselves (checks.md, "Untrusted values"), so the host does not have to
 * remember to pass them:
 *   - an argument whose origin is `result:<step>…` of a `reads_outside` tool carries
 *     `untrusted:<tool>`, and whatever labels that call carried;
 *   - a value from an agent with less trust than the tool requires carries `untrusted:<agent>`
 *     (the calling agent's own arguments, and results of calls that agent made);
 *   - with the session option `taint_model_after_untrusted`, every `model` argument written after
 *     anything untrusted was read carries `untrusted:<that tool>`.
 * A label propagates whole, whatever its text: step 9 decides which labels hold a write, not this
 * file (a filter on the text here once dropped `trustedness:low`, which step 9 holds).
 */
import { argNamesOf, type CheckFacts, type Call } from "../check/types.js";
import { own } from "../canonical/own.js";
import { parseResultRef } from "./origins.js";

export function propagatedLabels(call: Call, ctx: CheckFacts): Readonly<Record<string, string[]>> {
  // keys are argument names: a map, so `constructor` or `__proto__` is a name like any other;
  // made on the first label (most calls propagate none: then no map, no closures, no record)
  let byKey: Map<string, string[]> | undefined;
  const agents = ctx.catalogue.agents;

  const caller = actingAgent(agents, call.agent);
  if (untrustedAgent(agents, caller)) byKey = addLabel(byKey, "call", `untrusted:${caller}`);
  const firstOutside = ctx.index.outsideReads[0]?.tool;

  for (const arg of argNamesOf(call)) {
    const origin = own(call.origins, arg);
    if (typeof origin === "string" && origin.startsWith("result:")) {
      const ref = parseResultRef(origin.slice(7));
      const from = ref ? ctx.index.check(ref.step) : undefined;
      if (from) {
        const tool = ctx.catalogue.tools.get(from.tool);
        if (tool?.readsOutside) byKey = addLabel(byKey, arg, `untrusted:${from.tool}`);
        for (const l of from.labels) byKey = addLabel(byKey, arg, l);
        const made = actingAgent(agents, from.agent);
        if (untrustedAgent(agents, made)) byKey = addLabel(byKey, arg, `untrusted:${made}`);
      }
    } else if (ctx.taintModelAfterUntrusted && (origin === "model" || origin === undefined) && firstOutside) {
      for (const r of ctx.index.outsideReads) byKey = addLabel(byKey, arg, `untrusted:${r.tool}`);
    }
  }
  if (byKey === undefined) return NO_LABELS;
  const out = Object.create(null) as Record<string, string[]>;
  for (const [k, v] of byKey) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

const NO_LABELS: Readonly<Record<string, string[]>> = Object.freeze(Object.create(null) as Record<string, string[]>);

function addLabel(byKey: Map<string, string[]> | undefined, key: string, label: string): Map<string, string[]> {
  const map = byKey ?? new Map<string, string[]>();
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  if (!list.includes(label)) list.push(label);
  return map;
}

/**
 * The agent a call acts as: the one it names, or, in a catalogue of one agent, that agent (step 1
 * treats an unnamed call so, reach.ts; outside audit 21, F1: its label was lost here).
 */
function actingAgent(agents: CheckFacts["catalogue"]["agents"], name: string | null): string | null {
  if (name !== null || agents.size !== 1) return name;
  return agents.keys().next().value ?? null;
}

function untrustedAgent(agents: CheckFacts["catalogue"]["agents"], name: string | null): boolean {
  return name !== null && agents.get(name)?.trust === "untrusted";
}
