/**
 * The check worker's Workers entry: the compiled WASM module (Workers only instantiate
 * pre-compiled modules), Durable Object stores, and the Hono app. Runs under `wrangler dev`
 * locally and `wrangler deploy` unchanged.
 */
import wasm from "../../../build/core.wasm";
import { createCore, type Core } from "../../portable/engine/index.js";
import { createApp } from "./app.js";
import { durableLicenceStore, durableStores, type DurableEnv } from "./durable-stores.js";

export { CatalogueObject } from "./catalogue-object.js";
export { CounterObject } from "./counter-object.js";
export { LicenceStateObject } from "./licence-state-object.js";

let core: Core | undefined;
const app = createApp({
  core: () => (core ??= createCore(wasm)),
  stores: (env) => durableStores(env as DurableEnv),
  licenceStore: (env, installationId) => durableLicenceStore(env as DurableEnv, installationId),
});

export default app;
