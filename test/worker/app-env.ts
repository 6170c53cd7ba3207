/** A check-worker app on the Node core and memory stores, for `app.request()` tests. */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../worker/workerd/check/app.js";
import { testStores } from "../helpers/memory-stores.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { workerLicence } from "../helpers/licensed-home.js";

export const KEY_A = "key-acme-0123456789abcdef";
export const KEY_B = "key-globex-0123456789abcdef";
export const storeYaml = readFileSync(join(import.meta.dirname, "../../examples/store/agent.yaml"), "utf8");

export function testApp() {
  const stores = testStores();
  const app = createApp({ core: nodeCore, stores: () => stores });
  const env = { STALWART_API_KEYS: `acme:${KEY_A},globex:${KEY_B}`, STALWART_HISTORY_SECRET: randomBytes(32).toString("hex"), STALWART_TEST_CLOCK: "1", STALWART_LICENCE: workerLicence };
  const call = (method: string, path: string, body?: unknown, key: string | null = KEY_A, type = "application/json") =>
    app.request(path, { method, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body !== undefined ? { "content-type": type } : {}) }, ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}) }, env);
  return { app, env, call, stores };
}
