/**
 * The runtime's licence in a process: `openLicence()` loads and verifies the installation, and the
 * handle gives the check core what step 1 reads (`view()`), counts meters (`count()`), and renews
 * the lease once per process on the first answer, in the background: a renewal failure never
 * blocks or fails a check, and the last lease holds through its term and then the grace.
 *
 * The counts are written in the background too (a timer shortly after a count, and at exit), and
 * background work never throws into the host: a write that fails (`counters.json` damaged while
 * the process runs, a full disk) is recorded — here (`status().meterFlush`) and, where the disk
 * allows, in `licence/meter-failure.json` for `stalwart doctor` — and the counts stay pending.
 * While it stands, the next count tries the write again and, if it still fails, refuses with
 * `MeterUnrecorded` (the check answers `quota_exhausted` naming the meter: fail closed).
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  StalwartError,
  isDevKeySet,
  licenceView,
  LicenceRequired,
  meters,
  QuotaExhausted,
  TRUSTED_KEYS,
  type Anomaly,
  type Counters,
  type KeySet,
  type LicenceView,
  type Stop,
} from "../../worker/portable/licensing/index.js";
import { flushCounters, loadCounters, type StopChange } from "./counters.js";
import { acquireGate, releaseGate, throughGate } from "../sdk/state/open-gate.js";
import { lmdbOpenable } from "../sdk/state/lmdb-openable.js";
import { licencePaths, resolveHome, writeJsonAtomic } from "./files.js";
import { loadInstallation, stateOf, stopOf, type LoadedInstallation } from "./installation.js";
import { renewInstallation, type RenewOutcome } from "./renew.js";
import { backgroundFetch } from "./background-fetch.js";
import { DEFAULT_SERVICE_URL, DEV_SERVICE_URL, ServiceClient } from "./service.js";

const COUNTS_GATE = "counters.gate";

/** The counts' gate (open-gate.ts) of `home`: `licence/counters.gate` and its lock file. */
export function countsGate(home: string): string {
  return join(licencePaths(home).dir, COUNTS_GATE);
}

export interface OpenLicenceOptions {
  /** Default $STALWART_HOME, else ~/.stalwart. */
  home?: string;
  /** Injectable clock. */
  now?: Date | (() => Date);
  /** Default: $STALWART_LICENCE_URL, else the URL the installation was activated against. */
  serviceUrl?: string;
  fetch?: typeof fetch;
  /** Default: the key set compiled into this build. */
  trustedKeys?: KeySet;
  /** `false`: never contact the service from this handle (tests, air-gapped runs). */
  renew?: boolean;
}

export interface LicenceStatus extends LicenceView {
  installationId: string;
  licenceId: string;
  orgId: string;
  serviceUrl: string;
  offline: boolean;
  licenceExpires: string;
  limits: { installations: number; lease_days: number; offline_grace_days: number; offline_activation: boolean };
  month: string;
  meters: Record<string, { used: number; limit: number; remaining: number }>;
  anomalies: Anomaly[];
  lastRenewal?: { at: string; ok: boolean; code?: string; message?: string };
  /** the last write of the counts failed (in this process): what failed, when */
  meterFlush?: MeterFailure;
  /** why the licence lapsed before its lease: the service answered this stop (a signed renewal lifts it) */
  stop?: Stop;
  trustedKeys: "dev" | "production";
}

/** Why the counts could not be written. */
export interface MeterFailure {
  at: string;
  code: string;
  message: string;
}

/** A count the runtime cannot record: the check refuses (`quota_exhausted`), never allows unmetered. */
class MeterUnrecorded extends StalwartError {
  constructor(readonly meter: string, readonly failure: MeterFailure) {
    super("MeterUnrecorded", `the meter \`${meter}\` cannot be recorded: ${failure.message}`, { hint: "run `stalwart doctor`: it shows what is wrong with the licence files" });
  }
}

