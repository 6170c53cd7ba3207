/**
 * What a session's answers follow besides the steps: when a history that verifies is still not
 * the newest, which later reports may follow an earlier one, what a damaged session store answers.
 * Pure.
 */
import type { LicenceGate, Verdict } from "./check/types.js";
import type { Entry, Outcome } from "./history/entry.js";
import { StalwartError } from "./errors.js";
import { NOTHING_KEPT, type KeptState } from "./state/changes.js";
import type { Head } from "./state/store.js";

/** An engine that keeps no session state (no store given): nothing to wait for. */
export const UNKEPT: KeptState & { head: Head | null } = Object.freeze({ ...NOTHING_KEPT, head: null });

/** Why a history that verifies is still not the newest. */
export function supersededWhy(stored: Head | null, mine: Head): string {
  if (stored === null) return "this runtime has no record of this history (started elsewhere, or its session store was reset)";
  if (stored.count > mine.count) return `an older copy of this session: a newer history of it (${stored.count} entries) was answered`;
  return "a copy of this session another answer has moved past (a fork, or a second copy sent in parallel)";
}

/**
 * Reports are final but for what comes to be known later: a call that ran may then fail, be given
 * up on or be undone (the guarded step follows its outcome); one reported failed or unknown may
 * turn out to have run — then it counts again, because it happened.
 */
export const LATER: Readonly<Record<Outcome, readonly Outcome[]>> = {
  ran: ["failed", "outcome_unknown", "compensated"],
  failed: ["ran"],
  outcome_unknown: ["ran", "failed"],
  compensated: [],
};
export function laterReport(before: Outcome, outcome: Outcome): boolean {
  return LATER[before].includes(outcome);
}

/** A damaged session store: nothing can be kept, so nothing is allowed (counted calls say which counter). */
export function storeRefusal(error: StalwartError, needs: readonly { kind: "rate" | "spend" }[]): Verdict {
  // a clock behind the store's: not a bug, a session the store cannot vouch for (checkSessionClock)
  const other = error.code === "ClockBehind" ? "history_invalid" : "internal_error";
  const reason = needs.some((n) => n.kind === "spend") ? "spend_unknown" : needs.length > 0 ? "usage_unknown" : other;
  const why = reason === "history_invalid" ? { why: error.message } : {};
  return { kind: "refuse", reason, detail: { error: error.code, ...why, wording: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
}

/**
 * A time for a history's next entry, given the clock's: never before its last entry (only for a
 * history that verified: its times are then this engine's own). A clock set back then cannot
 * revive an expired confirmation token or count in an older period, and a session's times never
 * go backwards.
 */
export function notBefore(entries: readonly Entry[], now: number): number {
  const last = entries.length > 0 ? entries[entries.length - 1]!.at : undefined;
  return typeof last === "number" && last > now ? last : now;
}

/**
 * Never before the store's last commit for the session either (`SessionState.at`): a history
 * restarted by a clock set back would otherwise replay its asks at their old times, and a token
 * that expired would cover the replayed ask again.
 */
export function notBeforeKept(kept: { head: unknown; at?: number } | { error: unknown }, now: number): number {
  const at = "at" in kept ? kept.at : undefined;
  return typeof at === "number" && at > now ? at : now;
}

/**
 * A lapse under `on_licence_lapse: refuse` (the tenant's, or the catalogue's stricter setting)
 * refuses every operation (licensing.md), a person's turn included: `reads_only` still reads
 * turns, `refuse` does not (outside audit 21, F3). Checks answer `licence_lapsed` at step 1.
 */
export function refuseTurnIfLapsed(gate: LicenceGate | undefined, catalogueOnLapse: string | undefined): void {
  if (gate?.stage !== "lapsed" || (gate.onLapse !== "refuse" && catalogueOnLapse !== "refuse")) return;
  const since = gate.unreadable ? ` (${gate.unreadable})` : gate.lapsedAt ? ` on ${gate.lapsedAt}` : "";
  throw new StalwartError("LicenceLapsed", `the licence lapsed${since}, and with \`on_licence_lapse: refuse\` every operation is refused, a person's turn included`, {
    hint: "renew the lease (`stalwart licence status` says why it lapsed), or set `on_licence_lapse: reads_only` to keep reading turns and checking reads",
  });
}
