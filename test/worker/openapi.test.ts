/**
 * The OpenAPI document the check worker serves: generated from the mounted routes, held equal to
 * them here (every route documented, every documented route exists, the same methods), and clean
 * under a standard linter (Redocly's recommended rules): no error, no warning.
 */
import { describe, expect, it } from "vitest";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { openapiPath, openapiPaths } from "../../worker/workerd/http/openapi.js";
import { storeYaml, testApp } from "./app-env.js";

async function served() {
  const { app, call } = testApp();
  const res = await call("GET", "/v1/openapi.json", undefined, null);
  expect(res.status).toBe(200);
  return { app, doc: (await res.json()) as any };
}

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

describe("the check worker's OpenAPI document", () => {
  it("documents exactly the routes the app has, with the same methods", async () => {
    const { app, doc } = await served();
    const routes = new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method.toLowerCase()} ${openapiPath(r.path).path}`));
    const documented = new Set<string>();
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const m of Object.keys(item).filter((k) => METHODS.includes(k))) documented.add(`${m} ${path}`);
    }
    expect([...documented].sort()).toEqual([...routes].sort());
    expect(openapiPaths(app.routes).undocumented).toEqual([]);
    expect(documented.size).toBeGreaterThanOrEqual(11);
  });

  it("names every operation once, answers 4xx on every one, and says its servers and licence", async () => {
    const { doc } = await served();
    const ops = Object.values<Record<string, any>>(doc.paths).flatMap((item) => METHODS.filter((m) => item[m]).map((m) => item[m]));
    const ids = ops.map((o) => o.operationId);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const o of ops) expect(Object.keys(o.responses).some((k) => /^4(\d\d|XX)$/.test(k)), o.operationId).toBe(true);
    expect(doc.servers.length).toBeGreaterThan(0);
    expect(doc.info.license).toMatchObject({ name: "Apache-2.0" });
  });

  it("declares the status of each error a route answers (the 409s of a carried session)", async () => {
    const { doc } = await served();
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, undefined, "application/yaml");
    const saved = ((await (await call("POST", "/v1/sessions", { catalogue: "store", name: "b" })).json()) as any).session;
    const answered: [string, string, Response][] = [
      // an entry added after the seal: the history does not verify
      ["post", "/v1/report", await call("POST", "/v1/report", { session: { ...saved, entries: [...saved.entries, { kind: "x" }] }, step: 0, outcome: "ran" })],
      // the delta form to an isolate that does not hold the entries left out
      ["post", "/v1/check", await call("POST", "/v1/check", { session: { ...saved, entries: [], since: 5 }, tool: "get_order", args: { order_id: "1" } })],
    ];
    for (const [method, path, res] of answered) {
      const code = ((await res.json()) as any).error?.code;
      expect(res.status, `${method} ${path} ${code}`).toBe(409);
      expect(Object.keys(doc.paths[path][method].responses), `${method} ${path} ${code}`).toContain("409");
    }
  });

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const { doc } = await served();
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc, null, 2), absoluteRef: "openapi.json", config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ""}`)).toEqual([]);
  });

  it("a route added without a description is caught", () => {
    const { app } = testApp();
    app.get("/v1/undocumented", (c) => c.text("x"));
    expect(openapiPaths(app.routes).undocumented).toEqual(["GET /v1/undocumented"]);
  });
});
