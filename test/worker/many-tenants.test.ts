/**
 * One isolate, more tenants than the check core has key slots (outside audit 6, F2): each tenant's
 * engine holds a slot for its history key, and slots were never given back, so the 1,024th tenant
 * an isolate saw (and every later one) was answered 503 wasm_key_slots_full for the isolate's life.
 * The isolate now keeps its most recently used engines and lets the others' slots go; a tenant
 * whose engine was dropped gets a new one, and its saved session still verifies.
 */
import { readFileSync } from "node:fs";
import { createHmac, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/workerd/check/app.js";
import { createCore } from "../../worker/portable/engine/wasm/core.js";
import { testStores } from "../helpers/memory-stores.js";
import { workerLicence } from "../helpers/licensed-home.js";
import { storeYaml } from "./app-env.js";
import { ApprovalKeys } from "../../worker/workerd/check/approvals-store.js";

describe("a check worker isolate serving more tenants than the core has key slots", () => {
  it("serves every tenant, the first ones again at the end, and their sessions still verify", async () => {
    // a core of its own: the shared one's slots belong to the other tests
    const core = createCore(new WebAssembly.Module(readFileSync(new URL("../../build/core.wasm", import.meta.url))));
    const n = core.slotCapacity + 100;
    const keyOf = (i: number) => `key-tenant-${i}-0123456789abcdef`;
    const stores = testStores();
    const app = createApp({ core: () => core, stores: () => stores });
    const env = {
      STALWART_API_KEYS: Array.from({ length: n }, (_, i) => `t${i}:${keyOf(i)}`).join(","),
      STALWART_HISTORY_SECRET: randomBytes(32).toString("hex"),
      STALWART_TEST_CLOCK: "1",
      STALWART_LICENCE: workerLicence,
    };
    const call = (i: number, method: string, path: string, body: unknown, type = "application/json") =>
      app.request(path, { method, headers: { authorization: `Bearer ${keyOf(i)}`, "content-type": type }, body: typeof body === "string" ? body : JSON.stringify(body) }, env);

    const sessions: unknown[] = [];
    const refused: string[] = [];
    for (let i = 0; i < n; i++) {
      if (i < 3) expect((await call(i, "PUT", "/v1/catalogues/store", storeYaml, "application/yaml")).status).toBe(200);
      else await call(i, "PUT", "/v1/catalogues/store", storeYaml, "application/yaml");
      const r = await call(i, "POST", "/v1/sessions", { catalogue: "store", name: "billing" });
      if (r.status !== 201) refused.push(`t${i}: ${r.status} ${await r.text()}`);
      else sessions[i] = ((await r.json()) as { session: unknown }).session;
    }
    expect(refused).toEqual([]);
    // the first tenants' engines were dropped long ago: their saved sessions go on, a read verifies
    for (const i of [0, 1, 2, n - 1]) {
      const r = await call(i, "POST", "/v1/sessions/read", { session: sessions[i], text: "hello" });
      expect(r.status, `t${i}`).toBe(200);
    }
    // and one tenant's session is still not another's
    expect((await call(1, "POST", "/v1/sessions/read", { session: sessions[0], text: "x" })).status).toBe(400);
  }, 300_000);

  it("the approvals' receipt keys: every tenant's, the first again at the end, each the tenant's history key", () => {
    const core = createCore(new WebAssembly.Module(readFileSync(new URL("../../build/core.wasm", import.meta.url))));
    const secret = randomBytes(32);
    const env = { STALWART_HISTORY_SECRET: secret.toString("hex") };
    const keys = new ApprovalKeys(() => core);
    const expected = (i: number) => createHmac("sha256", createHmac("sha256", secret).update(`stalwart-tenant-v1.t${i}`).digest()).update("receipt").digest("hex");
    for (const i of [...Array.from({ length: core.slotCapacity + 100 }, (_, i) => i), 0, 1]) {
      expect(Buffer.from(keys.tenant(env, `t${i}`)("receipt")).toString("hex"), `t${i}`).toBe(expected(i));
    }
  });
});
