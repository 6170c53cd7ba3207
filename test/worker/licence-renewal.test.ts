/**
 * The check worker renews its own lease (worker/workerd/check/LICENCE.md, "Renewal"; renewal.ts), through
 * `app.request()` with a fake licence service injected as `fetch` and the clock as `now`: a renewed
 * lease is adopted (and shared through the licence store), an unreachable service leaves the last
 * lease → grace → lapse, a forged or foreign answer is ignored, a revocation lapses the licence,
 * and without the installation key nothing is ever fetched.
 */
import { randomBytes } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../../worker/workerd/check/app.js";
import { testStores } from "../helpers/memory-stores.js";
import { memoryLicenceStore, type LicenceStore } from "../../worker/workerd/check/renewal.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import {
  devSigningKey,
  generateKeyPair,
  signDocument,
  toBase64Url,
  verifyRequest,
  DAY_MS,
  HEADER,
  sha256Hex,
  type LeasePayload,
  type SigningKey,
} from "../../worker/portable/licensing/index.js";
import { tempHome, writeFixtureInstallation } from "../helpers/licence-fixtures.js";
import { startInProcessService, type InProcessService } from "../helpers/licence-miniflare.js";
import { bootstrap } from "../helpers/licence-service-cases.js";
import { activate } from "../../cli/licence/index.js";
import { workerLicenceOf } from "../../worker/workerd/check/licence.js";
import { workerLicenceFor } from "../helpers/licensed-home.js";
import { KEY_A, storeYaml } from "./app-env.js";

const T0 = new Date("2026-03-02T12:00:00Z");
const at = (days: number) => new Date(T0.getTime() + days * DAY_MS);
const SERVICE = "https://licences.example.test";

type Mode = "ok" | "down" | "unknown_key" | "other_installation" | "revoked" | "replay";

/** A licence service that checks the installation's signature and answers per `mode`. */
async function fakeService(fx: Awaited<ReturnType<typeof writeFixtureInstallation>>, clock: () => Date) {
  const signer = await devSigningKey("dev-2026-a");
  const rogue: SigningKey = { kid: "dev-2026-a", secret: toBase64Url((await generateKeyPair()).secretKey) };
  const svc = { mode: "ok" as Mode, calls: 0, seq: fx.lease.seq, badSignatures: 0 };
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    svc.calls++;
    if (svc.mode === "down") throw new TypeError("fetch failed: connect ECONNREFUSED");
    const req = new Request(input, init);
    const url = new URL(req.url);
    const body = await req.text();
    const h = (n: string) => req.headers.get(n) ?? "";
    const check = await verifyRequest(
      { method: req.method, path: url.pathname, licenceId: h(HEADER.licence), installationId: h(HEADER.installation), date: h(HEADER.date), nonce: h(HEADER.nonce), bodySha256: await sha256Hex(body) },
      h(HEADER.signature),
      fx.stored.public_key,
      clock(),
    );
    if (url.origin !== SERVICE || url.pathname !== "/v1/licences/refresh" || !check.ok) {
      svc.badSignatures++;
      return Response.json({ error: { code: "request_signature_invalid" } }, { status: 401 });
    }
    if (svc.mode === "revoked") return Response.json({ error: { code: "licence_revoked", message: "revoked" } }, { status: 403 });
    const now = clock().getTime();
    const seq = svc.mode === "replay" ? fx.lease.seq : ++svc.seq;
    const lease: LeasePayload = {
      ...fx.lease,
      seq,
      issued_at: new Date(now).toISOString(),
      expires_at: new Date(now + 7 * DAY_MS).toISOString(),
      grace_ends: new Date(now + 37 * DAY_MS).toISOString(),
      ...(svc.mode === "other_installation" ? { installation_id: "inst_someone_else" } : {}),
    };
    return Response.json({ licence: fx.stored.licence, lease: await signDocument(lease, svc.mode === "unknown_key" ? rogue : signer), bundle_key: fx.stored.bundle_key, usage: null });
  }) as typeof fetch;
  return { svc, fetch: fetchImpl };
}

