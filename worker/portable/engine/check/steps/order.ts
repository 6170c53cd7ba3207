/**
 * Step 5: the tool's order rules over the verified history (checks.md, "Order rules").
 *   after: [tool]                 — an allowed call of `tool` that was not reported failed
 *   after: [{tool, bind: {a: f}}] — and argument `a` has origin `result:<that step>.f`, holding
 *   not_after: [tool | untrusted] — never after `tool` (or any reads_outside tool) was allowed;
 *                                   a read counts whatever its outcome
 *   at_most: N                    — at most N allowed, not-failed calls of this tool per session
 * What the runtime keeps for the session (`input.kept`) counts too, so a restarted or forked
 * history forgets nothing the session already did.
 * Reason `order_rule`, detail `rule` in words (`after get_order`, `not_after untrusted`, …).
 */
import { parseResultRef, originTrusted } from "../../origins/origins.js";
import { countName, seenName, tally, UNTRUSTED } from "../../state/changes.js";
import { own } from "../../canonical/own.js";
import { PASS, type Call, type StepInput, type StepResult } from "../types.js";

export function orderRules(call: Call, input: StepInput): StepResult {
  const { tool, index } = input;
  // An undo is checked here too: the contract exempts it from step 7 only (outside audit 21, F2).

  for (const rule of tool.after) {
    const steps = (index.allowedByTool.get(rule.tool) ?? []).filter((s) => index.counts(s));
    if (steps.length === 0) return refuse(`after ${rule.tool}`, { needs: rule.tool });
    for (const [arg, field] of Object.entries(rule.bind ?? {})) {
      const origin = own(call.origins, arg);
      const ref = typeof origin === "string" && origin.startsWith("result:") ? parseResultRef(origin.slice(7)) : null;
      const bound = ref !== null && ref.path === field && steps.includes(ref.step) && index.ran(ref.step) && originTrusted(origin, own(call.args, arg), input, call.tool, arg);
      if (!bound) {
        return refuse(`after ${rule.tool} (${arg} from ${rule.tool}.${field})`, { binding: { argument: arg, tool: rule.tool, field }, origin: origin ?? null });
      }
    }
  }

  for (const name of tool.notAfter) {
    if (name === "untrusted") {
      const first = index.outsideReads[0];
      if (first) return refuse("not_after untrusted", { after: first.tool });
      if (tally(input.kept, UNTRUSTED) > 0) return refuse("not_after untrusted", { after: "untrusted" });
    } else if ((index.allowedByTool.get(name) ?? []).length > 0 || tally(input.kept, seenName(name)) > 0) {
      return refuse(`not_after ${name}`, { after: name });
    }
  }

  if (tool.atMostPerSession !== undefined) {
    const inHistory = (index.allowedByTool.get(tool.name) ?? []).filter((s) => index.counts(s)).length;
    const used = Math.max(inHistory, tally(input.kept, countName(tool.name)));
    if (used >= tool.atMostPerSession) return refuse(`at_most ${tool.atMostPerSession}`, { used });
  }
  return PASS;
}

function refuse(rule: string, extra: Record<string, unknown>): StepResult {
  return { kind: "refuse", reason: "order_rule", detail: { rule, ...extra } };
}
