import type { Answer } from "../check/orchestrator.js";
import type { CheckContext } from "../check/types.js";
import type { CounterStore } from "./store.js";

/**
 * Step 7's counters, once the rest of the check has answered: an allow reserves them
 * atomically (so concurrent calls never overshoot); any other answer only looks, because a
 * confirm that is never approved uses nothing — but a ceiling already reached still refuses
 * first, as step 7 comes before 8–13. A store that cannot answer refuses (fail closed).
 */
export async function settleCounters(store: CounterStore | undefined, ctx: CheckContext, answer: Answer, reservation: string): Promise<Answer> {
  const needs = ctx.counters;
  const items = needs.map((n) => n.item);
  const unknownReason = needs.some((n) => n.kind === "spend") ? "spend_unknown" : "usage_unknown";
  if (!store) return { at: 7, result: { kind: "refuse", reason: unknownReason, detail: { wording: "no counter store is configured" } } };
  let got;
  try {
    const work = answer.result.kind === "allow" ? store.reserve(reservation, items, ctx.now) : store.peek(items, ctx.now);
    got = await withDeadline(Promise.resolve(work), 1500);
  } catch (err) {
    return { at: 7, result: { kind: "refuse", reason: unknownReason, detail: { wording: `the counter store did not answer (${(err as Error)?.message ?? String(err)})` } } };
  }
  if (got.ok) return answer;
  const need = needs.find((n) => n.item.key === got.key) ?? needs[0]!;
  if (need.kind === "rate") {
    return { at: 7, result: { kind: "refuse", reason: "limit_reached", detail: { limit: need.describe, used: got.used, tool: ctx.tool?.name } } };
  }
  return {
    at: 7,
    result: { kind: "refuse", reason: "spend_exceeded", detail: { pool: need.pool, per: need.per, at_most: got.limit, used: got.used, amount: need.item.amount, currency: ctx.tool?.currency ?? null } },
  };
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => {
    if (timer !== undefined) clearTimeout(timer);
  });
}
