/**
 * The check worker's licence (worker/workerd/check/LICENCE.md) through `app.request()`: no licence →
 * every route but health and OpenAPI answers 503 `licence_required`, never an allow; a licence
 * that does not verify → `licence_invalid`; a lapsed licence gates step 1 per request, by
 * `on_licence_lapse`; the SDK against such a worker rejects with `LicenceRequired`. The last test
 * does the same against the real worker under `wrangler dev`, started with no STALWART_LICENCE.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/workerd/check/app.js";
import { testStores } from "../helpers/memory-stores.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { Client } from "../../cli/sdk/index.js";
import { DAY_MS, type OnLapse } from "../../worker/portable/licensing/index.js";
import { writeFixtureInstallation } from "../helpers/licence-fixtures.js";
import { workerLicence, workerLicenceFor } from "../helpers/licensed-home.js";
import { KEY_A, storeYaml } from "./app-env.js";
import { startCheckWorker } from "../helpers/check-worker.js";

const T0 = new Date("2026-03-02T12:00:00Z");

function appWith(licence: string | undefined) {
  const stores = testStores();
  const app = createApp({ core: nodeCore, stores: () => stores });
  const env: Record<string, string> = { STALWART_API_KEYS: `acme:${KEY_A}`, STALWART_HISTORY_SECRET: randomBytes(32).toString("hex"), STALWART_TEST_CLOCK: "1" };
  if (licence !== undefined) env.STALWART_LICENCE = licence;
  const call = async (method: string, path: string, body?: unknown, opts: { now?: Date; type?: string; key?: string | null } = {}) => {
    const key = opts.key === undefined ? KEY_A : opts.key;
    const r = await app.request(
      path,
      {
        method,
        headers: {
          ...(key ? { authorization: `Bearer ${key}` } : {}),
          ...(body !== undefined ? { "content-type": opts.type ?? "application/json" } : {}),
          ...(opts.now ? { "x-stalwart-now": String(opts.now.getTime()) } : {}),
        },
        ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
      },
      env,
    );
    return { status: r.status, body: (await r.json()) as any };
  };
  return { app, env, call };
}

async function lapsedLicence(onLapse: OnLapse) {
  const { stored } = await writeFixtureInstallation({ now: T0, onLapse, leaseEndsInDays: 7, graceDays: 30 });
  return workerLicenceFor(stored);
}

/** Register the store catalogue, start a session, record a turn; returns the session after it. */
async function started(call: ReturnType<typeof appWith>["call"], now: Date, turn = true) {
  expect((await call("PUT", "/v1/catalogues/store", storeYaml, { type: "application/yaml", now })).status).toBe(200);
  const s = await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }, { now });
  expect(s.status).toBe(201);
  if (!turn) return s.body.session;
  const read = await call("POST", "/v1/sessions/read", { session: s.body.session, text: "estorne 40,00 do pedido 4411" }, { now });
  expect(read.status).toBe(200);
  return read.body.session;
}

const refund = { tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "typed" } } };
const getOrder = { tool: "get_order", args: { order_id: "4411" } };