/** Homes whose lease this process has already renewed ("the first answer in a process"). */
const renewedThisProcess = new Set<string>();
const open = new Set<LicenceHandle>();
let exitHook = false;

export async function openLicence(opts: OpenLicenceOptions = {}): Promise<LicenceHandle> {
  const home = resolveHome(opts.home);
  const clock = typeof opts.now === "function" ? opts.now : opts.now instanceof Date ? ((d: Date) => () => d)(opts.now) : () => new Date();
  const inst = await loadInstallation(home, opts.trustedKeys ?? TRUSTED_KEYS);
  const { counters, anomalies } = loadCounters(home, inst.stored.installation_id, clock());
  if (counters.released_at !== undefined) {
    // installation.json put back from a copy made before the release: the counts' files kept it
    throw new LicenceRequired(`this machine released its seat on ${counters.released_at} (\`${licencePaths(home).counters}\` and its witness record it)`, "set QLS_API_KEY and run `stalwart licence activate` to take a seat again");
  }
  // The counts' gate is first opened at the first write, after a check answered: one LMDB cannot
  // open refuses here, before any answer, not once a count is already unrecorded.
  lmdbOpenable(countsGate(home), "LicenceFileUnreadable");
  const serviceUrl = opts.serviceUrl ?? process.env.STALWART_LICENCE_URL ?? inst.stored.service_url ?? DEFAULT_SERVICE_URL;
  return new LicenceHandle(home, inst, counters, anomalies, clock, serviceUrl, opts);
}

export class LicenceHandle {
  private pending: meters.MonthCounts = {};
  private lastSeenMs: number | undefined;
  private viewCache: { view: LicenceView; from: number; until: number } | undefined;
  private flushTimer: ReturnType<typeof setTimeout> | undefined;
  private flushFailure: MeterFailure | undefined;
  /** a stop heard, or lifted, at a renewal: written with the next flush */
  private stopChange: StopChange;
  private readonly anomalySet: Set<Anomaly>;
  /** The background renewal started by the first answer, if any (never rejects). */
  renewal: Promise<RenewOutcome> | undefined;

  constructor(
    readonly home: string,
    private inst: LoadedInstallation,
    private counters: Counters,
    anomalies: Anomaly[],
    private readonly clock: () => Date,
    readonly serviceUrl: string,
    private readonly opts: OpenLicenceOptions,
  ) {
    this.anomalySet = new Set(anomalies);
    open.add(this);
    if (!exitHook) {
      exitHook = true;
      process.once("exit", () => {
        for (const h of open) h.flushInBackground();
      });
    }
    this.now(); // detect a clock set back at open
  }

  get installationId(): string {
    return this.inst.stored.installation_id;
  }

  get licenceId(): string {
    return this.inst.stored.licence_id;
  }

  get anomalies(): Anomaly[] {
    return [...this.anomalySet];
  }

  /** The effective now: the injected clock, never behind the latest time this home has seen. */
  now(): Date {
    return new Date(this.nowMs());
  }

  private nowMs(): number {
    const t = this.clock().getTime();
    if (this.lastSeenMs === undefined) this.lastSeenMs = Date.parse(this.counters.last_seen);
    if (t >= this.lastSeenMs) {
      this.lastSeenMs = t;
      return t;
    }
    if (this.lastSeenMs - t > meters.CLOCK_TOLERANCE_MS) this.anomalySet.add("clock_set_back");
    return this.lastSeenMs;
  }

  /**
   * What step 1 of the check reads. Hot path: the view only changes at the lease end, the grace
   * end or a renewal, so it is computed once per stage and returned frozen.
   */
  view(): LicenceView {
    const t = this.nowMs();
    const c = this.viewCache;
    if (c && t >= c.from && t < c.until) return c.view;
    const view = Object.freeze(licenceView(stateOf(this.inst, this.counters.stop), new Date(t))) as LicenceView;
    const bounds = [Date.parse(view.leaseEnds), Date.parse(view.graceEnds), view.lapsedAt ? Infinity : Date.parse(this.inst.licence.expires_at)];
    const until = Math.min(...bounds.filter((b) => b > t), Infinity);
    const from = Math.max(...bounds.filter((b) => b <= t), -Infinity);
    this.viewCache = { view, from, until };
    return view;
  }

