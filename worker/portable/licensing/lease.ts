/**
 * Verifying a licence and a lease, in this order, stopping at the first failure:
 *   1. the signature, under a key of the trusted set        (malformed | unknown_key | bad_signature)
 *   2. the payload shape and type                           (wrong_type)
 *   3. the lease is for this licence and this installation  (wrong_licence | wrong_installation)
 *   4. the lease is bound to this installation's key        (wrong_installation_key)
 *   5. the lease is from the current activation             (stale_activation)
 *   6. the lease is not older than the last one accepted    (replayed_lease)
 * Time is not looked at here: state.ts decides active / grace / lapsed with `now` passed in.
 */
import { checkLease, checkLicence, type LeasePayload, type LicencePayload } from "./documents.js";
import type { KeySet } from "./keys.js";
import { verifyDocument, type SignatureFailure } from "./signed.js";

type LeaseFailure =
  | SignatureFailure
  | "wrong_type"
  | "wrong_licence"
  | "wrong_installation"
  | "wrong_installation_key"
  | "stale_activation"
  | "replayed_lease";

export type LeaseCheck<P> = { ok: true; payload: P; kid: string } | { ok: false; reason: LeaseFailure; detail: string };

export interface LeaseExpectation {
  installationId: string;
  /** base64url public key of the installation. */
  installationKey: string;
  licenceId?: string;
  /** The activation the installation is on; a lease from another one is refused. */
  activationId?: string;
  /** The lowest `seq` acceptable: the held lease's seq + 1 (a renewal must answer a newer lease). */
  minSeq?: number;
}

export async function verifyLicence(doc: unknown, keys: KeySet, licenceId?: string): Promise<LeaseCheck<LicencePayload>> {
  const v = await verifyDocument<LicencePayload>(doc, keys);
  if (!v.ok) return v;
  const shape = checkLicence(v.payload);
  if (!shape.ok) return { ok: false, reason: "wrong_type", detail: `licence payload${shape.pointer}: ${shape.message}` };
  if (licenceId !== undefined && v.payload.licence_id !== licenceId) {
    return { ok: false, reason: "wrong_licence", detail: `licence \`${v.payload.licence_id}\` is not \`${licenceId}\`` };
  }
  return v;
}

export async function verifyLease(doc: unknown, keys: KeySet, expect: LeaseExpectation): Promise<LeaseCheck<LeasePayload>> {
  const v = await verifyDocument<LeasePayload>(doc, keys);
  if (!v.ok) return v;
  const lease = v.payload;
  const shape = checkLease(lease);
  if (!shape.ok) return { ok: false, reason: "wrong_type", detail: `lease payload${shape.pointer}: ${shape.message}` };
  if (expect.licenceId !== undefined && lease.licence_id !== expect.licenceId) {
    return { ok: false, reason: "wrong_licence", detail: `lease is for licence \`${lease.licence_id}\`, not \`${expect.licenceId}\`` };
  }
  if (lease.installation_id !== expect.installationId) {
    return { ok: false, reason: "wrong_installation", detail: `lease is for installation \`${lease.installation_id}\`, not this one (\`${expect.installationId}\`)` };
  }
  if (lease.installation_key !== expect.installationKey) {
    return { ok: false, reason: "wrong_installation_key", detail: "lease is bound to another installation key" };
  }
  if (expect.activationId !== undefined && lease.activation_id !== expect.activationId) {
    return { ok: false, reason: "stale_activation", detail: `lease is from activation \`${lease.activation_id}\`, the installation is on \`${expect.activationId}\`` };
  }
  if (expect.minSeq !== undefined && lease.seq < expect.minSeq) {
    return { ok: false, reason: "replayed_lease", detail: `lease #${lease.seq} is not newer than the lease held (#${expect.minSeq - 1})` };
  }
  return v;
}

export type InstallationCheck =
  | { ok: true; licence: LicencePayload; lease: LeasePayload }
  | { ok: false; document: "licence" | "lease"; reason: LeaseFailure; detail: string };

/**
 * What every runtime (the CLI's installation, an activation's or a renewal's answer, the check
 * worker's `STALWART_LICENCE`) verifies before it runs: the licence (for `expect.licenceId` when
 * given), then the lease, for that same licence and bound to this installation.
 */
export async function verifyLicenceAndLease(
  docs: { licence?: unknown; lease?: unknown },
  keys: KeySet,
  expect: LeaseExpectation,
): Promise<InstallationCheck> {
  const licence = await verifyLicence(docs.licence, keys, expect.licenceId);
  if (!licence.ok) return { ok: false, document: "licence", reason: licence.reason, detail: licence.detail };
  const lease = await verifyLease(docs.lease, keys, { ...expect, licenceId: licence.payload.licence_id });
  if (!lease.ok) return { ok: false, document: "lease", reason: lease.reason, detail: lease.detail };
  return { ok: true, licence: licence.payload, lease: lease.payload };
}

/** The fields of an installation record (the CLI's installation.json, the worker's licence) a lease is held to. */
export interface InstallationRecord {
  installation_id: string;
  /** the installation's public key (base64url) */
  public_key: string;
  licence_id?: string;
  activation_id?: unknown;
}

/** What a lease for this installation must match; `minSeq` for a renewal (no replay of an older lease). */
export function expectationOf(inst: InstallationRecord, minSeq?: number): LeaseExpectation {
  return {
    installationId: inst.installation_id,
    installationKey: inst.public_key,
    ...(inst.licence_id !== undefined ? { licenceId: inst.licence_id } : {}),
    ...(typeof inst.activation_id === "string" ? { activationId: inst.activation_id } : {}),
    ...(minSeq !== undefined ? { minSeq } : {}),
  };
}
