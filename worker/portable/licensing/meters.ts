/**
 * Meters (licensing.md, "Meters and usage reports"), as pure functions over plain data:
 *   - the runtime counts each meter per calendar month (UTC) on its own clock, in its own state;
 *   - past a limit the answer is `quota_exhausted`, naming the meter;
 *   - a usage report carries cumulative counts and a sequence number; the service counts the
 *     difference from the installation's last report, so a report sent twice counts once;
 *   - a counters file restored from an older copy is detected against a witness kept apart
 *     (and by the service, when cumulative counts go down);
 *   - a clock set back behind the last time the runtime saw is detected, and time never runs
 *     backwards for the licence (the effective now is the latest seen).
 * Files are the caller's (cli/licence/); nothing here does I/O or reads a clock.
 */
export type MonthCounts = Record<string, Record<string, number>>;

export interface Counters {
  v: 1;
  installation_id: string;
  /** Increases at every write of the counters; the witness keeps the highest written. */
  seq: number;
  /** The latest time the runtime saw (ISO). */
  last_seen: string;
  /** `YYYY-MM` → meter → count. */
  months: MonthCounts;
  /** The sequence number of the last usage report the service acknowledged. */
  report_seq: number;
  /** This installation released its seat then (its lease was deleted); never cleared. */
  released_at?: string;
  /** The service answered a stop (`licence_revoked`, `licence_expired`, `installation_released`); a later signed renewal clears it. */
  stop?: Stop;
  /** Anomalies seen on this machine, kept so they are reported. */
  anomalies?: Anomaly[];
}

/** A stop the service answered at a renewal: the licence lapses from `at`. */
export interface Stop {
  at: string;
  code: string;
}

/** A copy of what matters, written beside the counters: a restored counters file falls behind it. */
export interface CountersWitness {
  v: 1;
  /** Absent in witnesses written before 0.1.1. */
  installation_id?: string;
  seq: number;
  last_seen: string;
  months: MonthCounts;
  released_at?: string;
  stop?: Stop;
  anomalies?: Anomaly[];
}

/** `counters_damaged`: counters.json or its witness did not hold a meter, or contradicted the other (refused). */
export type Anomaly = "counters_rolled_back" | "clock_set_back" | "counters_damaged";
export const ANOMALIES: readonly Anomaly[] = ["counters_rolled_back", "clock_set_back", "counters_damaged"];

/** How far back the clock may step (NTP corrections, VM resume) before it counts as set back. */
export const CLOCK_TOLERANCE_MS = 5 * 60_000;
/** Months kept in the counters (older ones are pruned when a new month starts). */
export const KEEP_MONTHS = 3;

let monthMemo = { from: 0, until: -1, month: "" };

/** `YYYY-MM` (UTC) of a date; memoised for the current month (it is on the hot path). */
export function monthOf(date: Date): string {
  const t = date.getTime();
  if (t >= monthMemo.from && t < monthMemo.until) return monthMemo.month;
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  monthMemo = { from: Date.UTC(y, m, 1), until: Date.UTC(y, m + 1, 1), month: date.toISOString().slice(0, 7) };
  return monthMemo.month;
}

export function emptyCounters(installationId: string, now: Date): Counters {
  return { v: 1, installation_id: installationId, seq: 0, last_seen: now.toISOString(), months: {}, report_seq: 0 };
}

export function witnessOf(c: Counters): CountersWitness {
  const w: CountersWitness = { v: 1, installation_id: c.installation_id, seq: c.seq, last_seen: c.last_seen, months: structuredClone(c.months) };
  if (c.released_at !== undefined) w.released_at = c.released_at;
  if (c.stop !== undefined) w.stop = { ...c.stop };
  if (c.anomalies?.length) w.anomalies = [...c.anomalies];
  return w;
}

