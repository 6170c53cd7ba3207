/**
 * The plan table of licensing.md ("Plans"), plus the monthly meter limits that come with each plan.
 * The service stamps these into the signed licence; the runtime reads them from the licence, never
 * from this table, so a plan change reaches a machine at its next renewal.
 */
export type PlanName = "free" | "paid" | "enterprise";

export interface PlanLimits {
  /** Machines holding a lease at once. */
  installations: number;
  lease_days: number;
  offline_grace_days: number;
  /** Whether request/answer files may activate a machine that never reaches the service. */
  offline_activation: boolean;
}

export interface Plan {
  name: PlanName;
  limits: PlanLimits;
  /** Monthly limit of each meter the plan names. */
  meters: Record<string, number>;
}

export const PLANS: Readonly<Record<PlanName, Plan>> = {
  free: {
    name: "free",
    limits: { installations: 1, lease_days: 7, offline_grace_days: 7, offline_activation: false },
    meters: { plan_calls: 10_000, tool_checks: 10_000, answer_calls: 2_000 },
  },
  paid: {
    name: "paid",
    limits: { installations: 5, lease_days: 7, offline_grace_days: 30, offline_activation: false },
    meters: { plan_calls: 1_000_000, tool_checks: 1_000_000, answer_calls: 200_000 },
  },
  enterprise: {
    name: "enterprise",
    limits: { installations: 50, lease_days: 7, offline_grace_days: 30, offline_activation: true },
    meters: { plan_calls: 50_000_000, tool_checks: 50_000_000, answer_calls: 10_000_000 },
  },
};

export function isPlanName(x: unknown): x is PlanName {
  return x === "free" || x === "paid" || x === "enterprise";
}

/** The bundle kinds of licensing.md ("Service endpoints"). */
export const BUNDLE_KINDS = ["vocabulary", "prompt_pack", "reply_rules", "outcome_phrasings", "own_identifiers", "language", "bot"] as const;
export type BundleKind = (typeof BUNDLE_KINDS)[number];

export function isBundleKind(x: unknown): x is BundleKind {
  return typeof x === "string" && (BUNDLE_KINDS as readonly string[]).includes(x);
}

export const DAY_MS = 86_400_000;