  status(): LicenceStatus {
    const now = this.now();
    const lic = this.inst.licence;
    const s: LicenceStatus = {
      ...licenceView(stateOf(this.inst, this.counters.stop), now),
      installationId: this.installationId,
      licenceId: this.licenceId,
      orgId: lic.org_id,
      serviceUrl: this.serviceUrl,
      offline: this.inst.stored.offline,
      licenceExpires: lic.expires_at,
      limits: lic.limits,
      month: meters.monthOf(now),
      meters: meters.remaining(this.counters, lic.meters, now),
      anomalies: this.anomalies,
      trustedKeys: isDevKeySet(this.inst.keys) ? "dev" : "production",
    };
    if (this.inst.stored.last_renewal) s.lastRenewal = this.inst.stored.last_renewal;
    if (this.flushFailure) s.meterFlush = { ...this.flushFailure };
    const stop = stopOf(this.inst, this.counters.stop);
    if (stop) s.stop = stop;
    return s;
  }

  /**
   * Count `n` of `meter`. Past the plan's monthly limit: throws `QuotaExhausted` (code
   * `quota_exhausted`) naming the meter, and nothing is counted. The first count in a process is
   * the first answer: it starts the background renewal.
   */
  count(meter: string, n = 1): void {
    if (this.flushFailure) {
      // the last write failed: nothing is counted (nor allowed) until the counts can be written
      try {
        this.flush(true);
      } catch {
        throw new MeterUnrecorded(meter, this.flushFailure);
      }
    }
    const now = new Date(this.nowMs());
    const r = meters.count(this.counters, meter, n, this.inst.licence.meters, now);
    this.answered();
    if (!r.ok) throw new QuotaExhausted(r.meter, r.limit, r.used, r.month);
    const month = meters.monthOf(now);
    const m = (this.pending[month] ??= {});
    m[meter] = (m[meter] ?? 0) + n;
    this.scheduleFlush();
  }

