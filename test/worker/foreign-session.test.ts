/**
 * Outside audit 14, F6: another tenant's session is `400 session_invalid`, as docs/http.md says,
 * also when this tenant holds no catalogue of the digest it names (it was `404
 * catalogue_not_found`, which told the order of the checks, not what was wrong).
 */
import { describe, expect, it } from "vitest";
import { KEY_A, KEY_B, storeYaml, testApp } from "./app-env.js";

describe("another tenant's session (outside audit 14, F6)", () => {
  it("is session_invalid on every route, whether or not this tenant holds its catalogue", async () => {
    const { call } = testApp();
    expect((await call("PUT", "/v1/catalogues/store", storeYaml, KEY_A, "application/yaml")).status).toBe(200);
    const s = ((await (await call("POST", "/v1/sessions", { catalogue: "store", name: "billing" }, KEY_A)).json()) as any).session;
    const bodies: [string, Record<string, unknown>][] = [
      ["/v1/check", { session: s, tool: "get_order", args: { order_id: "1" } }],
      ["/v1/sessions/read", { session: s, text: "hi" }],
      ["/v1/report", { session: s, step: 0, outcome: "ran" }],
      ["/v1/filter", { session: s, step: 0, result: {} }],
      ["/v1/plan", { session: s, kind: "undo", tool: "get_order" }],
    ];
    for (const holds of [false, true]) {
      if (holds) expect((await call("PUT", "/v1/catalogues/store", storeYaml, KEY_B, "application/yaml")).status).toBe(200);
      for (const [path, body] of bodies) {
        const r = await call("POST", path, body, KEY_B);
        const error = ((await r.json()) as any).error;
        expect([path, holds, r.status, error?.code]).toEqual([path, holds, 400, "session_invalid"]);
        expect(JSON.stringify(error)).not.toContain(s.catalogue.slice(0, 16)); // nothing of tenant A's
      }
    }
    // tenant A's own session goes on
    const own = await call("POST", "/v1/check", { session: s, tool: "get_order", args: { order_id: "1" } }, KEY_A);
    expect(((await own.json()) as any).check.decision).toBe("allow");
  });
});