async function setup(o: { renew?: boolean; installationKey?: string; store?: LicenceStore } = {}) {
  const fx = await writeFixtureInstallation({ now: T0, onLapse: "reads_only", leaseEndsInDays: 7, graceDays: 30 });
  let clock = T0;
  const { svc, fetch } = await fakeService(fx, () => clock);
  const store = o.store ?? memoryLicenceStore();
  const env: Record<string, string> = {
    STALWART_API_KEYS: `acme:${KEY_A}`,
    STALWART_HISTORY_SECRET: randomBytes(32).toString("hex"),
    STALWART_TEST_CLOCK: "1",
    STALWART_LICENCE: workerLicenceFor(fx.stored),
  };
  if (o.renew !== false) {
    env.STALWART_INSTALLATION_KEY = o.installationKey ?? fx.stored.secret_key;
    env.STALWART_LICENCE_URL = SERVICE + "/";
  }
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException() {}, props: {} };
  const newApp = (f: typeof globalThis.fetch = fetch) => {
    const stores = testStores();
    return createApp({ core: nodeCore, stores: () => stores, now: () => clock, fetch: f, licenceStore: () => store });
  };
  let app = newApp();
  const call = async (method: string, path: string, body?: unknown, type = "application/json") => {
    const r = await app.request(
      path,
      {
        method,
        headers: { authorization: `Bearer ${KEY_A}`, "x-stalwart-now": String(clock.getTime()), ...(body !== undefined ? { "content-type": type } : {}) },
        ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
      },
      env,
      ctx as never,
    );
    return { status: r.status, body: (await r.json()) as any };
  };
  /** One answer on the clock `now`, then the background renewal it started (if any) settles. */
  const answer = async (now: Date) => {
    clock = now;
    const r = await call("PUT", "/v1/catalogues/store", storeYaml, "application/yaml");
    expect(r.status).toBe(200);
    await Promise.all(pending.splice(0));
    return r;
  };
  const health = async () => (await call("GET", "/v1/health")).body.licence;
  return {
    fx,
    svc,
    env,
    store,
    answer,
    health,
    call,
    pending,
    setClock: (d: Date) => void (clock = d),
    /** a fresh isolate (same env and licence store) with its own fetch */
    isolate: (f?: typeof globalThis.fetch) => void (app = newApp(f)),
  };
}

const refund = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "typed" } } };

async function writeDecision(t: Awaited<ReturnType<typeof setup>>, now: Date) {
  t.setClock(now);
  const s = await t.call("POST", "/v1/sessions", { catalogue: "store", name: "billing" });
  const turn = await t.call("POST", "/v1/sessions/read", { session: s.body.session, text: "estorne 40,00 do pedido 4411" });
  const w = await t.call("POST", "/v1/check", { session: turn.body.session, ...refund });
  expect(w.status).toBe(200);
  await Promise.all(t.pending.splice(0));
  return w.body.check;
}

