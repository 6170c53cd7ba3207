/**
 * The meters' state on disk: `counters.json` and, written after it, `counters.witness.json`.
 * A counters file restored from an older copy falls behind its witness (meters.reconcile); the
 * clock is checked against the latest time seen. Each process counts in memory and merges its
 * own increments into the file at flush, so two processes on one home do not overwrite each other.
 *
 * The same two files hold what must not be undone by editing `installation.json`: this
 * installation released its seat (`released_at`), or the service answered a stop (`stop`). Either
 * file keeps it; the stricter of the two is used (counters-check.ts, `mergeStops`).
 *
 * Damaged or contradicting state refuses (`LicenceFileUnreadable`, naming the file) and records
 * the `counters_damaged` anomaly in the witness where it still reads: it never becomes a fresh meter.
 */
import { meters, type Anomaly, type Counters, type CountersWitness, type Stop } from "../../worker/portable/licensing/index.js";
import { checkCounters, checkWitness, contradiction, COUNTERS_HINT, damaged, mergeStops, WITNESS_HINT } from "./counters-check.js";
import { licencePaths, readJson, writeJsonAtomic } from "./files.js";

export interface LoadedCounters {
  counters: Counters;
  anomalies: Anomaly[];
}

export function loadCounters(home: string | undefined, installationId: string, now: Date): LoadedCounters {
  const p = licencePaths(home);
  const anomalies: Anomaly[] = [];
  const rawCounters = readJson<unknown>(p.counters);
  const witness = readWitness(p.witness);
  if (witness?.installation_id !== undefined && witness.installation_id !== installationId) {
    throw damaged(p.witness, `it is the witness of installation \`${witness.installation_id}\`, not of this one (\`${installationId}\`)`, WITNESS_HINT);
  }
  let counters: Counters;
  if (rawCounters === undefined) {
    // both deleted: a licence that has seen nothing here; counters.json alone deleted: a rollback, the witness's counts kept
    counters = meters.emptyCounters(installationId, now);
    if (witness) {
      counters = meters.reconcile(counters, witness).counters;
      if (witness.seq > 0) anomalies.push("counters_rolled_back");
    }
  } else {
    const c = refuseDamaged(p.witness, () => checkCounters(rawCounters, p.counters));
    if (c.installation_id !== installationId) {
      throw refused(p.witness, damaged(p.counters, `it holds the counts of installation \`${c.installation_id}\`, not of this one (\`${installationId}\`)`, COUNTERS_HINT));
    }
    if (!witness && c.seq > 0) throw damaged(p.witness, `it is missing while counters.json has counted (seq ${c.seq}): counters.json cannot be checked against it`, WITNESS_HINT);
    if (witness && c.seq >= witness.seq) {
      const wrong = contradiction(c, witness);
      if (wrong) throw refused(p.witness, damaged(p.counters, wrong, COUNTERS_HINT));
    }
    const r = meters.reconcile(c, witness);
    counters = r.counters;
    if (r.rolledBack) anomalies.push("counters_rolled_back");
  }
  mergeStops(counters, witness);
  for (const a of counters.anomalies ?? []) if (!anomalies.includes(a)) anomalies.push(a);
  return { counters, anomalies };
}

function readWitness(file: string): CountersWitness | undefined {
  const raw = readJson<unknown>(file);
  return raw === undefined ? undefined : checkWitness(raw, file);
}

/** Run `read`; a damaged counters.json is recorded in the witness (`counters_damaged`) before it is thrown. */
function refuseDamaged<T>(witnessFile: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw refused(witnessFile, err);
  }
}

/** Record `counters_damaged` in the witness, where it reads, so the damage is reported once the state is restored. */
function refused(witnessFile: string, err: unknown): unknown {
  try {
    const w = readWitness(witnessFile);
    if (w && !w.anomalies?.includes("counters_damaged")) writeJsonAtomic(witnessFile, { ...w, anomalies: [...(w.anomalies ?? []), "counters_damaged"] });
  } catch {
    // the witness is damaged too: the refusal names counters.json, doctor names both
  }
  return err;
}

/** What a flush does to the stop record: keep the file's, set one, or clear it (a signed renewal succeeded). */
export type StopChange = { set: Stop } | { clear: true } | undefined;

/** Merge this process's increments (`pending`) into the file, then write counters and witness. */
export function flushCounters(home: string | undefined, mine: Counters, pending: meters.MonthCounts, now: Date, stop?: StopChange): Counters {
  const disk = loadCounters(home, mine.installation_id, now).counters;
  for (const [month, m] of Object.entries(pending)) {
    const d = (disk.months[month] ??= {});
    for (const [meter, n] of Object.entries(m)) d[meter] = (d[meter] ?? 0) + n;
  }
  disk.seq = Math.max(disk.seq, mine.seq) + 1;
  disk.report_seq = Math.max(disk.report_seq, mine.report_seq);
  if (Date.parse(mine.last_seen) > Date.parse(disk.last_seen)) disk.last_seen = mine.last_seen;
  if (mine.released_at !== undefined) disk.released_at ??= mine.released_at;
  if (mine.anomalies?.length) disk.anomalies = [...new Set([...(disk.anomalies ?? []), ...mine.anomalies])];
  if (stop && "set" in stop) disk.stop ??= stop.set;
  if (stop && "clear" in stop) delete disk.stop;
  writeCounters(home, disk);
  return disk;
}

export function writeCounters(home: string | undefined, c: Counters): void {
  const p = licencePaths(home);
  writeJsonAtomic(p.counters, c);
  writeJsonAtomic(p.witness, meters.witnessOf(c));
}

/**
 * A new installation on this home (activation, offline install): its own meter, starting from
 * nothing but the latest time this home has seen. The previous installation's files are replaced
 * only when they are another installation's — the same installation keeps its counts.
 */
export function startCounters(home: string | undefined, installationId: string, now: Date): void {
  const p = licencePaths(home);
  const previous = [leniently(p.counters), leniently(p.witness)];
  if (previous.some((x) => x?.installation_id === installationId)) {
    loadCounters(home, installationId, now); // the same installation (activated again): its state must read, as it is
    return;
  }
  const fresh = meters.emptyCounters(installationId, now);
  const seen = Math.max(...previous.map((x) => (typeof x?.last_seen === "string" ? Date.parse(x.last_seen) : NaN)).filter((t) => !Number.isNaN(t)), -Infinity);
  if (seen > now.getTime()) fresh.last_seen = new Date(seen).toISOString();
  writeCounters(home, fresh);
}

/** A file's fields when it is a JSON object, else undefined (for `startCounters` only: the new installation replaces it). */
function leniently(file: string): Record<string, unknown> | undefined {
  try {
    const x = readJson<unknown>(file);
    return typeof x === "object" && x !== null && !Array.isArray(x) ? (x as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
