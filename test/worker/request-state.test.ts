/**
 * What the check worker keeps per isolate and what it keeps per request: a catalogue text it
 * compiled before is not compiled again (compiled.ts), and each request runs on its own clock
 * (clock.ts, `c.get("now")`) however many run at once.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/workerd/check/app.js";
import { Compiled } from "../../worker/workerd/check/compiled.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import type { Core } from "../../worker/portable/engine/index.js";
import { testStores } from "../helpers/memory-stores.js";
import { workerLicence } from "../helpers/licensed-home.js";
import { KEY_A, storeYaml, testApp } from "./app-env.js";

describe("compiled catalogues", () => {
  it("compile a text once per tenant; another text, or another tenant, compiles", () => {
    let compiles = 0;
    const cache = new Compiled<{ digest: string }>((t) => `h(${t})`);
    const compile = (t: string) => (compiles++, { digest: `d(${t})` });
    const a = cache.fromText("acme", "tools: []", compile);
    expect(cache.fromText("acme", "tools: []", compile)).toBe(a);
    expect(compiles).toBe(1);
    cache.fromText("acme", "tools: [x]", compile);
    cache.fromText("globex", "tools: []", compile);
    expect(compiles).toBe(3);
    expect(cache.get("acme", "d(tools: [])")).toBe(a);
    expect(cache.get("globex", "d(tools: [x])")).toBeUndefined();
  });

  it("PUT /v1/catalogues of a text already compiled does not compile it again", async () => {
    // The catalogue's digest is the only thing the worker hashes with `Core.sha256` on a PUT:
    // a compile shows as calls to it, the text's own hash (sha256Text) does not.
    let digests = 0;
    const real = nodeCore();
    const core: Core = Object.create(real, { sha256: { value: (b: Uint8Array) => (digests++, real.sha256(b)) } });
    const stores = testStores();
    const app = createApp({ core: () => core, stores: () => stores });
    const env = { STALWART_API_KEYS: `acme:${KEY_A}`, STALWART_HISTORY_SECRET: randomBytes(32).toString("hex"), STALWART_LICENCE: workerLicence };
    const put = async (text: string) => {
      const r = await app.request("/v1/catalogues/store", { method: "PUT", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/yaml" }, body: text }, env);
      expect(r.status).toBe(200);
      return ((await r.json()) as { digest: string }).digest;
    };
    const first = await put(storeYaml);
    const afterFirst = digests;
    expect(afterFirst).toBeGreaterThan(0);
    expect(await put(storeYaml)).toBe(first);
    expect(digests).toBe(afterFirst);
    await put(`${storeYaml}\n# changed\n`);
    expect(digests).toBeGreaterThan(afterFirst);
  });
});

describe("the request clock", () => {
  it("is each request's own: 40 turns read at once, each stamped with its own x-stalwart-now", async () => {
    const { app, env, call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const start = (await (await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" })).json()) as { session: unknown };
    const at = (i: number) => Date.UTC(2026, 5, 1) + i * 60_000;
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const r = await app.request("/v1/sessions/read", { method: "POST", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json", "x-stalwart-now": String(at(i)) }, body: JSON.stringify({ session: start.session, text: `turn ${i}` }) }, env);
        return (await r.json()) as { session: { entries: { at: number; text?: string }[] } };
      }),
    );
    answers.forEach((a, i) => expect(a.session.entries.at(-1)).toMatchObject({ at: at(i), text: `turn ${i}` }));
  });

  it("is refused when it is not a number of milliseconds", async () => {
    const { app, env } = testApp();
    const r = await app.request("/v1/catalogues/store", { method: "GET", headers: { authorization: `Bearer ${KEY_A}`, "x-stalwart-now": "yesterday" } }, env);
    expect(r.status).toBe(400);
    expect(((await r.json()) as any).error).toMatchObject({ code: "invalid_request", pointer: "/headers/x-stalwart-now" });
  });

  it("is refused when it is a number no date can hold, or no number at all (not a 500, not 1970)", async () => {
    const { app, env } = testApp();
    for (const value of ["1e20", "8640000000000001", "-8640000000000001", "", " ", "0x10", "1e3", "12.5"]) {
      const r = await app.request("/v1/catalogues/store", { method: "GET", headers: { authorization: `Bearer ${KEY_A}`, "x-stalwart-now": value } }, env);
      expect(r.status, JSON.stringify(value)).toBe(400);
      expect(((await r.json()) as any).error, JSON.stringify(value)).toMatchObject({ code: "invalid_request", pointer: "/headers/x-stalwart-now" });
    }
    // far from today either way is still a clock: the corpus runs so
    for (const value of ["0", "4102444800000", "-2208988800000"]) {
      const r = await app.request("/v1/catalogues/store", { method: "GET", headers: { authorization: `Bearer ${KEY_A}`, "x-stalwart-now": value } }, env);
      expect(r.status, value).not.toBe(400);
    }
  });
});
