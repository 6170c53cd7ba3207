/**
 * The installation on disk (`<home>/licence/installation.json`) and its verification on load:
 * the licence and the lease must verify under the build's trusted keys and be bound to this
 * installation (lease.ts, in order). A tampered, foreign or replayed lease is refused.
 */
import {
  expectationOf,
  fromBase64Url,
  verifyLicenceAndLease,
  LicenceInvalid,
  LicenceRequired,
  TRUSTED_KEYS,
  type KeySet,
  type LeasePayload,
  type LicencePayload,
  type LicenceState,
  type SignedDocument,
  type Stop,
} from "../../worker/portable/licensing/index.js";
import { licencePaths, readJson, writeJsonAtomic } from "./files.js";

export interface StoredInstallation {
  v: 1;
  installation_id: string;
  licence_id: string;
  service_url: string;
  public_key: string;
  /** The installation's Ed25519 secret key (base64url). Never leaves this machine. */
  secret_key: string;
  activation_id: string;
  activated_at: string;
  offline: boolean;
  licence: SignedDocument<LicencePayload>;
  lease: SignedDocument<LeasePayload>;
  /** AES-256 key bundles are encrypted to (base64url). */
  bundle_key: string;
  /** The bundles adopted at the last renewal, by kind → digest (content in bundles/<digest>). */
  bundles: Record<string, string>;
  /** The service said the licence was revoked or expired, or the plan cancelled. */
  revoked_at?: string;
  released_at?: string;
  last_renewal?: { at: string; ok: boolean; code?: string; message?: string };
}

export interface LoadedInstallation {
  stored: StoredInstallation;
  licence: LicencePayload;
  lease: LeasePayload;
  secretKey: Uint8Array;
  keys: KeySet;
}

export function readInstallation(home?: string): StoredInstallation | undefined {
  return readJson<StoredInstallation>(licencePaths(home).installation);
}

export function writeInstallation(home: string | undefined, inst: StoredInstallation): void {
  writeJsonAtomic(licencePaths(home).installation, inst);
}

/** Load and verify; `LicenceRequired` when there is none (or it was released). */
export async function loadInstallation(home?: string, keys: KeySet = TRUSTED_KEYS): Promise<LoadedInstallation> {
  const stored = readInstallation(home);
  if (stored !== undefined && (typeof stored !== "object" || stored === null || Array.isArray(stored))) {
    const held = Array.isArray(stored) ? "a list" : stored === null ? "null" : `a ${typeof stored}`;
    throw new LicenceInvalid("malformed", `\`${licencePaths(home).installation}\` does not hold an installation (it holds ${held})`);
  }
  if (!stored || stored.released_at || !stored.lease) {
    throw new LicenceRequired(
      stored?.released_at
        ? `this machine released its seat on ${stored.released_at}`
        : stored
          ? `\`${licencePaths(home).installation}\` holds no lease (this machine released its seat)`
          : `no activated licence in \`${licencePaths(home).dir}\``,
      "set QLS_API_KEY and run `stalwart licence activate` (or `stalwart licence install FILE` for an offline answer); for a development licence, `stalwart licence dev`",
    );
  }
  return verifyStored(stored, keys);
}

export async function verifyStored(stored: StoredInstallation, keys: KeySet = TRUSTED_KEYS): Promise<LoadedInstallation> {
  const secretKey = fromBase64Url(stored.secret_key);
  if (!secretKey || secretKey.length !== 32) throw new LicenceInvalid("malformed", "the installation key is not 32 bytes of base64url");
  const v = await verifyLicenceAndLease(stored, keys, expectationOf(stored));
  if (!v.ok) throw new LicenceInvalid(v.reason, v.detail);
  return { stored, licence: v.licence, lease: v.lease, secretKey, keys };
}

/** The state a view is computed from: a stop the service answered lapses the licence, whichever file (installation.json, counters.json or its witness) still holds it. */
export function stateOf(inst: LoadedInstallation, stop?: Stop): LicenceState {
  const state: LicenceState = { licence: inst.licence, lease: inst.lease, bundles: inst.stored.bundles };
  const at = [inst.stored.revoked_at, stop?.at].filter((d): d is string => typeof d === "string" && !Number.isNaN(Date.parse(d)));
  if (at.length) state.revokedAt = at.sort((a, b) => Date.parse(a) - Date.parse(b))[0]!;
  return state;
}

/** A revocation or release this installation heard of and has not had lifted by a signed renewal. */
export function stopOf(inst: LoadedInstallation, stop?: Stop): Stop | undefined {
  if (stop) return stop;
  if (inst.stored.revoked_at) return { at: inst.stored.revoked_at, code: inst.stored.last_renewal?.code ?? "licence_revoked" };
  return undefined;
}
