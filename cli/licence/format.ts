/** Human output of `stalwart licence status` and `stalwart doctor` (JSON with `--json`). */
import type { DoctorReport } from "./doctor.js";
import type { LicenceStatus } from "./handle.js";
import { DEV_SERVICE_URL } from "./service.js";

const day = (iso: string) => iso.replace("T", " ").replace(/:\d\d\.\d{3}Z$/, " UTC");

/**
 * The lease and the grace after it. A grace never runs past the licence's end, so a lease that ends
 * with the licence (an offline activation's runs for the whole term) has none: that is said, not
 * shown as a grace that ends where it starts while the entitlements line says "30-day grace".
 */
function activeDates(s: LicenceStatus): string {
  const lease = Date.parse(s.leaseEnds);
  const grace = Date.parse(s.graceEnds);
  const end = Date.parse(s.licenceExpires);
  if (grace <= lease) return `the lease ends ${day(s.leaseEnds)}${end <= lease ? " with the licence itself, so no grace follows (a grace never runs past the licence's end)" : "; no grace follows it"}`;
  return `the lease ends ${day(s.leaseEnds)}; then the grace runs to ${day(s.graceEnds)}${grace >= end ? " (the licence's end: a grace never runs past it)" : ""}`;
}

function formatStage(s: LicenceStatus): string[] {
  const lines: string[] = [];
  if (s.stage === "active") lines.push(`state        active — ${activeDates(s)}`);
  if (s.stage === "grace") lines.push(`state        grace — the lease ended ${day(s.leaseEnds)}; the runtime answers until ${day(s.graceEnds)} unless the lease renews`);
  if (s.stage === "lapsed") {
    lines.push(`state        lapsed since ${day(s.lapsedAt!)} (lease ended ${day(s.leaseEnds)}, grace ended ${day(s.graceEnds)})`);
    if (s.stop && s.stop.at === s.lapsedAt) lines.push(`             the licence service answered \`${s.stop.code}\` on ${day(s.stop.at)}; a renewal the service signs lifts it (\`stalwart licence status --refresh\`)`);
    if (Date.parse(s.licenceExpires) <= Date.parse(s.lapsedAt!)) lines.push(`             the licence itself expired ${day(s.licenceExpires)}: no lease renews it; a new licence is needed`);
    lines.push(
      s.onLapse === "reads_only"
        ? "             on_licence_lapse: reads_only — turns and reads are checked, every write is refused `licence_lapsed`"
        : "             on_licence_lapse: refuse — every operation is refused `licence_lapsed`",
    );
  }
  return lines;
}

export function formatStatus(s: LicenceStatus): string {
  const lines = [
    `licence      ${s.licenceId} (plan ${s.plan}, organisation ${s.orgId}, until ${day(s.licenceExpires)})`,
    ...formatStage(s),
    `installation ${s.installationId}${s.offline ? " (activated offline)" : ""}`,
    `entitlements ${s.limits.installations} installation${s.limits.installations === 1 ? "" : "s"}, ${s.limits.lease_days}-day lease, ${s.limits.offline_grace_days}-day grace, offline activation ${s.limits.offline_activation ? "yes" : "no"}`,
    `meters       ${s.month}:`,
    ...Object.entries(s.meters).map(([m, v]) => `  ${m.padEnd(14)} ${String(v.used).padStart(10)} of ${v.limit} (${v.remaining} left)`),
  ];
  if (s.lastRenewal) lines.push(`last renewal ${day(s.lastRenewal.at)} ${s.lastRenewal.ok ? "ok" : `failed: ${s.lastRenewal.code}${s.lastRenewal.message ? ` — ${s.lastRenewal.message}` : ""}`}`);
  const warning: Record<string, string> = {
    clock_set_back: "the clock is behind the latest time this machine saw (clock set back); the licence keeps time from that latest time",
    counters_rolled_back: "the counters file is older than its witness (restored from a copy, or deleted); the higher counts are kept and reported",
    counters_damaged: "the counters file or its witness was damaged or edited and was refused; the witness's counts are kept and the damage reported",
  };
  for (const a of s.anomalies) lines.push(`warning      ${warning[a] ?? a}`);
  if (s.trustedKeys === "dev") lines.push("keys         this build trusts the dev/test signing keys (not for production)");
  if (s.serviceUrl === DEV_SERVICE_URL) lines.push("development  a development licence from `stalwart licence dev` (dev keys; not for production); run it again to renew the lease");
  return lines.join("\n");
}

export function formatDoctor(r: DoctorReport): string {
  const ok = (b: boolean) => (b ? "ok  " : "no  ");
  const lines = [
    `service      ${r.service_url}`,
    `api key      ${r.api_key.configured ? `configured (${r.api_key.source})` : "not configured (needed only to activate) — export QLS_API_KEY=qls_live_…"}`,
    `runtime      ${ok(r.runtime.answers_checks)}${r.runtime.detail}`,
    `meters       ${ok(r.meters.writable && !r.meters.last_failure)}${r.meters.detail}${r.meters.last_failure ? `; last failure ${r.meters.last_failure.at}: ${r.meters.last_failure.message}` : ""}`,
    `history key  ${r.history_key.ok ? `ok  ${r.history_key.id ?? "none yet: the first session makes one"}` : `no  ${r.history_key.code}: ${r.history_key.message}${r.history_key.hint ? `\n             hint: ${r.history_key.hint}` : ""}`}`,
    `store        ${r.store.ok ? `ok  ${r.store.exists ? `\`${r.store.file}\` reads` : "none yet: the first session makes one"}` : `no  ${r.store.code}: ${r.store.message}${r.store.hint ? `\n             hint: ${r.store.hint}` : ""}`}`,
  ];
  if (r.licence.ok) lines.push(...formatStatus(r.licence.status).split("\n"));
  else lines.push(`licence      none — ${r.licence.message}${r.licence.hint ? `\n             hint: ${r.licence.hint}` : ""}`);
  lines.push(`round trip   ${r.round_trip.ok ? `ok   ${r.round_trip.ms} ms` : r.round_trip.none ? `none — ${r.round_trip.none}` : `failed — ${r.round_trip.error}`}`);
  if (r.account.ok) {
    lines.push(`account      plan ${r.account.plan}; permissions ${r.account.permissions.join(", ")}`);
    lines.push(`             this month (${r.account.month}) as reported: ${Object.entries(r.account.meters).map(([m, v]) => `${m} ${v.used}/${v.limit}`).join(", ")}`);
  } else lines.push(`account      unavailable — ${r.account.error}`);
  lines.push(r.missing.length === 0 ? "missing      nothing" : `missing      ${r.missing.join("\n             ")}`);
  return lines.join("\n");
}