/** Compare the counters with their witness; a rollback keeps the higher of each count. */
export function reconcile(c: Counters, w: CountersWitness | undefined): { counters: Counters; rolledBack: boolean } {
  if (!w || w.seq <= c.seq) return { counters: c, rolledBack: false };
  const months = structuredClone(c.months);
  for (const [month, meters] of Object.entries(w.months)) {
    const m = (months[month] ??= {});
    for (const [meter, n] of Object.entries(meters)) m[meter] = Math.max(m[meter] ?? 0, n);
  }
  const lastSeen = Date.parse(w.last_seen) > Date.parse(c.last_seen) ? w.last_seen : c.last_seen;
  return { counters: { ...c, seq: w.seq, months, last_seen: lastSeen }, rolledBack: true };
}

/** The effective now: never behind the latest time seen. Updates `last_seen`. */
export function observeClock(c: Counters, now: Date): { now: Date; setBack: boolean } {
  const last = Date.parse(c.last_seen);
  const t = now.getTime();
  if (t >= last) {
    c.last_seen = now.toISOString();
    return { now, setBack: false };
  }
  return { now: new Date(last), setBack: last - t > CLOCK_TOLERANCE_MS };
}

export type CountResult =
  | { ok: true; used: number; limit: number | undefined }
  | { ok: false; code: "quota_exhausted"; meter: string; limit: number; used: number; month: string };

/**
 * Count `n` of `meter` in the month of `now` (already the effective now). A meter the plan does not
 * name is counted with no limit. Refused counts are not added.
 */
export function count(c: Counters, meter: string, n: number, limits: Record<string, number>, now: Date): CountResult {
  const month = monthOf(now);
  let m = c.months[month];
  if (!m) {
    m = c.months[month] = {};
    prune(c, month);
  }
  const used = m[meter] ?? 0;
  const limit = limits[meter];
  if (limit !== undefined && used + n > limit) return { ok: false, code: "quota_exhausted", meter, limit, used, month };
  m[meter] = used + n;
  c.seq += 1;
  return { ok: true, used: used + n, limit };
}

function prune(c: Counters, current: string): void {
  const months = Object.keys(c.months).sort();
  while (months.length > KEEP_MONTHS && months[0]! < current) delete c.months[months.shift()!];
}

/** What remains of each meter this month. */
export function remaining(c: Counters, limits: Record<string, number>, now: Date): Record<string, { used: number; limit: number; remaining: number }> {
  const month = c.months[monthOf(now)] ?? {};
  const out: Record<string, { used: number; limit: number; remaining: number }> = {};
  for (const [meter, limit] of Object.entries(limits)) {
    const used = month[meter] ?? 0;
    out[meter] = { used, limit, remaining: Math.max(0, limit - used) };
  }
  return out;
}

/** A usage report: counts only (never a turn, argument, result, reply or document). */
export interface UsageReport {
  v: 1;
  type: "usage";
  installation_id: string;
  report_seq: number;
  created_at: string;
  /** Cumulative counts per month; the service takes the difference from its last report. */
  months: MonthCounts;
  anomalies: Anomaly[];
}

export function usageReport(c: Counters, now: Date, anomalies: Anomaly[]): UsageReport {
  return {
    v: 1,
    type: "usage",
    installation_id: c.installation_id,
    report_seq: c.report_seq + 1,
    created_at: now.toISOString(),
    months: structuredClone(c.months),
    anomalies: [...new Set(anomalies)],
  };
}

/** The service's last known cumulative counts of one installation. */
export interface ReportedState {
  report_seq: number;
  months: MonthCounts;
}

export interface ReportOutcome {
  /** The same report (or an older one) again: nothing counted. */
  duplicate: boolean;
  /** What to add to the licence's monthly totals. */
  delta: MonthCounts;
  /** Some cumulative count went down: the counters were restored from an older copy. */
  rolledBack: boolean;
  next: ReportedState;
}

