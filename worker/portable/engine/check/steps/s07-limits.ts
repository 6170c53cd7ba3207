/**
 * Step 7: the tool's own `checks`, its rate limits `at_most: [{count, per}]` and its `spend`
 * ceilings — never on an undo. Conditions are decided here; rate limits and spend become counter
 * items that the session reserves atomically once the rest of the check says `allow` (and peeks
 * at otherwise), so a confirm that is never approved uses nothing (checks.md).
 * Reasons `condition_failed`, `condition_unknown`, `spend_exceeded` (per call), `spend_unknown`;
 * `limit_reached`, `usage_unknown` and period `spend_exceeded` come from the counter store.
 */
import { evaluateAll } from "../../conditions/index.js";
import { periodWindow } from "../../counters/periods.js";
import { PASS, type Call, type CheckContext, type StepResult } from "../types.js";

export function limits(call: Call, ctx: CheckContext): StepResult {
  if (call.undoOf !== undefined) return PASS;
  const tool = ctx.tool!;

  if (tool.checks.length > 0) {
    const v = evaluateAll(tool.checks, { subject: call.args, row: call.args, from: ctx.from });
    if (v.truth === "fails") return { kind: "refuse", reason: "condition_failed", detail: { ...(v.wording ? { wording: v.wording } : {}), ...(v.condition ? { because: v.condition.because ?? null } : {}) } };
    if (v.truth === "unknown") return { kind: "refuse", reason: "condition_unknown", detail: { ...(v.unknown ? { unknown: v.unknown } : {}), ...(v.wording ? { wording: v.wording } : {}) } };
  }

  const run = ctx.index.lastTurn;
  for (const limit of tool.rateLimits) {
    if (limit.per === "call") continue; // one call is one call
    const w = periodWindow(limit.per, ctx.now, ctx.sessionId, run);
    ctx.counters.push({ kind: "rate", item: { key: `rate|${tool.name}|${limit.per}|${w.id}`, amount: 1, limit: limit.count, until: w.until }, describe: `${limit.count} per ${limit.per}` });
  }

  for (const rule of tool.spend) {
    const amount = call.args[rule.field];
    if (typeof amount !== "number" || !Number.isFinite(amount) || amount < 0) {
      return { kind: "refuse", reason: "spend_unknown", detail: { field: rule.field, wording: `\`${rule.field}\` is not an amount that can be counted.` } };
    }
    const pool = rule.pool ?? tool.name;
    if (rule.per === "call") {
      if (amount > rule.atMost) {
        return { kind: "refuse", reason: "spend_exceeded", detail: { pool, per: "call", at_most: rule.atMost, amount, currency: tool.currency ?? null } };
      }
      continue;
    }
    const w = periodWindow(rule.per, ctx.now, ctx.sessionId, run);
    ctx.counters.push({
      kind: "spend",
      item: { key: `spend|${pool}|${tool.currency ?? ""}|${rule.per}|${w.id}`, amount, limit: rule.atMost, until: w.until },
      describe: `${rule.atMost} ${tool.currency ?? ""} per ${rule.per}`.replace("  ", " "),
      pool,
      per: rule.per,
    });
  }
  return PASS;
}
