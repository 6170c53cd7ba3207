/**
 * Rows of the licence object and the documents made from them; plain functions, no I/O except the
 * `sql` handle passed in by the object's transaction.
 */
import { meters, type LeasePayload, type LicencePayload, type PlanName, type UsageReport } from "../../portable/licensing/index.js";
import type { SqlStorageLike } from "./env.js";

export interface LicenceRow {
  id: string;
  org_id: string;
  plan: PlanName;
  limits: string;
  meters: string;
  on_licence_lapse: "reads_only" | "refuse";
  issued_at: string;
  starts_at: string;
  expires_at: string;
  bundle_key: string;
  revoked_at: string | null;
}

export interface InstallationRow {
  id: string;
  public_key: string;
  activation_id: string;
  lease_seq: number;
  status: "active" | "released";
  offline: number;
  created_at: string;
  refreshed_at: string;
  lease_expires_at: string;
  grace_ends_at: string;
  released_at: string | null;
  report_seq: number;
  reported: string;
  anomalies: string;
}

export function licencePayload(row: LicenceRow): LicencePayload {
  return {
    v: 1,
    type: "licence",
    licence_id: row.id,
    org_id: row.org_id,
    plan: row.plan,
    limits: JSON.parse(row.limits),
    meters: JSON.parse(row.meters),
    on_licence_lapse: row.on_licence_lapse,
    issued_at: row.issued_at,
    starts_at: row.starts_at,
    expires_at: row.expires_at,
  };
}

export function leasePayload(lic: LicenceRow, inst: InstallationRow, bundles: Record<string, string>, now: Date): LeasePayload {
  return {
    v: 1,
    type: "lease",
    licence_id: lic.id,
    installation_id: inst.id,
    installation_key: inst.public_key,
    activation_id: inst.activation_id,
    seq: inst.lease_seq,
    issued_at: now.toISOString(),
    expires_at: inst.lease_expires_at,
    grace_ends: inst.grace_ends_at,
    offline: inst.offline === 1,
    bundles,
  };
}

/**
 * Inside the object's transaction: count a usage report as the difference from the installation's
 * last one (a report sent twice counts once), add it to the month totals, note a rollback.
 */
export function applyReportRow(sql: SqlStorageLike, inst: InstallationRow, report: UsageReport) {
  const outcome = meters.applyReport({ report_seq: inst.report_seq, months: JSON.parse(inst.reported) }, report);
  if (outcome.duplicate) return { counted: false, duplicate: true, rolled_back: false, report_seq: inst.report_seq };
  for (const [month, counts] of Object.entries(outcome.delta)) {
    for (const [meter, n] of Object.entries(counts)) {
      // Totals of many installations could pass what a JS number holds exactly: they stop at the
      // largest exact integer (far past any plan's limit) instead of going inexact.
      sql.exec(`INSERT INTO usage (month, meter, total) VALUES (?, ?, ?) ON CONFLICT(month, meter) DO UPDATE SET total = MIN(total + excluded.total, ${Number.MAX_SAFE_INTEGER})`, month, meter, n);
    }
  }
  const anomalies = new Set<string>(JSON.parse(inst.anomalies) as string[]);
  for (const a of report.anomalies) anomalies.add(a);
  if (outcome.rolledBack) anomalies.add("counters_rolled_back");
  sql.exec(
    `UPDATE installations SET report_seq = ?, reported = ?, anomalies = ? WHERE id = ?`,
    outcome.next.report_seq, JSON.stringify(outcome.next.months), JSON.stringify([...anomalies]), inst.id,
  );
  return { counted: true, duplicate: false, rolled_back: outcome.rolledBack, report_seq: outcome.next.report_seq, delta: outcome.delta };
}
