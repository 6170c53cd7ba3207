/**
 * Step 7: the tool's own `checks`, its rate limits `at_most: [{count, per}]` and its `spend`
 * ceilings — never on an undo. Both phases live here:
 *   1. `limits` (pure, in the step order): conditions are decided; rate limits and spend become
 *      counter needs;
 *   2. `settleLimits` (after the rest of the check has answered): an allow reserves the needs
 *      atomically in the counter store, any other answer only peeks — a confirm that is never
 *      approved uses nothing (checks.md), but a ceiling already reached still refuses first, as
 *      step 7 comes before 8–13. A store that cannot answer refuses (fail closed).
 * Reasons `condition_failed`, `condition_unknown`, `spend_exceeded` (per call), `spend_unknown`;
 * `limit_reached`, `usage_unknown` and period `spend_exceeded` come from the counter store.
 */
import { evaluateAll } from "../../conditions/index.js";
import { ReservationTaken, StalwartError } from "../../errors.js";
import { periodWindow } from "../../counters/periods.js";
import type { CounterStore, ReserveAnswer } from "../../counters/store.js";
import type { CompiledTool } from "../../catalogue/types.js";
import { own } from "../../canonical/own.js";
import { addAmounts } from "../../state/amounts.js";
import { spendAmount } from "../spend-amount.js";
import { PASS, type Call, type CounterNeed, type StepInput, type StepResult, type Verdict } from "../types.js";

export function limits(call: Call, input: StepInput): StepResult {
  if (call.undoOf !== undefined) return PASS;
  const { tool } = input;

  if (tool.checks.length > 0) {
    // `{from: tool.path, same: arg}` reads the result of the call whose `arg` is this call's
    const from = (t: string, p: string, same?: string) => input.from(t, p, same === undefined ? undefined : { arg: same, value: own(call.args, same) });
    const v = evaluateAll(tool.checks, { subject: call.args, row: call.args, from });
    if (v.truth === "fails") return { kind: "refuse", reason: "condition_failed", detail: { ...(v.wording ? { wording: v.wording } : {}), ...(v.condition ? { because: v.condition.because ?? null } : {}) } };
    if (v.truth === "unknown") return { kind: "refuse", reason: "condition_unknown", detail: { ...(v.unknown ? { unknown: v.unknown } : {}), ...(v.wording ? { wording: v.wording } : {}) } };
  }

  const needs: CounterNeed[] = [];
  const run = input.index.lastTurn;
  for (const limit of tool.rateLimits) {
    if (limit.per === "call") continue; // one call is one call
    const w = periodWindow(limit.per, input.now, input.sessionId, run);
    needs.push({ kind: "rate", item: { key: `rate|${tool.name}|${limit.per}|${w.id}`, amount: 1, limit: limit.count, until: w.until }, describe: `${limit.count} per ${limit.per}` });
  }

  // every field read once, in the catalogue's order: the first unreadable one is named
  let amounts: Map<string, number> | undefined;
  for (const rule of tool.spend) {
    let amount = amounts?.get(rule.field);
    if (amount === undefined) {
      amount = spendAmount(call.args, rule.field);
      if (amount === undefined) return rateFirst(needs, { kind: "refuse", reason: "spend_unknown", detail: { field: rule.field, wording: `\`${rule.field}\` is not an amount that can be counted.` } });
      (amounts ??= new Map()).set(rule.field, amount);
    }
    if (rule.per === "call" && amount > rule.atMost) {
      return rateFirst(needs, { kind: "refuse", reason: "spend_exceeded", detail: { pool: rule.pool ?? tool.name, per: "call", at_most: rule.atMost, amount, currency: tool.currency ?? null } });
    }
  }
  // a pool is one count: counted in each of its periods, limited where this tool sets a ceiling
  for (const c of tool.spendCounts) {
    let amount = 0;
    for (const f of c.fields) amount = addAmounts(amount, amounts!.get(f)!);
    const w = periodWindow(c.per, input.now, input.sessionId, run);
    needs.push({
      kind: "spend",
      item: { key: `spend|${c.pool}|${tool.currency ?? ""}|${c.per}|${w.id}`, amount, limit: c.atMost ?? Number.MAX_VALUE, until: w.until },
      describe: `${c.atMost ?? "no ceiling of this tool's"} ${tool.currency ?? ""} per ${c.per}`.replace("  ", " "),
      pool: c.pool,
      per: c.per,
    });
  }
  return needs.length > 0 ? { kind: "pass", counters: needs } : PASS;
}

/**
 * A spend refusal known without the counters, after the rate limits it must not hide: checks.md
 * orders step 7 as conditions, rate limits, spend (outside audit 21, F4). The rate needs ride on
 * the refusal; settling peeks them, and a limit reached replaces it.
 */
function rateFirst(needs: readonly CounterNeed[], refusal: Verdict & { kind: "refuse" }): Verdict {
  return needs.length > 0 ? { ...refusal, rateFirst: needs } : refusal;
}

/** How long a counter store may take before the check refuses (fail closed). */
const COUNTER_DEADLINE_MS = 1500;

/**
 * Phase 2: reserve (an allow) or peek (anything else) the needs `limits` gave. Returns the
 * verdict unchanged when the counters hold, else the refusal step 7 answers.
 */
export async function settleLimits(store: CounterStore | undefined, needs: readonly CounterNeed[], verdict: Verdict, tool: CompiledTool, reservation: string, now: number): Promise<Verdict> {
  const items = needs.map((n) => n.item);
  const unknownReason = needs.some((n) => n.kind === "spend") ? "spend_unknown" : "usage_unknown";
  if (!store) return { kind: "refuse", reason: unknownReason, detail: { wording: "no counter store is configured" } };
  let got: ReserveAnswer;
  try {
    const work = verdict.kind === "allow" ? store.reserve(reservation, items, now) : store.peek(items, now);
    got = await withDeadline(Promise.resolve(work), COUNTER_DEADLINE_MS);
  } catch (err) {
    // The reservation bears this entry's link: another copy of this history is answering this very
    // entry (a copy resumed twice, in parallel). Not the store's failure: this copy lost the race.
    if (err instanceof ReservationTaken) return { kind: "refuse", reason: "history_invalid", detail: { why: "another copy of this history is answering the same step (the reservation of its entry is taken)" } };
    // A clock behind what the store has seen answers too: that is the store's own refusal to count.
    if (err instanceof StalwartError && err.code === "ClockBehind") return { kind: "refuse", reason: unknownReason, detail: { wording: err.message } };
    return { kind: "refuse", reason: unknownReason, detail: { wording: `the counter store did not answer (${(err as Error)?.message ?? String(err)})` } };
  }
  if (got.ok) return verdict;
  const need = needs.find((n) => n.item.key === got.key) ?? needs[0];
  if (!need || need.kind === "rate") {
    return { kind: "refuse", reason: "limit_reached", detail: { limit: need?.describe ?? got.key, used: got.used, tool: tool.name } };
  }
  return { kind: "refuse", reason: "spend_exceeded", detail: { pool: need.pool, per: need.per, at_most: got.limit, used: got.used, amount: need.item.amount, currency: tool.currency ?? null } };
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
