/**
 * The answer of one check, assembled from the step that decided: the caller's `CheckResult` and
 * the history entry that records it (checks.md, "The session history": step, kind, tool, agent,
 * digests of arguments and origins, labels, decision, reasons). Pure: the caller signs and
 * appends the entry, and seals the token.
 */
import type { CheckEntry, Decision } from "../history/entry.js";
import type { Answer } from "./orchestrator.js";
import type { Call, CheckResult, Verdict } from "./types.js";

export interface Assembled {
  /** the entry to sign and append (`step` and `link` are set when it is appended) */
  entry: CheckEntry;
  decision: Decision;
  reasons: string[];
  detail: Record<string, unknown>;
}

/**
 * `values`: per-argument digests, kept only for calls an undo may later be bound to (step 6) or a
 * `{from, same}` join may later read.
 * `extra`: detail every answer of this session carries (e.g. its rulebook's digest).
 */
export function assemble(call: Call, answer: Answer, verdict: Verdict, now: number, values: (call: Call) => Record<string, string>, extra: Readonly<Record<string, unknown>>): Assembled {
  const decision = verdict.kind;
  const reasons: string[] = verdict.kind === "confirm" ? verdict.reasons.slice() : verdict.kind === "refuse" ? [verdict.reason] : verdict.reason ? [verdict.reason] : [];
  // spread (own data properties, `__proto__` too, unlike Object.assign); undefined spreads as nothing
  const detail: Record<string, unknown> = { ...verdict.detail, ...answer.notes, ...extra };
  const confirmed = verdict.kind === "allow" && verdict.confirmedAsk !== undefined ? verdict.confirmedAsk : null;
  const entry: CheckEntry = {
    v: 1, step: 0, at: now, kind: "check", tool: call.tool, agent: call.agent, args: call.digest,
    origins: call.originsDigest, labels: call.labels.slice(), decision, reasons: reasons.slice(),
    confirmed, undo_of: call.undoOf ?? null, link: "",
    values: answer.tool?.keepValues === true && !call.argsError ? values(call) : {},
  };
  return { entry, decision, reasons, detail };
}

/** The caller's view of an assembled answer at the step its entry took. */
export function resultOf(a: Assembled, step: number, confirmation?: string): CheckResult {
  const result: CheckResult = { decision: a.decision, reasons: a.reasons, detail: a.detail, step };
  if (confirmation !== undefined) result.confirmation = confirmation;
  return result;
}
