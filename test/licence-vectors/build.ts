/** The vectors' construction (shared by generate.ts and the test that checks the file is current). */
import {
  fromBase64Url,
  licenceView,
  publicEntry,
  signDocument,
  signingInput,
  toBase64Url,
  type LeasePayload,
  type LicencePayload,
  type SignedDocument,
} from "../../worker/portable/licensing/index.js";

/** RFC 8032, section 7.1, TEST 1 secret key: a fixed, published key. */
export const VECTOR_SECRET_HEX = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

const hex = (h: string) => new Uint8Array(h.match(/../g)!.map((b) => parseInt(b, 16)));

export async function buildVectors() {
  const key = { kid: "vector-key-1", secret: toBase64Url(hex(VECTOR_SECRET_HEX)) };
  const pub = await publicEntry(key);
  const installationKey = toBase64Url(hex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")); // RFC 8032 TEST 2 public key
  const licence: LicencePayload = {
    v: 1,
    type: "licence",
    licence_id: "lic_vector000000000000000",
    org_id: "org_vector000000000000000",
    plan: "paid",
    limits: { installations: 5, lease_days: 7, offline_grace_days: 30, offline_activation: false },
    meters: { plan_calls: 1000000, tool_checks: 1000000, answer_calls: 200000 },
    on_licence_lapse: "reads_only",
    issued_at: "2026-01-01T00:00:00.000Z",
    starts_at: "2026-01-01T00:00:00.000Z",
    expires_at: "2027-01-01T00:00:00.000Z",
  };
  const lease: LeasePayload = {
    v: 1,
    type: "lease",
    licence_id: licence.licence_id,
    installation_id: "inst_vector00000000000000",
    installation_key: installationKey,
    activation_id: "act_vector000000",
    seq: 3,
    issued_at: "2026-03-01T00:00:00.000Z",
    expires_at: "2026-03-08T00:00:00.000Z",
    grace_ends: "2026-04-07T00:00:00.000Z",
    offline: false,
    bundles: { vocabulary: "sha256:" + "ab".repeat(32) },
  };
  const signedLicence = await signDocument(licence, key);
  const signedLease = await signDocument(lease, key);
  const tampered: SignedDocument<LeasePayload> = { ...signedLease, payload: { ...lease, expires_at: "2026-03-09T00:00:00.000Z" } };
  const sigBytes = fromBase64Url(signedLease.sig)!;
  sigBytes[0]! ^= 1;
  const badSig = { ...signedLease, sig: toBase64Url(sigBytes) };
  const unknownKid = { ...signedLease, kid: "vector-key-unknown" };
  const expect = { installationId: lease.installation_id, installationKey, licenceId: licence.licence_id, activationId: lease.activation_id, minSeq: 3 };

  const stageCase = (name: string, now: string) => ({
    name,
    licence: signedLicence,
    lease: signedLease,
    now,
    expected: { valid: true, view: licenceView({ licence, lease }, new Date(now)) },
  });
  const decoder = new TextDecoder();
  return {
    description:
      "Stalwart licence and lease test vectors. Signed bytes = UTF-8 of 'stalwart/signed-document/v1\\n' + RFC 8785 canonical JSON of {v, alg, kid, payload}; sig = Ed25519 (RFC 8032) over them, base64url without padding. A verifier checks signature under the key set, then lease binding (installation id and key, licence id, activation id, seq >= min_seq), then computes the stage at `now`.",
    key_set: { keys: [pub] },
    secret_key_hex: VECTOR_SECRET_HEX,
    expectation: expect,
    signing_input: { licence: decoder.decode(signingInput(signedLicence)), lease: decoder.decode(signingInput(signedLease)) },
    cases: [
      stageCase("active", "2026-03-05T12:00:00.000Z"),
      stageCase("grace", "2026-03-20T00:00:00.000Z"),
      stageCase("lapsed", "2026-04-07T00:00:00.000Z"),
      { name: "one byte changed in the payload", licence: signedLicence, lease: tampered, now: "2026-03-05T12:00:00.000Z", expected: { valid: false, reason: "bad_signature" } },
      { name: "one bit changed in the signature", licence: signedLicence, lease: badSig, now: "2026-03-05T12:00:00.000Z", expected: { valid: false, reason: "bad_signature" } },
      { name: "key id not in the set", licence: signedLicence, lease: unknownKid, now: "2026-03-05T12:00:00.000Z", expected: { valid: false, reason: "unknown_key" } },
      { name: "another installation", licence: signedLicence, lease: signedLease, now: "2026-03-05T12:00:00.000Z", expectation: { ...expect, installationId: "inst_other0000000000000000" }, expected: { valid: false, reason: "wrong_installation" } },
      { name: "older activation", licence: signedLicence, lease: signedLease, now: "2026-03-05T12:00:00.000Z", expectation: { ...expect, activationId: "act_newer0000000" }, expected: { valid: false, reason: "stale_activation" } },
      { name: "replayed older lease", licence: signedLicence, lease: signedLease, now: "2026-03-05T12:00:00.000Z", expectation: { ...expect, minSeq: 4 }, expected: { valid: false, reason: "replayed_lease" } },
    ],
  };
}
