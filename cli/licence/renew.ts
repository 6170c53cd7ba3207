/**
 * One renewal (licensing.md, "Activation, lease, grace, release"): refresh the lease, report the
 * counts, fetch the bundles whose digest changed. Any failure leaves the last lease as it is (it
 * holds through its term, then the grace), except an answer that the licence was revoked or
 * expired, which stops the runtime at once.
 */
import { join } from "node:path";
import {
  expectationOf,
  fromBase64Url,
  openBundle,
  verifyLicenceAndLease,
  LicenceServiceError,
  type LeasePayload,
  type LicencePayload,
  type SignedDocument,
  type Stop,
  type UsageReport,
} from "../../worker/portable/licensing/index.js";
import { licencePaths, writeFileAtomic } from "./files.js";
import { writeInstallation, type LoadedInstallation } from "./installation.js";
import type { ServiceClient } from "./service.js";

export interface RenewOutcome {
  ok: boolean;
  code?: string;
  message?: string;
  /** Kinds whose new bundle was adopted. */
  adopted: string[];
  usage?: { counted: boolean; duplicate: boolean; rolled_back: boolean; report_seq: number } | null | undefined;
  /** The service answered a stop: the licence lapses from `at` until a signed renewal succeeds. */
  stop?: Stop;
  /** A signed lease was adopted: any stop heard before is lifted. */
  cleared?: boolean;
}

interface RefreshAnswer {
  licence: SignedDocument<LicencePayload>;
  lease: SignedDocument<LeasePayload>;
  bundle_key: string;
  usage: RenewOutcome["usage"];
}

/**
 * The service's "stop now" answers. They are not signed, so what answers on the service URL can
 * say them: each lapses the licence at once (a stop is believed), and the next renewal a signed
 * lease answers lifts it (licensing.md: a renewal is what tells the runtime the licence runs).
 */
const STOPPING = new Set(["licence_revoked", "licence_expired", "installation_released"]);
/** Bundles read at a renewal (`bot` is read at its own pace, not here). */
const RENEWAL_KINDS = new Set(["vocabulary", "prompt_pack", "reply_rules", "outcome_phrasings", "own_identifiers", "language"]);

export async function renewInstallation(
  home: string | undefined,
  inst: LoadedInstallation,
  client: ServiceClient,
  now: Date,
  report: UsageReport | undefined,
): Promise<{ outcome: RenewOutcome; inst: LoadedInstallation }> {
  const who = { licenceId: inst.stored.licence_id, installationId: inst.stored.installation_id, secretKey: inst.secretKey };
  const stored = { ...inst.stored };
  let answer: RefreshAnswer;
  try {
    answer = await client.signed<RefreshAnswer>("POST", "/v1/licences/refresh", who, now, report ? { usage: report } : {});
  } catch (err) {
    const e = err as LicenceServiceError;
    const code = e.code ?? "renewal_failed";
    const message = typeof e?.message === "string" ? e.message : String(err);
    stored.last_renewal = { at: now.toISOString(), ok: false, code, message };
    const outcome: RenewOutcome = { ok: false, code, message, adopted: [] };
    if (STOPPING.has(code)) {
      stored.revoked_at ??= now.toISOString();
      outcome.stop = { at: stored.revoked_at, code };
    }
    writeInstallation(home, stored);
    return { outcome, inst: { ...inst, stored } };
  }

  const v = await verifyLicenceAndLease(answer, inst.keys, expectationOf(stored, inst.lease.seq + 1));
  if (!v.ok) {
    stored.last_renewal = { at: now.toISOString(), ok: false, code: `lease_${v.reason}`, message: v.detail };
    writeInstallation(home, stored);
    return { outcome: { ok: false, code: `lease_${v.reason}`, message: v.detail, adopted: [], usage: answer.usage }, inst: { ...inst, stored } };
  }

  stored.licence = answer.licence;
  stored.lease = answer.lease;
  stored.bundle_key = answer.bundle_key;
  const next: LoadedInstallation = { ...inst, stored, licence: v.licence, lease: v.lease };
  const adopted = await fetchBundles(home, next, client, now);
  stored.last_renewal = { at: now.toISOString(), ok: true };
  delete stored.revoked_at; // the service signed a new lease: the licence runs
  writeInstallation(home, stored);
  return { outcome: { ok: true, adopted, usage: answer.usage, cleared: true }, inst: next };
}

/** Fetch and adopt each bundle the lease names whose digest changed; a failed one keeps the old. */
export async function fetchBundles(home: string | undefined, inst: LoadedInstallation, client: ServiceClient, now: Date): Promise<string[]> {
  const adopted: string[] = [];
  const key = fromBase64Url(inst.stored.bundle_key);
  if (!key) return adopted;
  const bundles = { ...inst.stored.bundles };
  for (const [kind, digest] of Object.entries(inst.lease.bundles)) {
    if (!RENEWAL_KINDS.has(kind) || bundles[kind] === digest) continue;
    try {
      const doc = await client.signed<unknown>("GET", `/v1/bundles/${kind}`, { licenceId: inst.stored.licence_id, installationId: inst.stored.installation_id, secretKey: inst.secretKey }, now);
      const opened = await openBundle(doc, { keys: inst.keys, bundleKey: key, licenceId: inst.stored.licence_id, kind, expectedDigest: digest });
      if (!opened.ok) continue;
      // Processes sharing the home may renew at once: each writes the file whole, then renames it.
      writeFileAtomic(join(licencePaths(home).bundles, `${digest.replace(":", "-")}`), opened.content);
      bundles[kind] = digest;
      adopted.push(kind);
    } catch {
      // keep the bundle adopted before; the next renewal tries again
    }
  }
  inst.stored.bundles = bundles;
  return adopted;
}
