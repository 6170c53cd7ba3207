// The same cases against the real licence worker: `wrangler dev --config wrangler.licence.toml`.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bootstrap, malformedCases, protocolCases, seatCases, withKey, type ServiceTarget } from "../helpers/licence-service-cases.js";
import { stalwart } from "../helpers/licence-cli.js";
import { tempHome } from "../helpers/licence-fixtures.js";
import { startWranglerLicence, type WranglerService } from "../helpers/licence-wrangler.js";

let svc: WranglerService;
beforeAll(async () => {
  svc = await startWranglerLicence();
}, 120_000);
afterAll(async () => {
  await svc?.stop();
});

const target = (): ServiceTarget => ({ request: (p, i) => svc.request(p, i), adminSecret: svc.adminSecret });

describe("licence service, real `wrangler dev` worker over HTTP", () => {
  seatCases(target);
  malformedCases(target);
  protocolCases(target);
});

describe("`stalwart licence` against the real worker", () => {
  test("activate → status --refresh → doctor → release, over HTTP", async () => {
    const t = target();
    const { api_key } = await bootstrap(t, "free");
    const env = { STALWART_HOME: tempHome("cli"), STALWART_LICENCE_URL: svc.url, QLS_API_KEY: api_key };
    const act = await stalwart(["licence", "activate", "--json"], env);
    expect(act.code, act.stderr + act.stdout).toBe(0);
    expect(act.json()).toMatchObject({ activated: true, stage: "active", plan: "free" });
    expect(act.stdout).not.toContain(api_key);
    const status = await stalwart(["licence", "status", "--refresh", "--json"], env);
    expect(status.json()).toMatchObject({ stage: "active", renewal: { ok: true } });
    const doctor = await stalwart(["doctor", "--json"], env);
    expect(doctor.json()).toMatchObject({ api_key: { configured: true, source: "QLS_API_KEY" }, round_trip: { ok: true }, account: { ok: true, plan: "free" }, licence: { ok: true } });
    // a second machine on the free plan is refused, naming the limit
    const other = await stalwart(["licence", "activate"], { ...env, STALWART_HOME: tempHome("cli2") });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/seat_limit_reached: .*allows 1 installation/);
    expect(other.stderr).toMatch(/hint: run `stalwart licence release`/);
    const rel = await stalwart(["licence", "release", "--json"], env);
    expect(rel.json()).toMatchObject({ released: true });
    const held = (await (await svc.request("/v1/licences", withKey(api_key, "GET"))).json()) as { seats: { held: number } };
    expect(held.seats.held).toBe(0);
    const after = await stalwart(["licence", "status"], env);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/LicenceRequired: this machine released its seat/);
  });
});
