/**
 * Installations written straight to a temp home, signed with the dev key the build trusts, with
 * lease dates chosen relative to a given `now`: how the stage tests put a machine in grace or
 * lapse without waiting.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeInstallation, type StoredInstallation } from "../../cli/licence/installation.js";
import {
  devSigningKey,
  generateKeyPair,
  newBundleKey,
  PLANS,
  randomBytes,
  signDocument,
  toBase64Url,
  DAY_MS,
  type LeasePayload,
  type LicencePayload,
  type OnLapse,
  type PlanName,
  type SigningKey,
} from "../../worker/portable/licensing/index.js";

export function tempHome(tag = "licence"): string {
  return mkdtempSync(join(tmpdir(), `stalwart-${tag}-`));
}

export interface FixtureOptions {
  home?: string;
  now: Date;
  plan?: PlanName;
  onLapse?: OnLapse;
  /** Lease end, in days from `now` (negative: in the past). */
  leaseEndsInDays: number;
  graceDays?: number;
  licenceEndsInDays?: number;
  signer?: SigningKey;
  seq?: number;
  meters?: Record<string, number>;
  /** where the installation says its licence service is (default: 127.0.0.1:9, where nothing listens) */
  serviceUrl?: string;
}

export async function writeFixtureInstallation(o: FixtureOptions): Promise<{ home: string; stored: StoredInstallation; licence: LicencePayload; lease: LeasePayload; secretKey: Uint8Array }> {
  const home = o.home ?? tempHome();
  const signer = o.signer ?? (await devSigningKey("dev-2026-a"));
  const plan = PLANS[o.plan ?? "paid"];
  const t = o.now.getTime();
  const pair = await generateKeyPair();
  const licence: LicencePayload = {
    v: 1,
    type: "licence",
    licence_id: `lic_${toBase64Url(randomBytes(16))}`,
    org_id: `org_${toBase64Url(randomBytes(16))}`,
    plan: plan.name,
    limits: plan.limits,
    meters: o.meters ?? plan.meters,
    on_licence_lapse: o.onLapse ?? "reads_only",
    issued_at: new Date(t - 60 * DAY_MS).toISOString(),
    starts_at: new Date(t - 60 * DAY_MS).toISOString(),
    expires_at: new Date(t + (o.licenceEndsInDays ?? 300) * DAY_MS).toISOString(),
  };
  const leaseEnds = t + o.leaseEndsInDays * DAY_MS;
  const lease: LeasePayload = {
    v: 1,
    type: "lease",
    licence_id: licence.licence_id,
    installation_id: `inst_${toBase64Url(randomBytes(16))}`,
    installation_key: toBase64Url(pair.publicKey),
    activation_id: `act_${toBase64Url(randomBytes(12))}`,
    seq: o.seq ?? 1,
    issued_at: new Date(leaseEnds - plan.limits.lease_days * DAY_MS).toISOString(),
    expires_at: new Date(leaseEnds).toISOString(),
    grace_ends: new Date(leaseEnds + (o.graceDays ?? plan.limits.offline_grace_days) * DAY_MS).toISOString(),
    offline: false,
    bundles: {},
  };
  const stored: StoredInstallation = {
    v: 1,
    installation_id: lease.installation_id,
    licence_id: licence.licence_id,
    service_url: o.serviceUrl ?? "http://127.0.0.1:9", // nothing listens: the service is unreachable
    public_key: lease.installation_key,
    secret_key: toBase64Url(pair.secretKey),
    activation_id: lease.activation_id,
    activated_at: lease.issued_at,
    offline: false,
    licence: await signDocument(licence, signer),
    lease: await signDocument(lease, signer),
    bundle_key: toBase64Url(newBundleKey()),
    bundles: {},
  };
  writeInstallation(home, stored);
  return { home, stored, licence, lease, secretKey: pair.secretKey };
}

/** A fetch that never reaches anything (the service is down). */
export const unreachable: typeof fetch = async () => {
  throw new TypeError("fetch failed: connect ECONNREFUSED");
};
