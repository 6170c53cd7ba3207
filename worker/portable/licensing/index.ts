/**
 * Licensing, runtime-agnostic (Web-standard APIs only: runs in Node and in workerd).
 * The contract is ../../../shared/spec/licensing.md; README.md beside this file states the
 * integration API the check core uses.
 */
export { licenceView, licenceViewSpan, lapseAllows,  type LicenceView, type LicenceState } from "./state.js";
export type { LicencePayload, LeasePayload,  OnLapse } from "./documents.js";
;
export { signDocument, verifyDocument, signingInput, type SignedDocument,  } from "./signed.js";
export { verifyLease, verifyLicence, verifyLicenceAndLease, expectationOf,      } from "./lease.js";
export {
  generateKeyPair,
  publicKeyOf,
  devSigningKey,
  
  publicEntry,
  parseSigningKeys,
  isDevKeySet,
  type KeySet,
  type PublicKeyEntry,
  type SigningKey,
} from "./keys.js";
export { TRUSTED_KEYS } from "./trusted-keys.js";
export { signRequest, verifyRequest,  HEADER,  type RequestParts } from "./requests.js";
export * as meters from "./meters.js";
export type { Counters, CountersWitness, UsageReport, Anomaly, Stop } from "./meters.js";
export { sealBundle, openBundle, bundleDigest, newBundleKey, containsOwnIdentifier } from "./bundles.js";
export { PLANS, BUNDLE_KINDS, isPlanName, isBundleKind, DAY_MS,  type PlanName,  type BundleKind } from "./plans.js";
export { QuotaExhausted, LicenceInvalid, LicenceServiceError, LicenceRequired, StalwartError } from "./errors.js";
// The engine's byte helpers and SHA-256, re-exported for the licence service and the CLI glue.
export { toBase64Url, fromBase64Url, sha256Hex, randomId, randomBytes } from "../engine/index.js";
export { signOfflineRequest,  type OfflineRequest, type OfflineAnswer } from "./offline.js";
