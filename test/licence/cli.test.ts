// `stalwart licence status` and `stalwart doctor` as a user runs them (spawned, STALWART_HOME set).
import { describe, expect, test } from "vitest";
import { stalwart } from "../helpers/licence-cli.js";
import { tempHome, writeFixtureInstallation } from "../helpers/licence-fixtures.js";
import { DEV_SERVICE_URL } from "../../cli/licence/service.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const down = "http://127.0.0.1:9"; // nothing listens there

describe("stalwart licence status / doctor show the stage and its dates", () => {
  test("active, grace and lapsed (reads_only and refuse), as JSON", async () => {
    const now = new Date();
    const cases = [
      { leaseEndsInDays: 3, onLapse: "reads_only" as const, stage: "active", code: 0 },
      { leaseEndsInDays: -2, onLapse: "reads_only" as const, stage: "grace", code: 0 },
      { leaseEndsInDays: -40, onLapse: "reads_only" as const, stage: "lapsed", code: 1 },
      { leaseEndsInDays: -40, onLapse: "refuse" as const, stage: "lapsed", code: 1 },
    ];
    await Promise.all(
      cases.map(async (c) => {
        const f = await writeFixtureInstallation({ now, leaseEndsInDays: c.leaseEndsInDays, onLapse: c.onLapse, graceDays: 30 });
        const r = await stalwart(["licence", "status", "--json"], { STALWART_HOME: f.home, STALWART_LICENCE_URL: down });
        expect(r.code, r.stderr).toBe(c.code);
        const s = r.json();
        expect(s).toMatchObject({ stage: c.stage, onLapse: c.onLapse, leaseEnds: f.lease.expires_at, graceEnds: f.lease.grace_ends, plan: "paid", installationId: f.lease.installation_id });
        if (c.stage === "lapsed") expect(s.lapsedAt).toBe(f.lease.grace_ends);
        else expect(s.lapsedAt).toBeUndefined();
        expect(Object.keys(s.meters)).toEqual(expect.arrayContaining(["plan_calls", "tool_checks", "answer_calls"]));
      }),
    );
  });

  test("human output names the stage and the dates; doctor works with a lapsed licence and the service down", async () => {
    const f = await writeFixtureInstallation({ now: new Date(), leaseEndsInDays: -2, graceDays: 30 });
    const env = { STALWART_HOME: f.home, STALWART_LICENCE_URL: down };
    const [status, doctor, doctorJson] = await Promise.all([stalwart(["licence", "status"], env), stalwart(["doctor"], env), stalwart(["doctor", "--json"], env)]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/state\s+grace/);
    expect(status.stdout).toContain(f.lease.expires_at.slice(0, 10));
    expect(status.stdout).toContain(f.lease.grace_ends.slice(0, 10));
    expect(doctor.stdout).toMatch(/service\s+http:\/\/127\.0\.0\.1:9/);
    expect(doctor.stdout).toMatch(/api key\s+not configured/);
    expect(doctor.stdout).toMatch(/state\s+grace/);
    expect(doctor.stdout).toMatch(/round trip\s+failed/);
    const d = doctorJson.json();
    expect(doctorJson.code).toBe(0); // checks run in the grace: no API key is needed to keep running
    expect(d.missing).toEqual([]);
    expect(d).toMatchObject({ service_url: down, api_key: { configured: false }, licence: { ok: true, status: { stage: "grace", graceEnds: f.lease.grace_ends } }, round_trip: { ok: false } });
    expect(JSON.stringify(d)).not.toMatch(/secret_key/);
  });

  test("without a licence: status stops with LicenceRequired naming the fix; doctor says what is missing", async () => {
    const home = tempHome();
    const env = { STALWART_HOME: home, STALWART_LICENCE_URL: down, QLS_API_KEY: "qls_live_secretsecretsecretsecret" };
    const [status, doctor] = await Promise.all([stalwart(["licence", "status"], env), stalwart(["doctor", "--json"], env)]);
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/LicenceRequired/);
    expect(status.stderr).toMatch(/stalwart licence activate/);
    const d = doctor.json();
    expect(d.licence).toMatchObject({ ok: false, code: "LicenceRequired" });
    expect(d.api_key).toEqual({ configured: true, source: "QLS_API_KEY" });
    expect(doctor.stdout).not.toContain("secretsecret"); // never the key
    expect(d.missing.join("\n")).toMatch(/stalwart licence activate/);
  });

  test("a lapsed development licence: doctor says to run `licence dev`; release has no seat to give back", async () => {
    const f = await writeFixtureInstallation({ now: new Date(), leaseEndsInDays: -40, graceDays: 30, serviceUrl: DEV_SERVICE_URL });
    const env = { STALWART_HOME: f.home };
    const [doctor, release, releaseJson] = await Promise.all([stalwart(["doctor", "--json"], env), stalwart(["licence", "release"], env), stalwart(["licence", "release", "--json"], env)]);
    const missing = doctor.json().missing.join("\n");
    expect(missing).toContain("the development licence lapsed; run `stalwart licence dev` to renew it");
    expect(missing).not.toContain("licence activate");
    expect(release.code, release.stderr).toBe(0);
    expect(release.stdout).toContain(`installation ${f.stored.installation_id} holds a development licence, which takes no seat: nothing to release`);
    expect(releaseJson.json()).toEqual({ released: true, installation_id: f.stored.installation_id, already: true, development: true });
  });

  test("a licence that itself expired: status and doctor say a new licence is needed, not a renewal", async () => {
    const f = await writeFixtureInstallation({ now: new Date(), leaseEndsInDays: -40, graceDays: 30, licenceEndsInDays: -45 });
    const env = { STALWART_HOME: f.home, STALWART_LICENCE_URL: down };
    const [status, doctor] = await Promise.all([stalwart(["licence", "status"], env), stalwart(["doctor", "--json"], env)]);
    expect(status.stdout).toContain(`the licence itself expired ${f.licence.expires_at.slice(0, 10)}`);
    expect(doctor.json().missing.join("\n")).toContain(`licence ${f.licence.licence_id} expired ${f.licence.expires_at.slice(0, 10)}; activate a licence that runs now`);
  });

  test("an installation.json that holds a list, not an installation, is named as such", async () => {
    const home = tempHome();
    mkdirSync(join(home, "licence"), { recursive: true });
    writeFileSync(join(home, "licence", "installation.json"), "[]\n");
    const status = await stalwart(["licence", "status"], { STALWART_HOME: home, STALWART_LICENCE_URL: down });
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(`\`${join(home, "licence", "installation.json")}\` does not hold an installation (it holds a list)`);
  });

  test("a counters file zeroed in place: doctor names it with the NUL bytes escaped, never sent to the terminal", async () => {
    const f = await writeFixtureInstallation({ now: new Date(), leaseEndsInDays: 3 });
    writeFileSync(join(f.home, "licence", "counters.json"), Buffer.alloc(64));
    const doctor = await stalwart(["doctor"], { STALWART_HOME: f.home, STALWART_LICENCE_URL: down });
    const out = doctor.stdout + doctor.stderr;
    expect(out).toContain("counters.json` is not JSON");
    expect(out).toContain("\\u0000");
    expect(out).not.toContain("\u0000");
  });

  test("activate without a key says how to get one; unknown verbs and options are usage errors", async () => {
    const home = tempHome();
    const [noKey, badVerb, badOpt] = await Promise.all([
      stalwart(["licence", "activate", "--json"], { STALWART_HOME: home, STALWART_LICENCE_URL: down }),
      stalwart(["licence", "frobnicate"], { STALWART_HOME: home }),
      stalwart(["licence", "status", "--colour"], { STALWART_HOME: home }),
    ]);
    expect(noKey.code).toBe(1);
    expect(noKey.json()).toMatchObject({ error: { code: "ApiKeyRequired", hint: expect.stringContaining("QLS_API_KEY") } });
    expect(badVerb.code).toBe(2);
    expect(badVerb.stderr).toMatch(/unknown verb `frobnicate`/);
    expect(badOpt.code).toBe(2);
    expect(badOpt.stderr).toMatch(/unknown option `--colour`/);
  });
});
