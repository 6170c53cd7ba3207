/**
 * The licence Durable Object: one instance per licence (named by the licence id). It holds the
 * licence, the installations holding its seats, the nonces of signed requests, the usage reported
 * and the bundle key. Storage layout: STORAGE.md.
 *
 * Atomicity: every check-then-write (seats, nonces, report sequence) runs inside one
 * `transactionSync` with no `await` in it, so no other request can interleave between the count
 * and the insert. Signatures are verified before (async), documents signed after.
 */
import {
  applyReportRow,
  leasePayload,
  licencePayload,
  type InstallationRow,
  type LicenceRow,
} from "./ledger.js";
import {
  meters,
  fromBase64Url,
  newBundleKey,
  parseSigningKeys,
  sealBundle,
  signDocument,
  toBase64Url,
  verifyRequest,
  PLANS,
  DAY_MS,
  type PlanName,
  type RequestParts,
  type SigningKey,
} from "../../portable/licensing/index.js";
import { verifyOfflineRequest, type OfflineRequest } from "../../portable/licensing/offline.js";
import type { DurableObjectStateLike, Env, SqlStorageLike } from "./env.js";
import { ServiceError } from "./errors.js";
import { serveOps } from "./rpc.js";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS licence (id TEXT PRIMARY KEY, org_id TEXT NOT NULL, plan TEXT NOT NULL, limits TEXT NOT NULL, meters TEXT NOT NULL, on_licence_lapse TEXT NOT NULL, issued_at TEXT NOT NULL, starts_at TEXT NOT NULL, expires_at TEXT NOT NULL, bundle_key TEXT NOT NULL, revoked_at TEXT)`,
  `CREATE TABLE IF NOT EXISTS installations (id TEXT PRIMARY KEY, public_key TEXT NOT NULL, activation_id TEXT NOT NULL, lease_seq INTEGER NOT NULL, status TEXT NOT NULL, offline INTEGER NOT NULL, created_at TEXT NOT NULL, refreshed_at TEXT NOT NULL, lease_expires_at TEXT NOT NULL, grace_ends_at TEXT NOT NULL, released_at TEXT, report_seq INTEGER NOT NULL DEFAULT 0, reported TEXT NOT NULL DEFAULT '{}', anomalies TEXT NOT NULL DEFAULT '[]')`,
  `CREATE INDEX IF NOT EXISTS installations_seat ON installations (status, grace_ends_at)`,
  `CREATE TABLE IF NOT EXISTS nonces (nonce TEXT PRIMARY KEY, installation_id TEXT NOT NULL, seen_at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS usage (month TEXT NOT NULL, meter TEXT NOT NULL, total INTEGER NOT NULL, PRIMARY KEY (month, meter))`,
];

/** Nonces are kept twice the date window: a request older than that is refused for its date. */
const NONCE_TTL_MS = 10 * 60_000;

export interface SignedCall {
  parts: RequestParts;
  signature: string;
}

export class LicenceObject {
  private readonly sql: SqlStorageLike;
  private readonly ctx: DurableObjectStateLike;
  private readonly env: Env;

  constructor(ctx: DurableObjectStateLike, env: Env) {
    this.ctx = ctx;
    this.env = env;
    this.sql = ctx.storage.sql;
    for (const s of SCHEMA) this.sql.exec(s);
  }

  fetch(request: Request): Promise<Response> {
    return serveOps(request, {
      init: (a) => this.init(a),
      revoke: () => this.revoke(),
      status: () => this.status(),
      account: () => this.account(),
      activate: (a) => this.activate(a),
      offline: (a) => this.offline(a),
      refresh: (a) => this.refresh(a),
      release: (a) => this.release(a),
      usage: (a) => this.usage(a),
      bundle: (a) => this.bundle(a),
    });
  }

  // ---- admin ---------------------------------------------------------------------------------

  private init(a: { licence_id: string; org_id: string; plan: PlanName; on_licence_lapse: string; starts_at: string; expires_at: string }) {
    const plan = PLANS[a.plan];
    const now = new Date().toISOString();
    this.ctx.storage.transactionSync(() => {
      if (this.sql.exec(`SELECT id FROM licence`).toArray().length > 0) throw new ServiceError(409, "licence_exists", `licence \`${a.licence_id}\` already exists`);
      this.sql.exec(
        `INSERT INTO licence (id, org_id, plan, limits, meters, on_licence_lapse, issued_at, starts_at, expires_at, bundle_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        a.licence_id, a.org_id, a.plan, JSON.stringify(plan.limits), JSON.stringify(plan.meters), a.on_licence_lapse, now, a.starts_at, a.expires_at, toBase64Url(newBundleKey()),
      );
    });
    return licencePayload(this.licenceRow());
  }

  private revoke() {
    const row = this.licenceRow();
    if (!row.revoked_at) this.sql.exec(`UPDATE licence SET revoked_at = ?`, new Date().toISOString());
    return { revoked_at: this.licenceRow().revoked_at };
  }

  // ---- API-key routes ------------------------------------------------------------------------

  private status() {
    const row = this.licenceRow();
    const now = new Date().toISOString();
    const installations = this.sql
      .exec<InstallationRow>(`SELECT * FROM installations ORDER BY created_at`)
      .toArray()
      .map((i) => ({
        installation_id: i.id,
        status: i.status === "active" && i.grace_ends_at <= now ? "expired" : i.status,
        offline: i.offline === 1,
        created_at: i.created_at,
        refreshed_at: i.refreshed_at,
        lease_expires_at: i.lease_expires_at,
        grace_ends_at: i.grace_ends_at,
        anomalies: JSON.parse(i.anomalies) as string[],
      }));
    return {
      licence: licencePayload(row),
      revoked_at: row.revoked_at,
      seats: { limit: JSON.parse(row.limits).installations as number, held: this.seatsHeld(now) },
      installations,
    };
  }

  private account() {
    const row = this.licenceRow();
    const month = new Date().toISOString().slice(0, 7);
    const used = new Map(this.sql.exec<{ meter: string; total: number }>(`SELECT meter, total FROM usage WHERE month = ?`, month).toArray().map((r) => [r.meter, r.total]));
    const limits = JSON.parse(row.limits);
    const meterLimits = JSON.parse(row.meters) as Record<string, number>;
    const meters: Record<string, { limit: number; used: number }> = {};
    for (const [m, limit] of Object.entries(meterLimits)) meters[m] = { limit, used: used.get(m) ?? 0 };
    return {
      licence_id: row.id,
      org_id: row.org_id,
      plan: row.plan,
      permissions: ["licences:activate", "licences:read", "account:read", ...(limits.offline_activation ? ["licences:offline"] : [])],
      limits,
      month,
      meters,
      expires_at: row.expires_at,
      revoked_at: row.revoked_at,
    };
  }

  private async activate(a: { installation_id: string; public_key: string; bundles: Record<string, string> }) {
    const now = new Date();
    const lic = this.usableLicence(now);
    const result = this.claimSeat(lic, { id: a.installation_id, publicKey: a.public_key, offline: false }, now);
    return this.issue(lic, result, a.bundles, now);
  }

  private async offline(a: { request: OfflineRequest; bundles: Record<string, string> }) {
    const now = new Date();
    const lic = this.usableLicence(now);
    const limits = JSON.parse(lic.limits);
    if (!limits.offline_activation) {
      throw new ServiceError(403, "offline_activation_not_allowed", `plan \`${lic.plan}\` does not allow offline activation (only enterprise does)`, undefined, "activate the machine online with `stalwart licence activate`, or move the licence to the enterprise plan");
    }
    const check = await verifyOfflineRequest(a.request);
    if (!check.ok) throw new ServiceError(400, check.code, check.message, check.pointer);
    const result = this.claimSeat(lic, { id: a.request.installation_id, publicKey: a.request.public_key, offline: true }, now);
    return this.issue(lic, result, a.bundles, now);
  }

  // ---- installation-signed routes -------------------------------------------------------------

  private async refresh(a: SignedCall & { usage?: unknown; bundles: Record<string, string> }) {
    const now = new Date();
    const inst = await this.authenticate(a, now);
    const lic = this.usableLicence(now);
    const report = a.usage === undefined || a.usage === null ? undefined : this.parseReport(a.usage, inst.id);
    let usage: ReturnType<typeof applyReportRow> | undefined;
    const seat = this.ctx.storage.transactionSync(() => {
      const current = this.installation(inst.id)!;
      if (current.status !== "active") throw released(inst.id);
      if (report) usage = applyReportRow(this.sql, current, report);
      return this.renewSeat(lic, current, now);
    });
    const issued = await this.issue(lic, seat, a.bundles, now);
    return { ...issued, usage: usage ?? null };
  }

  private async release(a: SignedCall) {
    const now = new Date();
    const inst = await this.authenticate(a, now);
    if (inst.status === "released") return { released: true, already: true, installation_id: inst.id };
    this.sql.exec(`UPDATE installations SET status = 'released', released_at = ? WHERE id = ?`, now.toISOString(), inst.id);
    return { released: true, already: false, installation_id: inst.id };
  }

  private async usage(a: SignedCall & { report: unknown }) {
    const now = new Date();
    const inst = await this.authenticate(a, now);
    const report = this.parseReport(a.report, inst.id);
    return this.ctx.storage.transactionSync(() => applyReportRow(this.sql, this.installation(inst.id)!, report));
  }

  private async bundle(a: SignedCall & { kind: string; content: string }) {
    const now = new Date();
    const inst = await this.authenticate(a, now);
    if (inst.status !== "active") throw released(inst.id);
    const lic = this.usableLicence(now);
    return sealBundle({ kind: a.kind, content: a.content, licenceId: lic.id, bundleKey: fromBase64Url(lic.bundle_key)!, signer: this.signer(), now });
  }

  // ---- the parts -------------------------------------------------------------------------------

  /** Signature (async), then the nonce (sync: insert-or-refuse), then the installation. */
  private async authenticate(a: SignedCall, now: Date): Promise<InstallationRow> {
    const row = this.licenceRowOrNull();
    if (!row) throw new ServiceError(404, "licence_unknown", `no licence \`${a.parts.licenceId}\``, undefined, "check `licence_id` in the installation, or activate again");
    const inst = this.installation(a.parts.installationId);
    if (!inst) throw new ServiceError(401, "installation_unknown", `licence \`${row.id}\` has no installation \`${a.parts.installationId}\``, undefined, "run `stalwart licence activate` on this machine");
    const v = await verifyRequest(a.parts, a.signature, inst.public_key, now);
    if (!v.ok) {
      const status = v.reason === "malformed" ? 400 : 401;
      throw new ServiceError(status, v.reason === "malformed" ? "malformed_signature" : v.reason, v.detail, undefined, v.reason === "stale_date" ? "check this machine's clock" : undefined);
    }
    this.ctx.storage.transactionSync(() => {
      this.sql.exec(`DELETE FROM nonces WHERE seen_at < ?`, now.getTime() - NONCE_TTL_MS);
      const seen = this.sql.exec(`SELECT nonce FROM nonces WHERE nonce = ?`, a.parts.nonce).toArray();
      if (seen.length > 0) throw new ServiceError(409, "replayed_request", "this signed request (its nonce) was already received", undefined, "send a new request with a new nonce");
      this.sql.exec(`INSERT INTO nonces (nonce, installation_id, seen_at) VALUES (?, ?, ?)`, a.parts.nonce, inst.id, now.getTime());
    });
    return this.installation(inst.id)!;
  }

  private parseReport(x: unknown, installationId: string) {
    const c = meters.checkUsageReport(x);
    if (!c.ok) throw new ServiceError(400, "malformed_usage_report", c.message, `/usage${c.pointer}`);
    if (c.report.installation_id !== installationId) throw new ServiceError(403, "wrong_installation", "a usage report must come from the installation it counts", "/usage/installation_id");
    return c.report;
  }

  private seatsHeld(nowIso: string, except?: string): number {
    return this.sql
      .exec<{ n: number }>(`SELECT COUNT(*) AS n FROM installations WHERE status = 'active' AND grace_ends_at > ? AND id != ?`, nowIso, except ?? "")
      .one().n;
  }

  /**
   * The atomic seat claim: count the seats held and insert (or re-activate) in one synchronous
   * transaction. An installation whose lease and grace both passed no longer holds a seat.
   */
  private claimSeat(lic: LicenceRow, who: { id: string; publicKey: string; offline: boolean }, now: Date): InstallationRow {
    const nowIso = now.toISOString();
    const limits = JSON.parse(lic.limits) as { installations: number };
    return this.ctx.storage.transactionSync(() => {
      const existing = this.installation(who.id);
      if (existing && existing.public_key !== who.publicKey) {
        throw new ServiceError(409, "installation_exists", `installation \`${who.id}\` exists with another key`, "/installation_id", "a new installation needs a new random id");
      }
      const held = this.seatsHeld(nowIso, who.id);
      if (held >= limits.installations) {
        throw new ServiceError(
          409,
          "seat_limit_reached",
          `licence \`${lic.id}\` (plan \`${lic.plan}\`) allows ${limits.installations} installation${limits.installations === 1 ? "" : "s"} holding a lease at once, and all ${held} are held`,
          undefined,
          "run `stalwart licence release` on a machine that no longer needs its seat, or move to a plan with more installations",
        );
      }
      const activation = `act_${toBase64Url(crypto.getRandomValues(new Uint8Array(12)))}`;
      const { expires, grace } = leaseDates(lic, now, who.offline);
      this.sql.exec(
        `INSERT INTO installations (id, public_key, activation_id, lease_seq, status, offline, created_at, refreshed_at, lease_expires_at, grace_ends_at)
         VALUES (?, ?, ?, 1, 'active', ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET activation_id = excluded.activation_id, lease_seq = installations.lease_seq + 1, status = 'active', offline = excluded.offline,
           refreshed_at = excluded.refreshed_at, lease_expires_at = excluded.lease_expires_at, grace_ends_at = excluded.grace_ends_at, released_at = NULL`,
        who.id, who.publicKey, activation, who.offline ? 1 : 0, nowIso, nowIso, expires, grace,
      );
      return this.installation(who.id)!;
    });
  }

  /** Inside a transaction: a renewal; an installation whose grace ended must find a free seat again. */
  private renewSeat(lic: LicenceRow, inst: InstallationRow, now: Date): InstallationRow {
    const nowIso = now.toISOString();
    if (inst.grace_ends_at <= nowIso) {
      const limit = (JSON.parse(lic.limits) as { installations: number }).installations;
      if (this.seatsHeld(nowIso, inst.id) >= limit) {
        throw new ServiceError(409, "seat_limit_reached", `this installation's lease and grace ended and all ${limit} installations of licence \`${lic.id}\` are now held`, undefined, "run `stalwart licence release` on another machine, then `stalwart licence activate` here");
      }
    }
    const { expires, grace } = leaseDates(lic, now, false);
    this.sql.exec(`UPDATE installations SET lease_seq = lease_seq + 1, refreshed_at = ?, lease_expires_at = ?, grace_ends_at = ? WHERE id = ?`, nowIso, expires, grace, inst.id);
    return this.installation(inst.id)!;
  }

  private async issue(lic: LicenceRow, inst: InstallationRow, bundles: Record<string, string>, now: Date) {
    const signer = this.signer();
    const licence = await signDocument(licencePayload(lic), signer);
    const lease = await signDocument(leasePayload(lic, inst, bundles, now), signer);
    return { licence, lease, bundle_key: lic.bundle_key, installation_id: inst.id, bundle_digests: bundles };
  }

  private usableLicence(now: Date): LicenceRow {
    const row = this.licenceRow();
    if (row.revoked_at) {
      throw new ServiceError(403, "licence_revoked", `licence \`${row.id}\` was revoked on ${row.revoked_at}`, undefined, "ask the organisation's administrator for a new licence and API key");
    }
    if (row.expires_at <= now.toISOString()) {
      throw new ServiceError(403, "licence_expired", `licence \`${row.id}\` expired on ${row.expires_at}`, undefined, "renew the licence, then run `stalwart licence activate`");
    }
    return row;
  }

  private licenceRowOrNull(): LicenceRow | undefined {
    return this.sql.exec<LicenceRow>(`SELECT * FROM licence`).toArray()[0];
  }

  private licenceRow(): LicenceRow {
    const row = this.licenceRowOrNull();
    if (!row) throw new ServiceError(404, "licence_unknown", "no such licence");
    return row;
  }

  private installation(id: string): InstallationRow | undefined {
    return this.sql.exec<InstallationRow>(`SELECT * FROM installations WHERE id = ?`, id).toArray()[0];
  }

  private signer(): SigningKey {
    let keys: SigningKey[];
    try {
      keys = parseSigningKeys(this.env.LICENCE_SIGNING_KEYS);
    } catch (err) {
      throw new ServiceError(503, "signing_key_invalid", (err as Error).message);
    }
    const k = keys[0];
    if (!k) throw new ServiceError(503, "signing_key_missing", "the licence service has no signing key", undefined, "set the `LICENCE_SIGNING_KEYS` secret (see worker/portable/licensing/README.md)");
    return k;
  }
}

function released(id: string): ServiceError {
  return new ServiceError(410, "installation_released", `installation \`${id}\` released its seat`, undefined, "run `stalwart licence activate` to take a seat again");
}

/** A lease runs `lease_days`, then the grace `offline_grace_days`; an offline one runs the whole term. */
function leaseDates(lic: LicenceRow, now: Date, offline: boolean): { expires: string; grace: string } {
  const limits = JSON.parse(lic.limits) as { lease_days: number; offline_grace_days: number };
  const end = Date.parse(lic.expires_at);
  if (offline) return { expires: lic.expires_at, grace: lic.expires_at };
  const expires = Math.min(now.getTime() + limits.lease_days * DAY_MS, end);
  const grace = Math.min(expires + limits.offline_grace_days * DAY_MS, end);
  return { expires: new Date(expires).toISOString(), grace: new Date(grace).toISOString() };
}

