// worker/portable/licensing as plain functions: signatures, leases, the stage machine, requests, meters, bundles.
import { describe, expect, test } from "vitest";
import {
  devSigningKey,
  fromBase64Url,
  generateKeyPair,
  lapseAllows,
  licenceView,
  meters,
  newBundleKey,
  openBundle,
  sealBundle,
  signDocument,
  signRequest,
  toBase64Url,
  verifyDocument,
  verifyLease,
  verifyRequest,
  HEADER,
  TRUSTED_KEYS,
  DAY_MS,
  type LeasePayload,
  type LicencePayload,
  type RequestParts,
} from "../../worker/portable/licensing/index.js";
import { writeFixtureInstallation } from "../helpers/licence-fixtures.js";

const NOW = new Date("2026-06-15T12:00:00.000Z");

describe("what is signed is the engine's one canonical JSON (test/core/jcs.test.ts)", () => {
  test("a payload JSON cannot carry is refused at signing, never signed in some other spelling", async () => {
    const key = await devSigningKey("t1");
    await expect(signDocument({ a: NaN }, key)).rejects.toThrow(/NaN/);
    await expect(signDocument({ a: undefined }, key)).rejects.toThrow(/undefined/);
  });
});

describe("signed documents and leases", () => {
  test("every single-byte change of a signed lease is refused", async () => {
    const f = await writeFixtureInstallation({ now: NOW, leaseEndsInDays: 3 });
    const expect_ = { installationId: f.lease.installation_id, installationKey: f.lease.installation_key, licenceId: f.licence.licence_id, activationId: f.lease.activation_id };
    expect((await verifyLease(f.stored.lease, TRUSTED_KEYS, expect_)).ok).toBe(true);
    const text = JSON.stringify(f.stored.lease);
    let refused = 0;
    let tried = 0;
    // change one character in the payload's dates, ids and in the signature
    for (const needle of [f.lease.expires_at, f.lease.grace_ends, f.lease.installation_id, f.stored.lease.sig]) {
      const at = text.indexOf(needle) + 5;
      const ch = text[at]!;
      const swapped = text.slice(0, at) + (ch === "1" ? "2" : ch === "A" ? "B" : "1") + text.slice(at + 1);
      tried++;
      const r = await verifyLease(JSON.parse(swapped), TRUSTED_KEYS, { ...expect_, installationId: JSON.parse(swapped).payload.installation_id });
      if (!r.ok && (r.reason === "bad_signature" || r.reason === "malformed")) refused++;
    }
    expect(refused).toBe(tried);
  });

  test("a lease signed by an unknown key is refused, one of any trusted key accepted (rotation)", async () => {
    const stranger = { kid: "dev-2026-a", secret: toBase64Url((await generateKeyPair()).secretKey) }; // same kid, other key
    const lease = { v: 1, type: "lease" } as unknown as LeasePayload;
    const forged = await signDocument(lease, stranger);
    expect(await verifyDocument(forged, TRUSTED_KEYS)).toMatchObject({ ok: false, reason: "bad_signature" });
    const unknown = await signDocument(lease, { ...stranger, kid: "someone-else" });
    expect(await verifyDocument(unknown, TRUSTED_KEYS)).toMatchObject({ ok: false, reason: "unknown_key" });
    const rotated = await signDocument(lease, await devSigningKey("dev-2026-b"));
    expect(await verifyDocument(rotated, TRUSTED_KEYS)).toMatchObject({ ok: true, kid: "dev-2026-b" });
  });

  test("a lease for another installation, from an older activation, or older than the last is refused", async () => {
    const f = await writeFixtureInstallation({ now: NOW, leaseEndsInDays: 3, seq: 4 });
    const base = { installationId: f.lease.installation_id, installationKey: f.lease.installation_key, licenceId: f.licence.licence_id, activationId: f.lease.activation_id };
    expect(await verifyLease(f.stored.lease, TRUSTED_KEYS, { ...base, installationId: "inst_another00000000000000" })).toMatchObject({ ok: false, reason: "wrong_installation" });
    expect(await verifyLease(f.stored.lease, TRUSTED_KEYS, { ...base, installationKey: toBase64Url((await generateKeyPair()).publicKey) })).toMatchObject({ ok: false, reason: "wrong_installation_key" });
    expect(await verifyLease(f.stored.lease, TRUSTED_KEYS, { ...base, activationId: "act_newer" })).toMatchObject({ ok: false, reason: "stale_activation" });
    expect(await verifyLease(f.stored.lease, TRUSTED_KEYS, { ...base, minSeq: 5 })).toMatchObject({ ok: false, reason: "replayed_lease" });
    expect(await verifyLease(f.stored.lease, TRUSTED_KEYS, { ...base, minSeq: 4 })).toMatchObject({ ok: true });
  });
});

