/**
 * Outside audit 14, F5: with the test clock on, health judges the licence at the request's
 * `x-stalwart-now`, as a check does, so a test that steps the clock sees the stage its checks see.
 */
import { describe, expect, it } from "vitest";
import { testApp } from "./app-env.js";

const health = async (app: ReturnType<typeof testApp>, at?: number, clock = "1") => {
  const r = await app.app.request("/v1/health", { headers: at === undefined ? {} : { "x-stalwart-now": String(at) } }, { ...app.env, STALWART_TEST_CLOCK: clock });
  return { status: r.status, body: (await r.json()) as any };
};

describe("health on the test clock (outside audit 14, F5)", () => {
  it("tells the stage at x-stalwart-now; without the test clock the header is ignored", async () => {
    const app = testApp();
    const now = await health(app);
    expect(now.body.licence.stage).toBe("active");
    const graceEnds = Date.parse(now.body.licence.grace_ends);
    const later = await health(app, graceEnds + 86_400_000);
    expect(later.body.licence).toMatchObject({ stage: "lapsed", lapsed_at: now.body.licence.grace_ends });
    expect((await health(app, graceEnds + 86_400_000, "0")).body.licence.stage).toBe("active");
    const r = await app.app.request("/v1/health", { headers: { "x-stalwart-now": "abc" } }, app.env);
    expect(r.status).toBe(400);
  });
});
