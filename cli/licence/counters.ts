/**
 * The meters' state on disk: `counters.json` and, written after it, `counters.witness.json`.
 * A counters file restored from an older copy falls behind its witness (meters.reconcile); the
 * clock is checked against the latest time seen. Each process counts in memory and merges its
 * own increments into the file at flush, so two processes on one home do not overwrite each other.
 */
import { meters, type Anomaly, type Counters, type CountersWitness } from "../../worker/portable/licensing/index.js";
import { licencePaths, readJson, writeJsonAtomic } from "./files.js";

export interface LoadedCounters {
  counters: Counters;
  anomalies: Anomaly[];
}

export function loadCounters(home: string | undefined, installationId: string, now: Date): LoadedCounters {
  const p = licencePaths(home);
  const anomalies: Anomaly[] = [];
  let counters = readJson<Counters>(p.counters);
  const witness = readJson<CountersWitness>(p.witness);
  if (!counters || counters.installation_id !== installationId) {
    // No counters (or another installation's): start from the witness if there is one, so deleting
    // the counters file is a rollback too.
    const fresh = meters.emptyCounters(installationId, now);
    if (counters === undefined && witness && witness.seq > 0) anomalies.push("counters_rolled_back");
    counters = witness && counters === undefined ? meters.reconcile(fresh, witness).counters : fresh;
  } else {
    const r = meters.reconcile(counters, witness);
    counters = r.counters;
    if (r.rolledBack) anomalies.push("counters_rolled_back");
  }
  return { counters, anomalies };
}

/** Merge this process's increments (`pending`) into the file, then write counters and witness. */
export function flushCounters(home: string | undefined, mine: Counters, pending: meters.MonthCounts, now: Date): Counters {
  const disk = loadCounters(home, mine.installation_id, now).counters;
  for (const [month, m] of Object.entries(pending)) {
    const d = (disk.months[month] ??= {});
    for (const [meter, n] of Object.entries(m)) d[meter] = (d[meter] ?? 0) + n;
  }
  disk.seq = Math.max(disk.seq, mine.seq) + 1;
  disk.report_seq = Math.max(disk.report_seq, mine.report_seq);
  if (Date.parse(mine.last_seen) > Date.parse(disk.last_seen)) disk.last_seen = mine.last_seen;
  const p = licencePaths(home);
  writeJsonAtomic(p.counters, disk);
  writeJsonAtomic(p.witness, meters.witnessOf(disk));
  return disk;
}
