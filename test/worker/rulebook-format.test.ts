/**
 * A rulebook registered over HTTP is compiled as what it was sent as (`text/csv` is a spreadsheet
 * whatever its first column), and compiled the same way again from the stored text — by a fresh
 * isolate, which has only the store. Records stored before the format was kept still read.
 */
import { describe, expect, it } from "vitest";
import { createApp } from "../../worker/workerd/check/app.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { KEY_A, storeYaml, testApp } from "./app-env.js";
import { nameLast, richCsv as rich } from "../helpers/rulebook-csv.js";

async function json(r: Response) {
  return { status: r.status, body: (await r.json()) as any };
}

describe("rulebooks over HTTP keep their format", () => {
  it("a CSV whose header starts with another column registers as CSV, and a fresh isolate recompiles it so", async () => {
    const csv = nameLast(rich);
    expect(csv.split("\n")[0]).toMatch(/^flow,/);
    const { call, env, stores } = testApp();
    const first = await json(await call("PUT", "/v1/rulebooks/refunds", rich, KEY_A, "text/csv"));
    expect(first.status).toBe(200);
    const put = await json(await call("PUT", "/v1/rulebooks/turned", csv, KEY_A, "text/csv"));
    expect(put).toMatchObject({ status: 200, body: { name: "turned", rules: first.body.rules } });
    expect((await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml")).status).toBe(200);
    // another isolate: the same stores, nothing compiled in memory
    const fresh = createApp({ core: nodeCore, stores: () => stores });
    const s = await fresh.request("/v1/sessions", { method: "POST", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json" }, body: JSON.stringify({ catalogue: "store", name: "t", rulebook: "turned" }) }, env);
    const body = (await s.json()) as any;
    expect(s.status, JSON.stringify(body)).toBe(201);
    expect(body.session.rulebook).toBe(put.body.digest);
  });

  it("a record stored without a format (before it was kept) is read as before: guessed from its text", async () => {
    const { call, env, stores } = testApp();
    expect((await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml")).status).toBe(200);
    const put = await json(await call("PUT", "/v1/rulebooks/refunds", rich, KEY_A, "text/csv"));
    const tenant = stores.catalogues("acme");
    const kept = (await tenant.byName("rulebook:refunds"))!;
    await tenant.put({ name: kept.name, digest: kept.digest, yaml: kept.yaml });
    const old = (await tenant.byDigest(kept.digest))!;
    delete (old as { format?: string }).format;
    const fresh = createApp({ core: nodeCore, stores: () => stores });
    const s = await fresh.request("/v1/sessions", { method: "POST", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json" }, body: JSON.stringify({ catalogue: "store", name: "t", rulebook: "refunds" }) }, env);
    expect(s.status).toBe(201);
    expect(((await s.json()) as any).session.rulebook).toBe(put.body.digest);
  });
});
