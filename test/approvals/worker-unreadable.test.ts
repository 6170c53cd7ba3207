/**
 * The check worker, a token presented while the tenant's approvals cannot answer: nobody can say
 * whether a person denied the call, so the request fails with the store's error and nothing is
 * allowed (it used to fall through to step 10, which let a denied call's kept token through).
 */
import { describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../worker/workerd/check/app.js";
import { memoryApprovals } from "../../worker/workerd/check/approvals-store.js";
import { testStores } from "../helpers/memory-stores.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { workerLicence } from "../helpers/licensed-home.js";
import { approvalIdOf } from "../../worker/portable/engine/index.js";
import { KEY_A } from "../worker/app-env.js";

const yaml = readFileSync(join(import.meta.dirname, "fixtures/refunds.yaml"), "utf8");
const origins = { order_id: "typed", amount: "model" };

describe("a presented token and approvals that cannot answer (check worker)", () => {
  it("a denied call's kept token is not used when the approvals cannot be read", async () => {
    const inner = memoryApprovals();
    let broken = false;
    const approvals = (env: unknown, tenant: string) => {
      const store = inner(env, tenant);
      return new Proxy(store, { get: (t, k) => (k === "get" && broken ? async () => { throw new Error("the approvals object is unavailable"); } : Reflect.get(t, k)) });
    };
    const stores = testStores();
    const app = createApp({ core: nodeCore, stores: () => stores, approvals });
    const env = { STALWART_API_KEYS: `acme:${KEY_A}`, STALWART_HISTORY_SECRET: randomBytes(32).toString("hex"), STALWART_TEST_CLOCK: "1", STALWART_LICENCE: workerLicence };
    const api = async (method: string, path: string, body?: unknown, type = "application/json") => {
      const r = await app.request(path, { method, headers: { authorization: `Bearer ${KEY_A}`, "content-type": type }, ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}) }, env);
      return { status: r.status, body: (await r.json()) as any };
    };
    expect((await api("PUT", "/v1/catalogues/refunds", yaml, "application/yaml")).status).toBe(200);
    const saved = (await api("POST", "/v1/sessions", { catalogue: "refunds", name: "w" })).body.session;
    const read = await api("POST", "/v1/sessions/read", { session: saved, text: "refund 10" });
    const args = { order_id: "4411", amount: 10 };
    const c = await api("POST", "/v1/check", { session: read.body.session, tool: "refund_card", args, options: { origins } });
    expect(c.body.check?.decision, JSON.stringify(c.body)).toBe("confirm");
    expect((await api("POST", `/v1/approvals/${approvalIdOf(c.body.check.confirmation)}/decide`, { decision: "deny" })).status).toBe(200);
    broken = true;
    const kept = await api("POST", "/v1/check", { session: c.body.session, tool: "refund_card", args, options: { origins, confirmation: c.body.check.confirmation } });
    expect(kept.status).toBeGreaterThanOrEqual(500);
    expect(kept.body.check).toBeUndefined();
    broken = false;
    const later = await api("POST", "/v1/check", { session: c.body.session, tool: "refund_card", args, options: { origins, confirmation: c.body.check.confirmation } });
    expect(later.body.check).toMatchObject({ decision: "confirm", detail: { confirmation: "denied" } });
  });
});
