/**
 * One set of licence-service cases run against every way the service runs: in-process (Hono
 * `app.request()` over Miniflare's Durable Objects) and the real `wrangler dev` worker over HTTP.
 */
import { expect, test } from "vitest";
import {
  generateKeyPair,
  meters,
  openBundle,
  randomBytes,
  signOfflineRequest,
  signRequest,
  toBase64Url,
  verifyLease,
  fromBase64Url,
  TRUSTED_KEYS,
  type LeasePayload,
} from "../../worker/portable/licensing/index.js";

export interface ServiceTarget {
  request(path: string, init?: RequestInit): Promise<Response>;
  adminSecret: string;
}

export interface TestInstallation {
  id: string;
  publicKey: string;
  secretKey: Uint8Array;
}

export async function newInstallation(): Promise<TestInstallation> {
  const pair = await generateKeyPair();
  return { id: `inst_${toBase64Url(randomBytes(16))}`, publicKey: toBase64Url(pair.publicKey), secretKey: pair.secretKey };
}

export async function bootstrap(t: ServiceTarget, plan: "free" | "paid" | "enterprise", onLapse = "reads_only") {
  const res = await t.request("/admin/bootstrap", { method: "POST", headers: { authorization: `Bearer ${t.adminSecret}`, "content-type": "application/json" }, body: JSON.stringify({ org_name: `org ${plan}`, plan, on_licence_lapse: onLapse }) });
  expect(res.status).toBe(201);
  return (await res.json()) as { api_key: string; licence_id: string; org_id: string; expires_at: string };
}

export function withKey(apiKey: string, method: string, body?: unknown): RequestInit {
  return { method, headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
}

export async function signedInit(method: string, path: string, inst: TestInstallation, licenceId: string, body?: unknown, opts: { now?: Date; nonce?: string } = {}): Promise<RequestInit> {
  const text = body === undefined ? "" : JSON.stringify(body);
  const headers = await signRequest({ method, path, body: text, licenceId, installationId: inst.id, secretKey: inst.secretKey, now: opts.now ?? new Date(), ...(opts.nonce ? { nonce: opts.nonce } : {}) });
  return { method, headers: { ...headers, "content-type": "application/json" }, ...(text ? { body: text } : {}) };
}

export async function activateOne(t: ServiceTarget, apiKey: string, inst: TestInstallation): Promise<Response> {
  return t.request("/v1/licences/activate", withKey(apiKey, "POST", { installation_id: inst.id, public_key: inst.publicKey }));
}

async function expectCoded(res: Response, status?: number): Promise<{ code: string; message: string; pointer?: string }> {
  const text = await res.text();
  expect(res.status, text).toBeGreaterThanOrEqual(400);
  expect(res.status, text).toBeLessThan(500);
  if (status !== undefined) expect(res.status, text).toBe(status);
  const body = JSON.parse(text) as { error: { code: string; message: string; pointer?: string } };
  expect(typeof body.error.code).toBe("string");
  expect(body.error.message.length).toBeGreaterThan(0);
  return body.error;
}

/** The seat race: 50 concurrent activations against 5 seats; a release frees one. */
export function seatCases(target: () => ServiceTarget): void {
  test("50 concurrent activations against a 5-seat licence: exactly 5 succeed, 45 are refused naming the limit; release frees a seat", async () => {
    const t = target();
    const { api_key, licence_id } = await bootstrap(t, "paid");
    const installs = await Promise.all(Array.from({ length: 50 }, () => newInstallation()));
    const results = await Promise.all(installs.map((i) => activateOne(t, api_key, i)));
    const ok = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status === 409);
    expect(ok.length).toBe(5);
    expect(refused.length).toBe(45);
    for (const r of refused) {
      const e = (await r.json()) as { error: { code: string; message: string } };
      expect(e.error.code).toBe("seat_limit_reached");
      expect(e.error.message).toMatch(/allows 5 installations/);
    }
    const winners = installs.filter((_, i) => results[i]!.status === 201);
    const status = (await (await t.request("/v1/licences", withKey(api_key, "GET"))).json()) as { seats: { held: number; limit: number }; installations: unknown[] };
    expect(status.seats).toEqual({ limit: 5, held: 5 });

    const rel = await t.request("/v1/licences/release", await signedInit("POST", "/v1/licences/release", winners[0]!, licence_id, {}));
    expect(rel.status).toBe(200);
    const late = await newInstallation();
    expect((await activateOne(t, api_key, late)).status).toBe(201);
    expect((await activateOne(t, api_key, await newInstallation())).status).toBe(409);
    // the released machine is refused a renewal until it activates again
    const refresh = await t.request("/v1/licences/refresh", await signedInit("POST", "/v1/licences/refresh", winners[0]!, licence_id, {}));
    expect((await expectCoded(refresh, 410)).code).toBe("installation_released");
  });
}