describe("the licence state machine", () => {
  const licence = (onLapse: "reads_only" | "refuse", expires = "2027-01-01T00:00:00.000Z"): LicencePayload => ({
    v: 1, type: "licence", licence_id: "lic_x", org_id: "org_x", plan: "paid",
    limits: { installations: 5, lease_days: 7, offline_grace_days: 30, offline_activation: false },
    meters: {}, on_licence_lapse: onLapse, issued_at: "2026-01-01T00:00:00.000Z", starts_at: "2026-01-01T00:00:00.000Z", expires_at: expires,
  });
  const lease: LeasePayload = {
    v: 1, type: "lease", licence_id: "lic_x", installation_id: "inst_x", installation_key: "k", activation_id: "a", seq: 1,
    issued_at: "2026-06-01T00:00:00.000Z", expires_at: "2026-06-08T00:00:00.000Z", grace_ends: "2026-07-08T00:00:00.000Z", offline: false, bundles: { vocabulary: "sha256:00" },
  };

  for (const onLapse of ["reads_only", "refuse"] as const) {
    test(`active → grace → lapsed with an injected clock (${onLapse})`, () => {
      const at = (iso: string) => licenceView({ licence: licence(onLapse), lease }, new Date(iso));
      const active = at("2026-06-07T23:59:59.999Z");
      expect(active).toMatchObject({ stage: "active", leaseEnds: lease.expires_at, graceEnds: lease.grace_ends, onLapse, plan: "paid", bundleDigests: { vocabulary: "sha256:00" } });
      expect(active.lapsedAt).toBeUndefined();
      const grace = at("2026-06-08T00:00:00.000Z");
      expect(grace.stage).toBe("grace");
      const lapsed = at("2026-07-08T00:00:00.000Z");
      expect(lapsed).toMatchObject({ stage: "lapsed", lapsedAt: "2026-07-08T00:00:00.000Z" });
      // step 1: turns/reads/writes at each stage
      for (const v of [active, grace]) expect(["turn", "read", "write"].map((op) => lapseAllows(v, op as "turn"))).toEqual([true, true, true]);
      expect(["turn", "read", "write"].map((op) => lapseAllows(lapsed, op as "turn"))).toEqual(onLapse === "reads_only" ? [true, true, false] : [false, false, false]);
    });
  }

  test("nothing refused while licensed is allowed during a lapse (lapseAllows only ever narrows)", () => {
    const views = ["2026-06-05T00:00:00.000Z", "2026-06-20T00:00:00.000Z", "2026-08-01T00:00:00.000Z"].flatMap((t) =>
      (["reads_only", "refuse"] as const).map((o) => licenceView({ licence: licence(o), lease }, new Date(t))),
    );
    for (const v of views) for (const op of ["turn", "read", "write"] as const) {
      if (lapseAllows(v, op)) expect(lapseAllows({ ...v, stage: "active" }, op)).toBe(true);
    }
  });

  test("an expired licence or a revocation lapses at once, naming the date", () => {
    const expired = licenceView({ licence: licence("refuse", "2026-06-05T00:00:00.000Z"), lease }, new Date("2026-06-06T00:00:00.000Z"));
    expect(expired).toMatchObject({ stage: "lapsed", lapsedAt: "2026-06-05T00:00:00.000Z", leaseEnds: "2026-06-05T00:00:00.000Z" });
    const revoked = licenceView({ licence: licence("refuse"), lease, revokedAt: "2026-06-03T10:00:00.000Z" }, new Date("2026-06-03T10:00:01.000Z"));
    expect(revoked).toMatchObject({ stage: "lapsed", lapsedAt: "2026-06-03T10:00:00.000Z" });
  });
});