describe("check worker lease renewal", () => {
  // A failed renewal is logged for the operator (console.warn, once per message and isolate):
  // captured here and asserted, not printed into the test run.
  let warnings: string[] = [];
  let warn: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    warnings = [];
    warn = vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(args.map(String).join(" ")));
  });
  afterEach(() => warn.mockRestore());

  it("the first answer renews; the newer lease is adopted, shared with other isolates, renewed again past half its term", async () => {
    const t = await setup();
    await t.answer(at(1));
    expect(t.svc).toMatchObject({ calls: 1, badSignatures: 0 });
    // past the secret's lease end (day 7): still active, on the renewed lease (day 1 + 7)
    t.setClock(at(7.5));
    expect(await t.health()).toMatchObject({ stage: "active", lease_ends: at(8).toISOString() });
    expect((await writeDecision(t, at(7.5))).decision).toBe("confirm");
    // the answers at 7.5 days were past half the renewed term (day 4.5): renewed again
    expect(t.svc.calls).toBe(2);
    // another isolate reads the shared state and answers active with a service that is down
    let down = 0;
    t.isolate(async () => {
      down++;
      throw new TypeError("down");
    });
    t.setClock(at(9));
    expect(await t.health()).toMatchObject({ stage: "active" });
    // its first answer tries; then only past half the lease in use (renewed at day 7.5: day 11),
    // and at most once a minute while the service stays down
    const later = (d: number, ms: number) => new Date(at(d).getTime() + ms);
    await t.answer(at(9));
    expect(down).toBe(1);
    await t.answer(later(9, 120_000));
    expect(down).toBe(1);
    await t.answer(at(11.5));
    expect(down).toBe(2);
    await t.answer(later(11.5, 30_000));
    expect(down).toBe(2);
    await t.answer(later(11.5, 120_000));
    expect(down).toBe(3);
    expect(await t.health()).toMatchObject({ stage: "active" });
    expect(warnings).toEqual(["stalwart-check licence: lease renewal failed: down"]);
  });

  it("an unreachable service leaves the last lease: active, then grace, then lapsed (reads_only); no check fails", async () => {
    const t = await setup();
    t.svc.mode = "down";
    await t.answer(at(1));
    expect(t.svc.calls).toBe(1);
    expect(await t.health()).toMatchObject({ stage: "active", lease_ends: at(7).toISOString() });
    await t.answer(at(10));
    expect(t.svc.calls).toBe(2);
    expect(await t.health()).toMatchObject({ stage: "grace", grace_ends: at(37).toISOString() });
    expect((await writeDecision(t, at(10))).decision).toBe("confirm");
    await t.answer(at(40));
    expect(await t.health()).toMatchObject({ stage: "lapsed", lapsed_at: at(37).toISOString() });
    expect(await writeDecision(t, at(40.01))).toMatchObject({ decision: "refuse", reasons: ["licence_lapsed"] });
    expect(warnings).toEqual(["stalwart-check licence: lease renewal failed: fetch failed: connect ECONNREFUSED"]);
  });

  const forgedReason = { unknown_key: "bad_signature", other_installation: "wrong_installation", replay: "replayed_lease" } as const;
  for (const mode of ["unknown_key", "other_installation", "replay"] as const) {
    it(`a forged renewal answer (${mode}) is ignored: the secret's lease holds, then the grace`, async () => {
      const t = await setup();
      t.svc.mode = mode;
      await t.answer(at(1));
      await t.answer(at(5));
      expect(t.svc.calls).toBe(2);
      await expect(t.store.get()).resolves.toBeUndefined();
      t.setClock(at(10));
      expect(await t.health()).toMatchObject({ stage: "grace", lease_ends: at(7).toISOString() });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^stalwart-check licence: lease renewal failed: the renewed lease does not verify: .*\\(${forgedReason[mode]}\\)$`));
    });
  }

  it("a revocation answer lapses the licence at once, in this isolate and the others", async () => {
    const t = await setup();
    await t.answer(at(1)); // renewed: lease to day 8
    t.svc.mode = "revoked";
    await t.answer(at(5));
    expect(await t.health()).toMatchObject({ stage: "lapsed", lapsed_at: at(5).toISOString() });
    expect(await writeDecision(t, at(5.01))).toMatchObject({ decision: "refuse", reasons: ["licence_lapsed"] });
    t.isolate();
    expect(await t.health()).toMatchObject({ stage: "lapsed", lapsed_at: at(5).toISOString() });
  });

  it("without STALWART_INSTALLATION_KEY (or with another installation's key) nothing is fetched or adopted", async () => {
    const none = await setup({ renew: false });
    await none.answer(at(1));
    await none.answer(at(6));
    expect(none.svc.calls).toBe(0);
    const other = await setup({ installationKey: toBase64Url((await generateKeyPair()).secretKey) });
    await other.answer(at(1));
    await other.answer(at(6));
    expect(other.svc.calls).toBe(0);
    other.setClock(at(10));
    expect(await other.health()).toMatchObject({ stage: "grace" });
    expect(warnings).toEqual(["stalwart-check licence: lease renewal failed: STALWART_INSTALLATION_KEY is not the key of the installation in STALWART_LICENCE"]);
  });

  it("a tampered stored state (another installation's, or edited) is not used", async () => {
    const store = memoryLicenceStore();
    const t = await setup({ store });
    await t.answer(at(1));
    const doc = JSON.parse(store.value!);
    doc.lease.payload.expires_at = at(300).toISOString();
    store.value = JSON.stringify(doc);
    t.isolate();
    t.setClock(at(7.5));
    t.svc.mode = "down";
    // the edited lease does not verify: the secret's lease, in grace
    expect(await t.health()).toMatchObject({ stage: "grace", lease_ends: at(7).toISOString() });
  });
});

describe("check worker lease renewal against the licence service in-process", () => {
  let svc: InProcessService;
  beforeAll(async () => {
    svc = await startInProcessService();
  }, 60_000);
  afterAll(async () => {
    await svc?.dispose();
  });

  it("an activated installation's worker renews over the signed refresh route, then a revocation lapses it", async () => {
    const target = { request: (p: string, i?: RequestInit) => svc.request(p, i), adminSecret: svc.adminSecret };
    const { api_key, licence_id } = await bootstrap(target, "paid");
    const inst = await activate({ home: tempHome("worker-renewal"), serviceUrl: SERVICE, apiKey: api_key, fetch: svc.fetch });
    const env = {
      STALWART_API_KEYS: `acme:${KEY_A}`,
      STALWART_HISTORY_SECRET: randomBytes(32).toString("hex"),
      STALWART_LICENCE: JSON.stringify(workerLicenceOf(inst.stored)),
      STALWART_INSTALLATION_KEY: inst.stored.secret_key,
      STALWART_LICENCE_URL: SERVICE,
    };
    const store = memoryLicenceStore();
    const pending: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void pending.push(p), passThroughOnException() {}, props: {} };
    const stores = testStores();
    const newApp = () => createApp({ core: nodeCore, stores: () => stores, fetch: svc.fetch, licenceStore: () => store });
    const put = async (app: ReturnType<typeof newApp>) => {
      const r = await app.request("/v1/catalogues/store", { method: "PUT", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/yaml" }, body: storeYaml }, env, ctx as never);
      expect(r.status).toBe(200);
      await Promise.all(pending.splice(0));
    };
    await put(newApp());
    expect(JSON.parse(store.value!).lease.payload.seq).toBe(inst.lease.seq + 1);

    const revoked = await svc.request(`/admin/licences/${licence_id}/revoke`, { method: "POST", headers: { authorization: `Bearer ${svc.adminSecret}` } });
    expect(revoked.status).toBeLessThan(300);
    const app = newApp(); // a new isolate: its first answer renews, and hears the revocation
    await put(app);
    const health = (await (await app.request("/v1/health", {}, env)).json()) as any;
    expect(health.licence).toMatchObject({ stage: "lapsed" });
  });
});