/** Malformed requests to every licence route: a 4xx with a coded error, never a 500. */
export function malformedCases(target: () => ServiceTarget): void {
  test("malformed requests to every route: 4xx with a coded error, never 500", async () => {
    const t = target();
    const { api_key, licence_id } = await bootstrap(t, "paid");
    const inst = await newInstallation();
    expect((await activateOne(t, api_key, inst)).status).toBe(201);
    const stranger = await newInstallation();
    const json = (method: string, body: string, key = api_key): RequestInit => ({ method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
    const sig = async (method: string, path: string, body?: unknown, who = inst, lic = licence_id) => signedInit(method, path, who, lic, body);
    const garbleSig = (init: RequestInit): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), "stalwart-signature": "A".repeat(86) } });

    const cases: [string, string, RequestInit | Promise<RequestInit>, number?][] = [
      ["POST", "/v1/licences/activate", { method: "POST" }, 401],
      ["POST", "/v1/licences/activate", withKey("qls_live_not-a-real-key-at-all", "POST", {}), 401],
      ["POST", "/v1/licences/activate", { method: "POST", headers: { authorization: "Basic abc" } }, 401],
      ["POST", "/v1/licences/activate", json("POST", "{not json"), 400],
      ["POST", "/v1/licences/activate", json("POST", "[1,2]"), 400],
      ["POST", "/v1/licences/activate", json("POST", JSON.stringify({ installation_id: "x", public_key: inst.publicKey })), 400],
      ["POST", "/v1/licences/activate", json("POST", JSON.stringify({ installation_id: stranger.id, public_key: "short" })), 400],
      ["POST", "/v1/licences/activate", json("POST", JSON.stringify({ installation_id: inst.id, public_key: stranger.publicKey })), 409],
      ["POST", "/v1/licences/activate", json("POST", "x".repeat(70_000)), 413],
      ["GET", "/v1/licences", { method: "GET" }, 401],
      ["GET", "/v1/licences", withKey("qls_test_AAAAAAAAAAAAAAAAAAAAAAAA", "GET"), 401],
      ["POST", "/v1/licences/keys", { method: "POST" }, 404],
      ["POST", "/v1/licences/refresh", { method: "POST", body: "{}" }, 401],
      ["POST", "/v1/licences/refresh", sig("POST", "/v1/licences/refresh", {}, inst, "lic_bad!"), 400],
      ["POST", "/v1/licences/refresh", sig("POST", "/v1/licences/refresh", {}, stranger), 401],
      ["POST", "/v1/licences/refresh", sig("POST", "/v1/licences/refresh", {}, inst, "lic_AAAAAAAAAAAAAAAAAAAAAA"), 404],
      ["POST", "/v1/licences/refresh", (async () => garbleSig(await sig("POST", "/v1/licences/refresh", {})))(), 401],
      ["POST", "/v1/licences/refresh", (async () => ({ ...(await sig("POST", "/v1/licences/refresh", {})), body: "{}x" }))(), 400],
      ["POST", "/v1/licences/refresh", sig("POST", "/v1/licences/refresh", { usage: { v: 1, type: "usage", months: "no" } }), 400],
      ["POST", "/v1/licences/refresh", signedInit("POST", "/v1/licences/refresh", inst, licence_id, {}, { now: new Date(Date.now() - 3_600_000) }), 401],
      ["POST", "/v1/licences/release", { method: "POST" }, 401],
      ["POST", "/v1/licences/release", (async () => ({ ...(await sig("POST", "/v1/licences/release", {})), headers: { ...((await sig("POST", "/v1/licences/release", {})).headers as Record<string, string>), "stalwart-nonce": "!!" } }))(), 400],
      ["POST", "/v1/licences/offline", json("POST", "{}"), 400],
      ["POST", "/v1/licences/offline", json("POST", JSON.stringify({ request: { v: 1, type: "activation_request" } })), 403],
      ["POST", "/v1/licences/offline", { method: "POST", body: "{}" }, 401],
      ["GET", "/v1/bundles/nonsense", sig("GET", "/v1/bundles/nonsense"), 404],
      ["GET", "/v1/bundles/vocabulary", { method: "GET" }, 401],
      ["GET", "/v1/bundles/vocabulary", sig("GET", "/v1/bundles/language"), 401],
      ["POST", "/v1/usage-reports", sig("POST", "/v1/usage-reports", { v: 1 }), 400],
      ["POST", "/v1/usage-reports", sig("POST", "/v1/usage-reports", { v: 1, type: "usage", installation_id: stranger.id, report_seq: 1, created_at: new Date().toISOString(), months: {}, anomalies: [] }), 403],
      ["POST", "/v1/usage-reports", sig("POST", "/v1/usage-reports", { v: 1, type: "usage", installation_id: inst.id, report_seq: 1, created_at: new Date().toISOString(), months: { "2026-13": { x: 1 } }, anomalies: [] }), 400],
      // more months or meters than any runtime reports: refused, not stored
      ["POST", "/v1/usage-reports", sig("POST", "/v1/usage-reports", { v: 1, type: "usage", installation_id: inst.id, report_seq: 1, created_at: new Date().toISOString(), months: Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`20${10 + i}-01`, { tool_checks: 1 }])), anomalies: [] }), 400],
      ["POST", "/v1/usage-reports", sig("POST", "/v1/usage-reports", { v: 1, type: "usage", installation_id: inst.id, report_seq: 1, created_at: new Date().toISOString(), months: { "2026-06": Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`m${i}`, 1])) }, anomalies: [] }), 400],
      ["POST", "/v1/usage-reports", { method: "POST", body: "[]" }, 401],
      ["GET", "/v1/account", { method: "GET" }, 401],
      ["DELETE", "/v1/account", withKey(api_key, "DELETE"), 404],
      ["GET", "/v1/nothing-here", { method: "GET" }, 404],
      ["POST", "/admin/bootstrap", { method: "POST", body: "{}" }, 401],
      ["POST", "/admin/licences", { method: "POST", headers: { authorization: `Bearer ${t.adminSecret}` }, body: JSON.stringify({ org_id: "org_AAAAAAAAAAAAAAAAAAAAAA", plan: "gold" }) }, 400],
      ["POST", "/admin/licences", { method: "POST", headers: { authorization: `Bearer ${t.adminSecret}` }, body: JSON.stringify({ org_id: "org_AAAAAAAAAAAAAAAAAAAAAA", plan: "paid" }) }, 404],
    ];
    for (const [method, path, init, status] of cases) {
      const res = await t.request(path, await init);
      const e = await expectCoded(res, status).catch((err: Error) => {
        throw new Error(`${method} ${path}: ${err.message}`);
      });
      expect(e.code, `${method} ${path}`).toMatch(/^[a-z_0-9]+$/);
    }
  });
}