describe("installation-signed requests", () => {
  test("verify; a changed body, path or stale date is refused", async () => {
    const pair = await generateKeyPair();
    const h = await signRequest({ method: "POST", path: "/v1/usage-reports", body: '{"a":1}', licenceId: "lic_1", installationId: "inst_1", secretKey: pair.secretKey, now: NOW });
    const parts = async (body: string, path = "/v1/usage-reports"): Promise<RequestParts> => ({
      method: "POST", path, licenceId: h[HEADER.licence]!, installationId: h[HEADER.installation]!, date: h[HEADER.date]!, nonce: h[HEADER.nonce]!,
      bodySha256: [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)))].map((b) => b.toString(16).padStart(2, "0")).join(""),
    });
    const pub = toBase64Url(pair.publicKey);
    expect(await verifyRequest(await parts('{"a":1}'), h[HEADER.signature]!, pub, NOW)).toEqual({ ok: true });
    expect(await verifyRequest(await parts('{"a":2}'), h[HEADER.signature]!, pub, NOW)).toMatchObject({ ok: false, reason: "bad_signature" });
    expect(await verifyRequest(await parts('{"a":1}', "/v1/licences/release"), h[HEADER.signature]!, pub, NOW)).toMatchObject({ ok: false, reason: "bad_signature" });
    expect(await verifyRequest(await parts('{"a":1}'), h[HEADER.signature]!, pub, new Date(NOW.getTime() + 6 * 60_000))).toMatchObject({ ok: false, reason: "stale_date" });
  });
});

