/**
 * The licence state machine (licensing.md, "Activation, lease, grace, release" and "When the
 * licence lapses"), as a pure function of verified documents and `now`:
 *
 *   active  — now < lease end
 *   grace   — lease end <= now < grace end  (the service could not be reached; the runtime answers)
 *   lapsed  — now >= the earliest of: grace end, licence expiry, revocation
 *
 * A lapse degrades by `on_licence_lapse`: `reads_only` (writes refused `licence_lapsed`) or
 * `refuse` (everything refused `licence_lapsed`, naming `lapsedAt`).
 */
import type { LeasePayload, LicencePayload, OnLapse } from "./documents.js";

type LicenceStage = "active" | "grace" | "lapsed";

/** What step 1 of the check reads. */
export interface LicenceView {
  stage: LicenceStage;
  onLapse: OnLapse;
  leaseEnds: string;
  graceEnds: string;
  lapsedAt?: string;
  plan: string;
  bundleDigests: Record<string, string>;
}

/** The verified documents a view is computed from (as stored by an installation). */
export interface LicenceState {
  licence: LicencePayload;
  lease: LeasePayload;
  /** Set when the service answered that the licence was revoked or the plan cancelled. */
  revokedAt?: string;
  /** The bundles adopted at the last renewal (kind → digest); default: the lease's. */
  bundles?: Record<string, string>;
}

export function licenceView(state: LicenceState, now: Date): LicenceView {
  return licenceViewSpan(state, now).view;
}

/**
 * The view at `now` and the span of time [from, until) it stays the same for: every field but the
 * stage is fixed by the documents, and the stage changes only at the lease's end and the lapse. A
 * runtime that answers many checks under one licence (the worker) computes it once per stage.
 * Dates that do not parse make an empty span: nothing is reused.
 */
export function licenceViewSpan(state: LicenceState, now: Date): { view: LicenceView; from: number; until: number } {
  const { licence, lease } = state;
  const t = now.getTime();
  const licenceEnds = Date.parse(licence.expires_at);
  const leaseEnds = Math.min(Date.parse(lease.expires_at), licenceEnds);
  const graceEnds = Math.max(leaseEnds, Math.min(Date.parse(lease.grace_ends), licenceEnds));
  let lapseStarts = graceEnds;
  if (state.revokedAt !== undefined) lapseStarts = Math.min(lapseStarts, Date.parse(state.revokedAt));

  const view: LicenceView = {
    stage: t >= lapseStarts ? "lapsed" : t >= leaseEnds ? "grace" : "active",
    onLapse: licence.on_licence_lapse,
    leaseEnds: new Date(leaseEnds).toISOString(),
    graceEnds: new Date(graceEnds).toISOString(),
    plan: licence.plan,
    bundleDigests: { ...(state.bundles ?? lease.bundles) },
  };
  if (view.stage === "lapsed") view.lapsedAt = new Date(lapseStarts).toISOString();
  const from = view.stage === "lapsed" ? lapseStarts : view.stage === "grace" ? leaseEnds : -Infinity;
  const until = view.stage === "lapsed" ? Infinity : view.stage === "grace" ? lapseStarts : Math.min(leaseEnds, lapseStarts);
  const parsed = !Number.isNaN(t + licenceEnds + leaseEnds + graceEnds + lapseStarts);
  return { view, from: parsed ? from : NaN, until: parsed ? until : NaN };
}

/** What a lapsed licence allows, for the check core's step 1 (writes vs reads vs turns). */
export function lapseAllows(view: LicenceView, operation: "turn" | "read" | "write"): boolean {
  if (view.stage !== "lapsed") return true;
  if (view.onLapse === "refuse") return false;
  return operation !== "write";
}