/** Replays, usage reports counted once, offline activation, bundles, revocation. */
export function protocolCases(target: () => ServiceTarget): void {
  test("a replayed signed request is refused; a usage report sent twice counts once; a rollback is noted", async () => {
    const t = target();
    const { api_key, licence_id } = await bootstrap(t, "paid");
    const inst = await newInstallation();
    expect((await activateOne(t, api_key, inst)).status).toBe(201);
    const month = new Date().toISOString().slice(0, 7);
    const report = (seq: number, n: number) => ({ v: 1, type: "usage", installation_id: inst.id, report_seq: seq, created_at: new Date().toISOString(), months: { [month]: { tool_checks: n } }, anomalies: [] });

    const init = await signedInit("POST", "/v1/usage-reports", inst, licence_id, report(1, 10));
    expect((await t.request("/v1/usage-reports", init)).status).toBe(200);
    expect((await expectCoded(await t.request("/v1/usage-reports", init), 409)).code).toBe("replayed_request");
    // the same report re-signed (new nonce): acknowledged, not counted again
    const again = await t.request("/v1/usage-reports", await signedInit("POST", "/v1/usage-reports", inst, licence_id, report(1, 10)));
    expect(await again.json()).toMatchObject({ counted: false, duplicate: true });
    const more = await t.request("/v1/usage-reports", await signedInit("POST", "/v1/usage-reports", inst, licence_id, report(2, 14)));
    expect(await more.json()).toMatchObject({ counted: true, delta: { [month]: { tool_checks: 4 } } });
    const account = (await (await t.request("/v1/account", withKey(api_key, "GET"))).json()) as { meters: Record<string, { used: number }>; plan: string };
    expect(account.plan).toBe("paid");
    expect(account.meters.tool_checks!.used).toBe(14);
    // a lower cumulative count: the counters were rolled back; nothing subtracted, the anomaly kept
    const back = await t.request("/v1/usage-reports", await signedInit("POST", "/v1/usage-reports", inst, licence_id, report(3, 9)));
    expect(await back.json()).toMatchObject({ counted: true, rolled_back: true });
    const status = (await (await t.request("/v1/licences", withKey(api_key, "GET"))).json()) as { installations: { anomalies: string[] }[] };
    expect(status.installations[0]!.anomalies).toContain("counters_rolled_back");

    // two installations each reporting the largest exact count: the total stops there, exact
    const big = (who: TestInstallation, seq: number) => ({ v: 1, type: "usage", installation_id: who.id, report_seq: seq, created_at: new Date().toISOString(), months: { [month]: { tool_checks: Number.MAX_SAFE_INTEGER } }, anomalies: [] });
    const second = await newInstallation();
    expect((await activateOne(t, api_key, second)).status).toBe(201);
    expect((await t.request("/v1/usage-reports", await signedInit("POST", "/v1/usage-reports", inst, licence_id, big(inst, 4)))).status).toBe(200);
    expect((await t.request("/v1/usage-reports", await signedInit("POST", "/v1/usage-reports", second, licence_id, big(second, 1)))).status).toBe(200);
    const totals = (await (await t.request("/v1/account", withKey(api_key, "GET"))).json()) as { meters: Record<string, { used: number }> };
    expect(totals.meters.tool_checks!.used).toBe(Number.MAX_SAFE_INTEGER);
  });

  test("refresh renews the lease (seq grows) and a revoked licence is refused at once", async () => {
    const t = target();
    const { api_key, licence_id } = await bootstrap(t, "free");
    const inst = await newInstallation();
    const first = (await (await activateOne(t, api_key, inst)).json()) as { lease: { payload: LeasePayload }; bundle_key: string };
    const r = await t.request("/v1/licences/refresh", await signedInit("POST", "/v1/licences/refresh", inst, licence_id, {}));
    expect(r.status).toBe(200);
    const renewed = (await r.json()) as { lease: unknown };
    const v = await verifyLease(renewed.lease, TRUSTED_KEYS, { installationId: inst.id, installationKey: inst.publicKey, licenceId: licence_id, minSeq: first.lease.payload.seq + 1 });
    expect(v.ok).toBe(true);
    // bundles: signed, encrypted to the licence's bundle key, named by digest
    const b = await t.request("/v1/bundles/vocabulary", await signedInit("GET", "/v1/bundles/vocabulary", inst, licence_id));
    expect(b.status).toBe(200);
    const opened = await openBundle(await b.json(), { keys: TRUSTED_KEYS, bundleKey: fromBase64Url(first.bundle_key)!, licenceId: licence_id, kind: "vocabulary", expectedDigest: first.lease.payload.bundles.vocabulary! });
    expect(opened.ok).toBe(true);
    // free plan: one seat
    expect((await activateOne(t, api_key, await newInstallation())).status).toBe(409);
    const rev = await t.request(`/admin/licences/${licence_id}/revoke`, { method: "POST", headers: { authorization: `Bearer ${t.adminSecret}` } });
    expect(rev.status).toBe(200);
    const after = await t.request("/v1/licences/refresh", await signedInit("POST", "/v1/licences/refresh", inst, licence_id, {}));
    expect((await expectCoded(after, 403)).code).toBe("licence_revoked");
  });

  test("offline activation: answered for enterprise (a lease for the whole term), refused for paid", async () => {
    const t = target();
    const ent = await bootstrap(t, "enterprise");
    const inst = await newInstallation();
    const request = await signOfflineRequest({ installation_id: inst.id, public_key: inst.publicKey, created_at: new Date().toISOString() }, inst.secretKey);
    const res = await t.request("/v1/licences/offline", withKey(ent.api_key, "POST", { request }));
    expect(res.status).toBe(201);
    const answer = (await res.json()) as { type: string; lease: unknown };
    expect(answer.type).toBe("activation_answer");
    const v = await verifyLease(answer.lease, TRUSTED_KEYS, { installationId: inst.id, installationKey: inst.publicKey, licenceId: ent.licence_id });
    expect(v.ok && v.payload.offline).toBe(true);
    expect(v.ok && v.payload.expires_at).toBe(ent.expires_at);
    // a request not signed by its key is refused
    const forged = { ...request, public_key: (await newInstallation()).publicKey };
    expect((await expectCoded(await t.request("/v1/licences/offline", withKey(ent.api_key, "POST", { request: forged })), 400)).code).toBe("bad_signature");

    const paid = await bootstrap(t, "paid");
    const refused = await t.request("/v1/licences/offline", withKey(paid.api_key, "POST", { request }));
    const e = await expectCoded(refused, 403);
    expect(e.code).toBe("offline_activation_not_allowed");
    expect(e.message).toMatch(/paid/);
  });

  test("usage counters and keys: the public key set is published without a key", async () => {
    const t = target();
    const res = await t.request("/v1/licences/keys");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { keys: { kid: string; public_key: string }[] };
    expect(body.keys.map((k) => k.kid)).toContain("dev-2026-a");
    expect(TRUSTED_KEYS.keys.some((k) => k.public_key === body.keys[0]!.public_key)).toBe(true);
    expect(meters.monthOf(new Date())).toMatch(/^\d{4}-\d{2}$/);
  });
}