describe("meters", () => {
  test("past a limit: quota_exhausted naming the meter; nothing counted", () => {
    const c = meters.emptyCounters("inst_1", NOW);
    expect(meters.count(c, "tool_checks", 3, { tool_checks: 3 }, NOW)).toMatchObject({ ok: true, used: 3 });
    expect(meters.count(c, "tool_checks", 1, { tool_checks: 3 }, NOW)).toEqual({ ok: false, code: "quota_exhausted", meter: "tool_checks", limit: 3, used: 3, month: "2026-06" });
    expect(c.months["2026-06"]!.tool_checks).toBe(3);
    // a new month starts from zero
    expect(meters.count(c, "tool_checks", 1, { tool_checks: 3 }, new Date("2026-07-01T00:00:00Z"))).toMatchObject({ ok: true, used: 1 });
  });

  test("a report sent twice counts once; cumulative counts going down are a rollback", () => {
    let last: meters.ReportedState = { report_seq: 0, months: {} };
    const r1 = meters.applyReport(last, { report_seq: 1, months: { "2026-06": { tool_checks: 10 } } });
    expect(r1).toMatchObject({ duplicate: false, delta: { "2026-06": { tool_checks: 10 } }, rolledBack: false });
    last = r1.next;
    expect(meters.applyReport(last, { report_seq: 1, months: { "2026-06": { tool_checks: 10 } } })).toMatchObject({ duplicate: true, delta: {} });
    const r2 = meters.applyReport(last, { report_seq: 2, months: { "2026-06": { tool_checks: 15 } } });
    expect(r2.delta).toEqual({ "2026-06": { tool_checks: 5 } });
    const r3 = meters.applyReport(r2.next, { report_seq: 3, months: { "2026-06": { tool_checks: 12 } } });
    expect(r3).toMatchObject({ rolledBack: true, delta: {} });
  });

  test("a report's months and meters are bounded; the service remembers the newest months only", () => {
    const report = (months: meters.MonthCounts) => ({ v: 1, type: "usage", installation_id: "inst_1", report_seq: 1, created_at: NOW.toISOString(), months, anomalies: [] });
    const monthsOf = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${2000 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}`, { tool_checks: 1 }]));
    expect(meters.checkUsageReport(report(monthsOf(meters.REPORT_MAX_MONTHS))).ok).toBe(true);
    expect(meters.checkUsageReport(report(monthsOf(meters.REPORT_MAX_MONTHS + 1)))).toMatchObject({ ok: false, pointer: "/months", message: expect.stringMatching(/at most 12 months/) });
    const metersOf = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`m${i}`, 1]));
    expect(meters.checkUsageReport(report({ "2026-06": metersOf(meters.REPORT_MAX_METERS) })).ok).toBe(true);
    expect(meters.checkUsageReport(report({ "2026-06": metersOf(meters.REPORT_MAX_METERS + 1) }))).toMatchObject({ ok: false, pointer: "/months/2026-06", message: expect.stringMatching(/at most 64 meters/) });

    // twelve reports of one new month each, after a first of twelve: the oldest months are let go
    let last: meters.ReportedState = { report_seq: 0, months: {} };
    last = meters.applyReport(last, { report_seq: 1, months: monthsOf(12) }).next;
    const later = meters.applyReport(last, { report_seq: 2, months: { "2001-01": { tool_checks: 1 }, "2001-02": { tool_checks: 2 } } });
    expect(later.delta).toEqual({ "2001-01": { tool_checks: 1 }, "2001-02": { tool_checks: 2 } });
    expect(Object.keys(later.next.months)).toHaveLength(12);
    expect(Object.keys(later.next.months).sort()[0]).toBe("2000-03");
  });

  test("a counters file behind its witness is a rollback; the higher counts are kept", () => {
    const c = meters.emptyCounters("inst_1", NOW);
    meters.count(c, "plan_calls", 5, {}, NOW);
    const old = structuredClone(c);
    meters.count(c, "plan_calls", 7, {}, NOW);
    const w = meters.witnessOf(c);
    const r = meters.reconcile(old, w);
    expect(r.rolledBack).toBe(true);
    expect(r.counters.months["2026-06"]!.plan_calls).toBe(12);
    expect(meters.reconcile(c, w).rolledBack).toBe(false);
  });

  test("a clock set back is detected and time does not run backwards", () => {
    const c = meters.emptyCounters("inst_1", NOW);
    expect(meters.observeClock(c, new Date(NOW.getTime() - 60_000))).toEqual({ now: NOW, setBack: false }); // within tolerance
    const r = meters.observeClock(c, new Date(NOW.getTime() - 2 * DAY_MS));
    expect(r).toEqual({ now: NOW, setBack: true });
  });
});

describe("bundles", () => {
  test("seal → open round trip; another key, kind, licence or digest is refused", async () => {
    const key = newBundleKey();
    const signer = await devSigningKey("dev-2026-a");
    const sealed = await sealBundle({ kind: "vocabulary", content: '{"v":1,"entries":["refund"]}', licenceId: "lic_1", bundleKey: key, signer, now: NOW });
    const opened = await openBundle(sealed, { keys: TRUSTED_KEYS, bundleKey: key, licenceId: "lic_1", kind: "vocabulary", expectedDigest: sealed.payload.digest });
    expect(opened.ok && new TextDecoder().decode(opened.content)).toBe('{"v":1,"entries":["refund"]}');
    expect(await openBundle(sealed, { keys: TRUSTED_KEYS, bundleKey: newBundleKey(), licenceId: "lic_1" })).toMatchObject({ ok: false, reason: "undecryptable" });
    expect(await openBundle(sealed, { keys: TRUSTED_KEYS, bundleKey: key, licenceId: "lic_2" })).toMatchObject({ ok: false, reason: "wrong_licence" });
    expect(await openBundle(sealed, { keys: TRUSTED_KEYS, bundleKey: key, licenceId: "lic_1", kind: "language" })).toMatchObject({ ok: false, reason: "wrong_kind" });
    expect(await openBundle(sealed, { keys: TRUSTED_KEYS, bundleKey: key, licenceId: "lic_1", expectedDigest: "sha256:" + "0".repeat(64) })).toMatchObject({ ok: false, reason: "unexpected_digest" });
    // re-signing a changed ciphertext with an untrusted key does not help
    const ct = fromBase64Url(sealed.payload.ciphertext)!;
    ct[0]! ^= 1;
    const forged = await signDocument({ ...sealed.payload, ciphertext: toBase64Url(ct) }, { kid: "x", secret: toBase64Url((await generateKeyPair()).secretKey) });
    expect(await openBundle(forged, { keys: TRUSTED_KEYS, bundleKey: key, licenceId: "lic_1" })).toMatchObject({ ok: false, reason: "unknown_key" });
  });
});
