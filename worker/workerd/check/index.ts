/**
 * The check worker's Workers entry: the compiled WASM module (Workers only instantiate
 * pre-compiled modules), Durable Object stores, and the Hono app. Runs under `wrangler dev`
 * locally and `wrangler deploy` unchanged. The `/__test/` routes (test-routes.ts) answer only
 * when STALWART_TEST_CLOCK is "1".
 */
import wasm from "../../../build/core.wasm";
import wasmSimd from "../../../build/core-simd.wasm";
import { createPreferredCore, type Core } from "../../portable/engine/index.js";
import { createApp } from "./app.js";
import { durableLicenceStore, durableStores, type DurableEnv } from "./durable-stores.js";
import { sessionObjectName } from "./session-states.js";
import { testRoute } from "./test-routes.js";
import type { TenantConfig } from "./tenants.js";

export { CatalogueObject } from "./catalogue-object.js";
export { CounterObject } from "./counter-object.js";
export { LicenceStateObject } from "./licence-state-object.js";
export { SessionStateObject } from "./session-state-object.js";
export { ApprovalObject } from "./approvals-object.js";
import { durableApprovals, type ApprovalObject } from "./approvals-object.js";

let core: Core | undefined;
const app = createApp({
  // The SIMD build (four links per pass in a run's verification), the scalar one if it fails.
  core: () => (core ??= createPreferredCore([wasmSimd, wasm])),
  stores: (env) => durableStores(env as DurableEnv),
  licenceStore: (env, installationId) => durableLicenceStore(env as DurableEnv, installationId),
  approvals: (env, tenant) => durableApprovals((env as { APPROVALS: DurableObjectNamespace<ApprovalObject> }).APPROVALS, tenant),
});

function testHooks(env: unknown) {
  const e = env as DurableEnv;
  const approvals = (env as { APPROVALS: DurableObjectNamespace<ApprovalObject> }).APPROVALS;
  return {
    stores: durableStores(e),
    counterRows: async (tenant: string) => await e.COUNTERS.get(e.COUNTERS.idFromName(tenant)).rows(),
    approvals: (tenant: string) => durableApprovals(approvals, tenant),
    // the objects a confirm calls: the session's, then the tenant's approvals
    pingSession: async (tenant: string, session: string) => void (await e.SESSIONS.get(e.SESSIONS.idFromName(sessionObjectName(tenant, session))).ping()),
    pingApprovals: async (tenant: string) => void (await approvals.get(approvals.idFromName(tenant)).ping()),
  };
}

export default {
  fetch(req: Request, env: unknown, ctx: ExecutionContext): Response | Promise<Response> {
    return testRoute(req, (env ?? {}) as TenantConfig, testHooks) ?? app.fetch(req, env as Parameters<typeof app.fetch>[1], ctx);
  },
};
