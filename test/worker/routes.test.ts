/** Check-worker routes through `app.request()`: auth, tenancy, bad input, the session cycle. */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KEY_A, KEY_B, storeYaml, testApp } from "./app-env.js";

async function json(r: Response) {
  return { status: r.status, body: (await r.json()) as any };
}

describe("check worker routes", () => {
  it("serves health and the OpenAPI document without a key", async () => {
    const { call } = testApp();
    const h = await json(await call("GET", "/v1/health", undefined, null));
    expect(h).toMatchObject({ status: 200, body: { ok: true, wasm: "ok" } });
    const o = await json(await call("GET", "/v1/openapi.json", undefined, null));
    expect(o.status).toBe(200);
    expect(o.body.openapi).toBe("3.1.0");
    for (const p of ["/v1/health", "/v1/catalogues/{name}", "/v1/rulebooks/{name}", "/v1/sessions", "/v1/sessions/read", "/v1/check", "/v1/report", "/v1/filter", "/v1/plan"]) expect(Object.keys(o.body.paths)).toContain(p);
  });

  it("needs a valid bearer key everywhere else", async () => {
    const { call } = testApp();
    expect((await json(await call("PUT", "/v1/catalogues/store", storeYaml, null, "application/yaml"))).body.error.code).toBe("unauthorized");
    expect((await call("PUT", "/v1/catalogues/store", storeYaml, "wrong-key-0123456789", "application/yaml")).status).toBe(401);
    expect((await call("POST", "/v1/check", {}, "Basic abc")).status).toBe(401);
  });

  it("registers a catalogue and reports lint errors with file:line:column", async () => {
    const { call } = testApp();
    const ok = await json(await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml"));
    expect(ok.status).toBe(200);
    expect(ok.body.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(ok.body.tools).toContain("refund_card");
    const bad = await json(await call("PUT", "/v1/catalogues/bad", "tools:\n  - name: x\n    writez: true\n", KEY_A, "application/yaml"));
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("catalogue_invalid");
    expect(bad.body.error.problems[0]).toMatchObject({ file: "bad.yaml", line: 3, column: 5 });
    // the message names the first problem, a rulebook's as a catalogue's (it used to say "the catalogue does not load" for both)
    expect(bad.body.error.message).toBe("bad.yaml:3:5: tool `x`: unknown word `writez`");
    const badRules = await json(await call("PUT", "/v1/rulebooks/r", "rules: 5\n", KEY_A, "application/yaml"));
    expect(badRules.body.error).toMatchObject({ code: "catalogue_invalid", message: "r:1:8: `rules` must be a list, not a number `5`" });
    const name = await json(await call("PUT", "/v1/catalogues/__proto__", storeYaml, KEY_A, "application/yaml"));
    expect(name.body.error).toMatchObject({ code: "invalid_request", message: "a catalogue name is 1–64 letters, digits, `.`, `_` or `-`, starting with a letter or digit" });
    expect((await call("PUT", "/v1/catalogues/bad name", storeYaml, KEY_A, "application/yaml")).status).toBe(400);
  });

  it("takes a catalogue's YAML under every type the OpenAPI lists; a text that is not UTF-8 is invalid_request, not malformed JSON", async () => {
    const { call, app, env } = testApp();
    const doc = (await json(await call("GET", "/v1/openapi.json", undefined, null))).body;
    const types = Object.keys(doc.paths["/v1/catalogues/{name}"].put.requestBody.content);
    expect(types).toEqual(expect.arrayContaining(["application/yaml", "text/plain", "application/json"]));
    for (const t of types) expect((await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, t)).status, t).toBe(200);
    expect((await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "text/html")).status).toBe(415);
    const latin1 = await app.request("/v1/catalogues/l1", { method: "PUT", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/yaml" }, body: new Uint8Array([0x74, 0x6f, 0x6f, 0x6c, 0x73, 0x3a, 0x20, 0xe9, 0x0a]) }, env);
    expect(await latin1.json()).toEqual({ error: { code: "invalid_request", message: "the catalogue is not UTF-8 text", pointer: "" } });
  });

  it("reads back catalogues only: a rulebook's stored name is not a catalogue name", async () => {
    const { call } = testApp();
    const rulebook = readFileSync(join(import.meta.dirname, "../fixtures/rulebooks/rich.yaml"), "utf8");
    expect((await call("PUT", "/v1/rulebooks/rx", rulebook, KEY_A, "application/yaml")).status).toBe(200);
    for (const name of ["rulebook%3Arx", "rulebook:rx"]) {
      const got = await json(await call("GET", `/v1/catalogues/${name}`));
      expect({ status: got.status, code: got.body.error?.code }, name).toEqual({ status: 400, code: "invalid_request" });
    }
    expect((await call("GET", "/v1/catalogues/bad%20name")).status).toBe(400);
  });

  it("answers bad input with a coded 4xx, never a 500", async () => {
    const { call, app, env } = testApp();
    const cases: [Response, number, string][] = [
      [await call("POST", "/v1/check", "{not json", KEY_A), 400, "malformed_json"],
      [await call("POST", "/v1/check", "[]", KEY_A), 400, "invalid_request"],
      [await call("POST", "/v1/check", { tool: "x" }, KEY_A, "text/plain"), 415, "unsupported_media_type"],
      [await call("POST", "/v1/check", { tool: "x", args: {}, session: { v: 1 } }, KEY_A), 400, "session_invalid"],
      [await call("POST", "/v1/check", { tool: 1, args: {} }, KEY_A), 400, "invalid_request"],
      [await call("GET", "/v1/nothing-here", undefined, KEY_A), 404, "not_found"],
      [await call("GET", "/elsewhere", undefined, null), 404, "not_found"],
      [await app.request("/v1/check", { method: "POST", headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json" }, body: JSON.stringify({ pad: "x".repeat((1 << 20) + 10) }) }, env), 413, "body_too_large"],
    ];
    for (const [r, status, code] of cases) {
      const b = await json(r);
      expect({ status: b.status, code: b.body.error?.code }).toEqual({ status, code });
      expect(typeof b.body.error.message).toBe("string");
    }
  });

  it("runs a session: read, check, confirm, approve, report", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    let s = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }))).body.session;
    s = (await json(await call("POST", "/v1/sessions/read", { session: s, text: "estorne 40,00 do pedido 4411" }))).body.session;
    let r = (await json(await call("POST", "/v1/check", { session: s, tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "typed" } } }))).body;
    expect(r.check).toMatchObject({ decision: "confirm", reasons: ["write"], step: 1 });
    r = (await json(await call("POST", "/v1/check", { session: r.session, tool: "refund_card", args: { order_id: "4411", amount: 40 }, options: { origins: { order_id: "typed", amount: "typed" }, confirmation: r.check.confirmation } }))).body;
    expect(r.check).toMatchObject({ decision: "allow", reasons: ["confirmed"], step: 2 });
    const rep = await json(await call("POST", "/v1/report", { session: r.session, step: 2, outcome: "ran", result: { refund_id: "rf-1" } }));
    expect(rep.body.step).toBe(3);
    expect(rep.body.session.entries[3]).toMatchObject({ kind: "report", of: 2, outcome: "ran", result: { refund_id: "rf-1" } });
    const badStep = await json(await call("POST", "/v1/report", { session: rep.body.session, step: 99, outcome: "ran" }));
    expect(badStep.status).toBe(400);
  });

  it("plans an undo only from arguments given as an object: anything else is a 400 naming /args, not an undo bound to nothing", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    const s = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }))).body.session;
    for (const args of [[1], "4411", 7, null]) {
      const r = await json(await call("POST", "/v1/plan", { session: s, kind: "undo", tool: "refund_card", args, result: { refund_id: "rf-1" } }));
      expect({ status: r.status, code: r.body.error?.code, pointer: r.body.error?.pointer }, JSON.stringify(args)).toEqual({ status: 400, code: "invalid_request", pointer: "/args" });
    }
    const ok = await json(await call("POST", "/v1/plan", { session: s, kind: "undo", tool: "refund_card", args: { order_id: "4411", amount: 40 }, result: { refund_id: "rf-1" } }));
    expect(ok.status).toBe(200);
    // judging needs an `outcome` to judge by: a read, or a tool the catalogue does not hold, is no "done"
    for (const tool of ["get_order", "no_such_tool", "__proto__"]) {
      const j = await json(await call("POST", "/v1/plan", { session: s, kind: "judge", tool, result: {} }));
      expect({ status: j.status, code: j.body.error?.code, pointer: j.body.error?.pointer }, tool).toEqual({ status: 400, code: "invalid_request", pointer: "/tool" });
    }
    // an undo or follow plan of a tool the catalogue does not hold is the same 400, not `{plan: null}`
    for (const [kind, tool] of [["undo", "no_such_tool"], ["undo", "__proto__"], ["follow", "__proto__"]]) {
      const p = await json(await call("POST", "/v1/plan", { session: s, kind, tool, step: 0, args: {}, result: {} }));
      expect({ status: p.status, code: p.body.error?.code, pointer: p.body.error?.pointer }, `${kind} ${tool}`).toEqual({ status: 400, code: "invalid_request", pointer: "/tool" });
    }
    // a tool it holds that declares no undo is still "nothing to plan"
    expect((await json(await call("POST", "/v1/plan", { session: s, kind: "undo", tool: "get_order", args: {}, result: {} }))).body).toEqual({ plan: null });
  });

  it("keeps tenants apart: catalogues, and histories MAC'd for another tenant", async () => {
    const { call } = testApp();
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml");
    expect((await call("GET", "/v1/catalogues/store", undefined, KEY_B)).status).toBe(404);
    expect((await call("POST", "/v1/sessions", { catalogue: "store", name: "x" }, KEY_B)).status).toBe(404);
    let a = (await json(await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }, KEY_A))).body.session;
    a = (await json(await call("POST", "/v1/check", { session: a, tool: "get_order", args: { order_id: "1" } }, KEY_A))).body.session;
    // B holds no catalogue of that digest: A's session is still session_invalid, as documented
    // (it was 404 catalogue_not_found: outside audit 14, F6)…
    const none = await json(await call("POST", "/v1/check", { session: a, tool: "get_order", args: { order_id: "1" } }, KEY_B));
    expect({ status: none.status, code: none.body.error?.code }).toEqual({ status: 400, code: "session_invalid" });
    // …and with the same catalogue registered, A's session does not verify under B's key: 400, as
    // on every route (adopted as a new history, a header changed by hand would come back sealed)
    await call("PUT", "/v1/catalogues/store", storeYaml, KEY_B, "application/yaml");
    const r = await json(await call("POST", "/v1/check", { session: a, tool: "get_order", args: { order_id: "1" } }, KEY_B));
    expect({ status: r.status, code: r.body.error?.code }).toEqual({ status: 400, code: "session_invalid" });
  });

  it("a key listed for two tenants belongs to neither: refused, not handed to whichever came last", async () => {
    const { app, env } = testApp();
    const shared = "key-shared-0123456789abcdef";
    const twice = { ...env, STALWART_API_KEYS: `acme:${shared},globex:${shared},acme:${KEY_A}` };
    const get = (key: string) => app.request("/v1/approvals", { headers: { authorization: `Bearer ${key}` } }, twice);
    const refused = await json(await get(shared));
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({ status: 401, code: "unauthorized" });
    expect((await get(KEY_A)).status, "the tenant's other key").toBe(200);
    const login = await app.request("/approvals/login", { method: "POST", headers: { "stalwart-apply": "yes", origin: "http://localhost", "content-type": "application/json" }, body: JSON.stringify({ code: shared }) }, twice);
    expect(login.status, "nor does it sign in to the page").toBe(401);
    // the same key listed twice for one tenant is that tenant's
    const same = { ...env, STALWART_API_KEYS: `acme:${shared},acme:${shared}` };
    expect((await app.request("/v1/approvals", { headers: { authorization: `Bearer ${shared}` } }, same)).status).toBe(200);
  });
});