  /** The runtime gave an answer: the first one in this process renews the lease, in the background. */
  answered(): void {
    if (this.opts.renew === false || renewedThisProcess.has(this.home)) return;
    // a development licence has no service to renew at (`stalwart licence dev` renews it): an
    // attempt could only fail, and `licence status` would show that failure as if it mattered
    if (this.inst.stored.service_url === DEV_SERVICE_URL) return;
    renewedThisProcess.add(this.home);
    // Started after the current answer, so its counts are in the report; on the next turn of the
    // event loop rather than a microtask later, so the answer reaches its caller first. Its start
    // is synchronous work (the counts written, and in Node the first `fetch` loading undici, ~40 ms
    // of CPU) that a microtask ran in front of the caller's own continuation.
    this.renewal = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.renew(true))
      .catch((err: unknown) => ({ ok: false, code: "renewal_failed", message: (err as Error)?.message ?? String(err), adopted: [] }));
  }

  /** Renew now (awaited): refresh the lease, report the counts, adopt changed bundles. `background`: its connection does not hold the process open. */
  async renew(background = false): Promise<RenewOutcome> {
    this.flush(true); // merge with the file: other processes' counts are reported too
    const now = this.now();
    const report = meters.usageReport(this.counters, now, this.anomalies);
    const client = new ServiceClient(this.serviceUrl, this.opts.fetch ?? (background ? backgroundFetch : fetch), this.ownIdentifiers());
    const { outcome, inst } = await renewInstallation(this.home, this.inst, client, now, report);
    this.inst = inst;
    this.viewCache = undefined;
    if (outcome.stop) {
      this.counters.stop ??= outcome.stop;
      this.stopChange = { set: outcome.stop };
    } else if (outcome.cleared && this.counters.stop) {
      delete this.counters.stop;
      this.stopChange = { clear: true };
    }
    if (this.stopChange) this.flushInBackground(true);
    if (outcome.usage && (outcome.usage.counted || outcome.usage.duplicate)) {
      this.counters.report_seq = Math.max(this.counters.report_seq, outcome.usage.report_seq);
      this.counters.seq += 1;
      this.flush(true);
    }
    return outcome;
  }

  /** Write this process's counts now (they are also written shortly after each count, and at exit). */
  flush(force = false): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!force && Object.keys(this.pending).length === 0) return;
    const now = this.now();
    if (now.getTime() > Date.parse(this.counters.last_seen)) this.counters.last_seen = now.toISOString();
    let merged: Counters;
    try {
      // Processes sharing the home flush one at a time: a read-merge-write racing another loses its counts.
      const gate = (this.gate ??= acquireGate(licencePaths(this.home).dir, COUNTS_GATE, "LicenceFileUnreadable"));
      merged = throughGate(gate, () => flushCounters(this.home, this.counters, this.pending, now, this.stopChange));
    } catch (err) {
      this.recordFlushFailure(err, now);
      throw err;
    }
    this.pending = {};
    this.stopChange = undefined;
    this.counters = merged;
    this.lastSeenMs = Math.max(this.lastSeenMs ?? 0, Date.parse(merged.last_seen));
    if (this.flushFailure) {
      this.flushFailure = undefined;
      try {
        rmSync(licencePaths(this.home).meterFailure, { force: true });
      } catch {
        // the record is advice for doctor; the counts themselves are written
      }
    }
  }

  /** `flush()` for a timer or the exit hook: a failure is recorded, never thrown into the host. */
  flushInBackground(force = false): void {
    try {
      this.flush(force);
    } catch {
      // recorded by flush(); the next count answers by it
    }
  }

  private recordFlushFailure(err: unknown, now: Date): void {
    const e = err as { code?: unknown; message?: unknown };
    this.flushFailure = { at: now.toISOString(), code: typeof e?.code === "string" ? e.code : "error", message: String(e?.message ?? err).slice(0, 300) };
    try {
      writeJsonAtomic(licencePaths(this.home).meterFailure, { ...this.flushFailure, pid: process.pid });
    } catch {
      // a full disk may not take this either: doctor finds the cause on its own
    }
  }

  /** Wait for the background renewal (if any) and write the counts. */
  async close(): Promise<void> {
    if (this.renewal) {
      // the renewal's connection does not hold the process open (background-fetch.ts); a host
      // awaiting close() does, until the renewal ends (at most its timeout), or its await never settles
      const hold = setInterval(() => undefined, 60_000);
      try {
        await this.renewal;
      } finally {
        clearInterval(hold);
      }
    }
    try {
      this.flush();
    } finally {
      open.delete(this);
      if (this.gate !== undefined) releaseGate(this.gate);
      this.gate = undefined;
    }
  }

  /** The counts' gate (open-gate.ts), held from the first flush until `close`. */
  private gate: string | undefined;

  private scheduleFlush(): void {
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => this.flushInBackground(), 200);
    this.flushTimer.unref?.();
  }

  /** The organisation's own identifiers (own_identifiers bundle), never sent to the service. */
  private ownIdentifiers(): string[] {
    const digest = this.inst.stored.bundles.own_identifiers;
    if (!digest) return [];
    try {
      const doc = JSON.parse(readFileSync(join(licencePaths(this.home).bundles, digest.replace(":", "-")), "utf8")) as { entries?: unknown };
      return Array.isArray(doc.entries) ? doc.entries.filter((e): e is string => typeof e === "string") : [];
    } catch {
      return [];
    }
  }
}

/** For tests: forget which homes this process renewed. */
export function resetRenewals(): void {
  renewedThisProcess.clear();
}