describe("check worker licence", () => {
  it("no licence: health and OpenAPI answer; every other route is 503 licence_required, never an allow", async () => {
    const { call } = appWith(undefined);
    const h = await call("GET", "/v1/health", undefined, { key: null });
    expect(h).toMatchObject({ status: 200, body: { ok: true, licence: { stage: "none" } } });
    expect((await call("GET", "/v1/openapi.json", undefined, { key: null })).status).toBe(200);
    const fake = { v: 1, id: "x", name: "x", language: "en", agent: null, context: {}, catalogue: "0".repeat(64), taint_model_after_untrusted: false, rulebook: null, entries: [], seal: "x", head: "x" };
    for (const [method, path, body, type] of [
      ["PUT", "/v1/catalogues/store", storeYaml, "application/yaml"],
      ["GET", "/v1/catalogues/store"],
      ["PUT", "/v1/rulebooks/r", "rules: []\n", "application/yaml"],
      ["POST", "/v1/sessions", { catalogue: "store", name: "b" }],
      ["POST", "/v1/sessions/read", { session: fake, text: "oi" }],
      ["POST", "/v1/check", { session: fake, ...getOrder }],
      ["POST", "/v1/report", { session: fake, step: 0, outcome: "ran" }],
      ["POST", "/v1/filter", { session: fake, step: 0, result: {} }],
      ["POST", "/v1/plan", { session: fake, kind: "judge", tool: "get_order" }],
    ] as const) {
      const r = await call(method, path, body, { ...(type ? { type } : {}) });
      expect(r.status, `${method} ${path}`).toBe(503);
      expect(r.body.error.code, `${method} ${path}`).toBe("licence_required");
      expect(r.body.error.message).toContain("STALWART_LICENCE");
      expect(r.body.check, "never an answer").toBeUndefined();
    }
    // the key is still checked first: no key is 401, not a hint about the licence
    expect((await call("POST", "/v1/check", {}, { key: null })).status).toBe(401);
  });

  it("a licence that does not verify (one byte changed, not JSON, signed by an unknown key) is 503 licence_invalid", async () => {
    const good = JSON.parse(workerLicence);
    const tampered = structuredClone(good);
    tampered.lease.payload.expires_at = "2099-01-01T00:00:00.000Z";
    const foreign = structuredClone(good);
    foreign.installation_id = "inst_someone_else";
    for (const bad of [JSON.stringify(tampered), "{not json", JSON.stringify({ v: 2 }), JSON.stringify(foreign)]) {
      const { call } = appWith(bad);
      const r = await call("PUT", "/v1/catalogues/store", storeYaml, { type: "application/yaml" });
      expect(r.status).toBe(503);
      expect(r.body.error.code).toBe("licence_invalid");
      expect((await call("GET", "/v1/health", undefined, { key: null })).body.licence.stage).toBe("invalid");
    }
  });

  it("lapsed, reads_only: turns recorded, a read allowed, a write refused licence_lapsed", async () => {
    const { call } = appWith(await lapsedLicence("reads_only"));
    const active = new Date(T0.getTime() + DAY_MS);
    const grace = new Date(T0.getTime() + 10 * DAY_MS);
    const lapsed = new Date(T0.getTime() + 40 * DAY_MS);
    const lapsedAt = new Date(T0.getTime() + 37 * DAY_MS).toISOString();

    for (const [now, expected] of [
      [active, "confirm"],
      [grace, "confirm"],
    ] as const) {
      const session = await started(call, now);
      const w = await call("POST", "/v1/check", { session, ...refund }, { now });
      expect(w.body.check.decision, now.toISOString()).toBe(expected);
    }
    const session = await started(call, lapsed);
    expect(session.entries.at(-1)).toMatchObject({ kind: "turn" });
    const read = await call("POST", "/v1/check", { session, ...getOrder }, { now: lapsed });
    expect(read.body.check).toMatchObject({ decision: "allow", reasons: [] });
    const write = await call("POST", "/v1/check", { session: read.body.session, ...refund }, { now: lapsed });
    expect(write.status).toBe(200);
    expect(write.body.check).toMatchObject({ decision: "refuse", reasons: ["licence_lapsed"], detail: { lapsed_at: lapsedAt } });
  });

  it("lapsed, refuse: every check and every turn refused licence_lapsed with the date the lapse began", async () => {
    const { call } = appWith(await lapsedLicence("refuse"));
    const lapsed = new Date(T0.getTime() + 40 * DAY_MS);
    const session = await started(call, lapsed, false);
    // a person's turn too (licensing.md: every operation; outside audit 21, F3)
    const turn = await call("POST", "/v1/sessions/read", { session, text: "estorne 40,00 do pedido 4411" }, { now: lapsed });
    expect(turn.status).toBe(403);
    expect(turn.body).toMatchObject({ error: { code: "licence_lapsed", message: expect.stringContaining(new Date(T0.getTime() + 37 * DAY_MS).toISOString()) } });
    for (const c of [getOrder, refund]) {
      const r = await call("POST", "/v1/check", { session, ...c }, { now: lapsed });
      expect(r.body.check, c.tool).toMatchObject({ decision: "refuse", reasons: ["licence_lapsed"], detail: { lapsed_at: new Date(T0.getTime() + 37 * DAY_MS).toISOString() } });
    }
  });

  it("the SDK against a worker with no licence rejects with LicenceRequired", async () => {
    const { app, env } = appWith(undefined);
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const r = await app.request(req.url!, { method: req.method!, headers: req.headers as Record<string, string>, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) }, env);
      res.writeHead(r.status, { "content-type": "application/json" });
      res.end(await r.text());
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const port = (server.address() as { port: number }).port;
      const s = new Client({ url: `http://127.0.0.1:${port}`, key: KEY_A }).session("b", { catalogue: storeYaml });
      await expect(s.checkToolCall("get_order", { order_id: "1" })).rejects.toMatchObject({ code: "LicenceRequired" });
    } finally {
      server.close();
    }
  });
});

describe("check worker licence under wrangler dev", () => {
  it("no STALWART_LICENCE: health says `none`, a check is 503 licence_required, the SDK rejects LicenceRequired", async () => {
    const worker = await startCheckWorker(["acme"], { licence: null });
    try {
      const h = await (await fetch(`${worker.url}/v1/health`)).json();
      expect(h).toMatchObject({ ok: true, licence: { stage: "none" } });
      const r = await fetch(`${worker.url}/v1/catalogues/store`, { method: "PUT", headers: { authorization: `Bearer ${worker.keys[0]}`, "content-type": "application/yaml" }, body: storeYaml });
      expect(r.status).toBe(503);
      expect(((await r.json()) as any).error.code).toBe("licence_required");
      const s = new Client({ url: worker.url, key: worker.keys[0]!, timeoutMs: 10_000 }).session("b", { catalogue: storeYaml });
      await expect(s.checkToolCall("get_order", { order_id: "1" })).rejects.toMatchObject({ code: "LicenceRequired" });
    } finally {
      await worker.stop();
    }
  }, 120_000);
});
