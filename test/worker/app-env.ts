/** A check-worker app on the Node core and memory stores, for `app.request()` tests. */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../worker/workerd/check/app.js";
import { testStores } from "../helpers/memory-stores.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { workerLicence } from "../helpers/licensed-home.js";
import { approvalIdOf } from "../../worker/portable/engine/index.js";

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

/** A `confirm` of tenant A's session (a refund whose amount the model wrote): the id of its pending record. */
export async function pendingApproval(call: ReturnType<typeof testApp>["call"]): Promise<string> {
  const refunds = readFileSync(join(import.meta.dirname, "../approvals/fixtures/refunds.yaml"), "utf8");
  const json = async (r: Response) => (await r.json()) as any;
  if ((await call("PUT", "/v1/catalogues/refunds", refunds, KEY_A, "application/yaml")).status !== 200) throw new Error("the refunds catalogue was not registered");
  const s = (await json(await call("POST", "/v1/sessions", { catalogue: "refunds", name: "w" }, KEY_A))).session;
  const r = (await json(await call("POST", "/v1/sessions/read", { session: s, text: "refund 120" }, KEY_A))).session;
  const c = await json(await call("POST", "/v1/check", { session: r, tool: "refund_card", args: { order_id: "4411", amount: 120 }, options: { origins: { order_id: "typed", amount: "model" } } }, KEY_A));
  if (c.check?.decision !== "confirm") throw new Error(`the refund was not confirmed: ${JSON.stringify(c)}`);
  return approvalIdOf(c.check.confirmation);
}