export function applyReport(last: ReportedState, report: Pick<UsageReport, "report_seq" | "months">): ReportOutcome {
  if (report.report_seq <= last.report_seq) return { duplicate: true, delta: {}, rolledBack: false, next: last };
  const delta: MonthCounts = {};
  const months = structuredClone(last.months);
  let rolledBack = false;
  for (const [month, meters] of Object.entries(report.months)) {
    const prev = (months[month] ??= {});
    for (const [meter, n] of Object.entries(meters)) {
      const before = prev[meter] ?? 0;
      if (n < before) rolledBack = true;
      if (n > before) {
        (delta[month] ??= {})[meter] = n - before;
        prev[meter] = n;
      }
    }
  }
  // What the service remembers stays bounded too: the newest months, as many as one report may name
  // (a runtime reports its newest `KEEP_MONTHS`, so what it can still report is never forgotten).
  const held = Object.keys(months).sort();
  while (held.length > REPORT_MAX_MONTHS) delete months[held.shift()!];
  return { duplicate: false, delta, rolledBack, next: { report_seq: report.report_seq, months } };
}

const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
const METER = /^[a-z][a-z0-9_]{0,63}$/;
/**
 * A report's bounds. A runtime keeps `KEEP_MONTHS` months and counts the meters its plan names (a
 * handful), so an honest report is far inside both; a signed report past them is refused rather
 * than stored, so one installation cannot grow the service's rows without bound.
 */
export const REPORT_MAX_MONTHS = 12;
export const REPORT_MAX_METERS = 64;

/** Shape check for a report arriving at the service. */
export function checkUsageReport(x: unknown): { ok: true; report: UsageReport } | { ok: false; pointer: string; message: string } {
  if (!x || typeof x !== "object" || Array.isArray(x)) return { ok: false, pointer: "", message: "expected a usage report object" };
  const r = x as Record<string, unknown>;
  if (r.v !== 1 || r.type !== "usage") return { ok: false, pointer: "/type", message: "expected `v: 1` and `type: \"usage\"`" };
  if (typeof r.installation_id !== "string") return { ok: false, pointer: "/installation_id", message: "`installation_id` must be a string" };
  if (typeof r.report_seq !== "number" || !Number.isSafeInteger(r.report_seq) || r.report_seq < 1) return { ok: false, pointer: "/report_seq", message: "`report_seq` must be a positive integer" };
  if (typeof r.created_at !== "string" || Number.isNaN(Date.parse(r.created_at))) return { ok: false, pointer: "/created_at", message: "`created_at` must be an ISO date" };
  if (!r.months || typeof r.months !== "object" || Array.isArray(r.months)) return { ok: false, pointer: "/months", message: "`months` must be an object" };
  // Read into a fresh value as each count is checked; the report is what was read, field by field.
  const months: MonthCounts = {};
  const named = Object.keys(r.months);
  if (named.length > REPORT_MAX_MONTHS) return { ok: false, pointer: "/months", message: `a report counts at most ${REPORT_MAX_MONTHS} months (this one names ${named.length})` };
  for (const [month, meters] of Object.entries(r.months)) {
    if (!MONTH.test(month)) return { ok: false, pointer: `/months/${month}`, message: "months are named `YYYY-MM`" };
    if (!meters || typeof meters !== "object" || Array.isArray(meters)) return { ok: false, pointer: `/months/${month}`, message: "expected meter counts" };
    const counts: Record<string, number> = (months[month] = {});
    const meterCount = Object.keys(meters).length;
    if (meterCount > REPORT_MAX_METERS) return { ok: false, pointer: `/months/${month}`, message: `a month counts at most ${REPORT_MAX_METERS} meters (this one names ${meterCount})` };
    for (const [meter, n] of Object.entries(meters)) {
      if (!METER.test(meter)) return { ok: false, pointer: `/months/${month}/${meter}`, message: "meter names are lowercase words" };
      if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) return { ok: false, pointer: `/months/${month}/${meter}`, message: "counts are non-negative integers" };
      counts[meter] = n;
    }
  }
  const anomalies = Array.isArray(r.anomalies) ? r.anomalies.filter((a): a is Anomaly => (ANOMALIES as readonly unknown[]).includes(a)) : [];
  return { ok: true, report: { v: 1, type: "usage", installation_id: r.installation_id, report_seq: r.report_seq, created_at: r.created_at, months, anomalies } };
}
