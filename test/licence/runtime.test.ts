// The runtime side (cli/licence) against the in-process licence service: activation, the
// background renewal, meters and usage reports, tampering, clock and rollback, lapse, offline files.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { activate, installAnswer, licencePaths, openLicence, release, writeAnswer, writeRequest } from "../../cli/licence/index.js";
import { readInstallation } from "../../cli/licence/installation.js";
import { ServiceClient } from "../../cli/licence/service.js";
import { DAY_MS, lapseAllows, LicenceRequired, QuotaExhausted, type LicenceView } from "../../worker/portable/licensing/index.js";
import { licenceServiceSuite } from "../helpers/licence-service-suite.js";
import { bootstrap, withKey } from "../helpers/licence-service-cases.js";
import { tempHome, unreachable, writeFixtureInstallation } from "../helpers/licence-fixtures.js";

const URL_ = "http://licence.test";
const suite = licenceServiceSuite();
const target = suite.target;
const account = async (apiKey: string) => (await (await suite.svc.request("/v1/account", withKey(apiKey, "GET"))).json()) as { meters: Record<string, { used: number }> };
const seats = async (apiKey: string) => ((await (await suite.svc.request("/v1/licences", withKey(apiKey, "GET"))).json()) as { seats: { held: number }; installations: { anomalies: string[] }[] });

describe("activation and the first answer's renewal", () => {
  test("activate, then the first count in a process renews in the background and reports counts once", async () => {
    const home = tempHome();
    const { api_key } = await bootstrap(target(), "paid");
    const inst = await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    expect(inst.stored.installation_id).toMatch(/^inst_/);
    expect(Object.keys(inst.stored.bundles).sort()).toEqual(["language", "outcome_phrasings", "own_identifiers", "prompt_pack", "reply_rules", "vocabulary"]);

    const h = await openLicence({ home, fetch: suite.svc.fetch });
    const view: LicenceView = h.view();
    expect(Object.keys(view).sort()).toEqual(["bundleDigests", "graceEnds", "leaseEnds", "onLapse", "plan", "stage"]);
    expect(view).toMatchObject({ stage: "active", plan: "paid", onLapse: "reads_only" });
    expect(Date.parse(view.graceEnds) - Date.parse(view.leaseEnds)).toBe(30 * DAY_MS);
    h.count("tool_checks");
    h.count("tool_checks", 4);
    expect(h.renewal).toBeDefined();
    const outcome = await h.renewal!;
    expect(outcome).toMatchObject({ ok: true, usage: { counted: true } });
    expect((await account(api_key)).meters.tool_checks!.used).toBe(5);
    // a second handle in the same process does not renew again
    const h2 = await openLicence({ home, fetch: suite.svc.fetch });
    h2.count("tool_checks");
    expect(h2.renewal).toBeUndefined();
    await h2.close();
    // an explicit renewal reports the difference only
    const again = await h.renew();
    expect(again.ok).toBe(true);
    expect((await account(api_key)).meters.tool_checks!.used).toBe(6);
    const twice = await h.renew(); // same cumulative counts: nothing more counted
    expect(twice.ok).toBe(true);
    expect((await account(api_key)).meters.tool_checks!.used).toBe(6);
    await h.close();
  });

  test("an older lease handed back at a renewal is refused and the current one kept", async () => {
    const home = tempHome();
    const { api_key } = await bootstrap(target(), "paid");
    let first: unknown;
    const capture: typeof fetch = async (input, init) => {
      const res = await suite.svc.fetch(input, init);
      if (String(input).endsWith("/v1/licences/activate")) first = await res.clone().json();
      return res;
    };
    await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: capture });
    const h = await openLicence({ home, fetch: suite.svc.fetch, renew: false });
    expect((await h.renew()).ok).toBe(true); // lease #2
    const before = readInstallation(home)!.lease;
    const replaying: typeof fetch = async (input, init) => {
      const res = await suite.svc.fetch(input, init);
      if (!String(input).endsWith("/v1/licences/refresh")) return res;
      const body = (await res.json()) as Record<string, unknown>;
      return new Response(JSON.stringify({ ...body, lease: (first as { lease: unknown }).lease }), { status: 200 });
    };
    const h2 = await openLicence({ home, fetch: replaying, renew: false });
    const r = await h2.renew();
    expect(r).toMatchObject({ ok: false, code: "lease_replayed_lease" });
    // the lease held is #2: the message names it, not the lowest seq a renewal may answer (#3) (outside audit 17, F12)
    expect(r.message).toBe("lease #1 is not newer than the lease held (#2)");
    expect(readInstallation(home)!.lease).toEqual(before);
  });

  test("release frees the seat; after it the runtime needs `stalwart licence activate`", async () => {
    const home = tempHome();
    const { api_key } = await bootstrap(target(), "free");
    await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    expect((await seats(api_key)).seats.held).toBe(1);
    await release({ home, fetch: suite.svc.fetch });
    expect((await seats(api_key)).seats.held).toBe(0);
    await expect(openLicence({ home })).rejects.toThrow(LicenceRequired);
    await expect(openLicence({ home })).rejects.toMatchObject({ code: "LicenceRequired", hint: expect.stringContaining("stalwart licence activate") });
    // activate again: a new installation takes the seat
    const again = await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    expect(again.stored.released_at).toBeUndefined();
  });

  test("a revoked licence stops the runtime at the next renewal, naming when", async () => {
    const home = tempHome();
    const { api_key, licence_id } = await bootstrap(target(), "paid", "refuse");
    await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    await suite.svc.request(`/admin/licences/${licence_id}/revoke`, { method: "POST", headers: { authorization: `Bearer ${suite.svc.adminSecret}` } });
    const h = await openLicence({ home, fetch: suite.svc.fetch });
    expect(h.view().stage).toBe("active");
    h.answered();
    expect(await h.renewal).toMatchObject({ ok: false, code: "licence_revoked" });
    const v = h.view();
    expect(v).toMatchObject({ stage: "lapsed", onLapse: "refuse" });
    expect(v.lapsedAt).toBeDefined();
    expect(["turn", "read", "write"].map((op) => lapseAllows(v, op as "turn"))).toEqual([false, false, false]);
  });
});

describe("bundles at a renewal", () => {
  test("a changed bundle is adopted at the next renewal; own identifiers are never sent to the service", async () => {
    const home = tempHome();
    const { api_key } = await bootstrap(target(), "paid");
    await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    const h = await openLicence({ home, fetch: suite.svc.fetch, renew: false });
    const before = h.view().bundleDigests.own_identifiers;
    const put = await suite.svc.request("/admin/bundles/own_identifiers", { method: "PUT", headers: { authorization: `Bearer ${suite.svc.adminSecret}` }, body: JSON.stringify({ content: JSON.stringify({ v: 1, kind: "own_identifiers", entries: ["ACME-INTERNAL-7"] }) }) });
    const { digest } = (await put.json()) as { digest: string };
    expect(h.view().bundleDigests.own_identifiers).toBe(before); // not mid-session: only at a renewal
    const r = await h.renew();
    expect(r.adopted).toContain("own_identifiers");
    expect(h.view().bundleDigests.own_identifiers).toBe(digest);
    expect(readFileSync(join(licencePaths(home).bundles, digest.replace(":", "-")), "utf8")).toContain("ACME-INTERNAL-7");
    const sent: string[] = [];
    const spy: typeof fetch = async (input, init) => {
      sent.push(String(init?.body ?? ""));
      return suite.svc.fetch(input, init);
    };
    const client = new ServiceClient(URL_, spy, ["acme-internal-7"]);
    await expect(client.withKey("POST", "/v1/licences/activate", api_key, { note: "ticket ACME-INTERNAL-7" })).rejects.toMatchObject({ code: "own_identifier_withheld" });
    expect(sent).toEqual([]);
    // the handle's own renewals carry counts only, and go through the same guard
    h.count("tool_checks", 2);
    expect((await h.renew()).ok).toBe(true);
    await h.close();
  });
});

describe("no licence, tampering", () => {
  test("no installation: LicenceRequired naming `stalwart licence activate`", async () => {
    const err = await openLicence({ home: tempHome() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LicenceRequired);
    expect((err as LicenceRequired).hint).toMatch(/stalwart licence activate/);
  });

  test("a lease with one byte changed on disk, or one for another installation, is refused", async () => {
    const now = new Date();
    const f = await writeFixtureInstallation({ now, leaseEndsInDays: 1 });
    const file = licencePaths(f.home).installation;
    const text = readFileSync(file, "utf8");
    const day = f.lease.expires_at.slice(8, 10);
    writeFileSync(file, text.replace(`"expires_at": "${f.lease.expires_at}"`, `"expires_at": "${f.lease.expires_at.slice(0, 8)}${day === "28" ? "27" : "28"}${f.lease.expires_at.slice(10)}"`));
    await expect(openLicence({ home: f.home, renew: false })).rejects.toMatchObject({ code: "LicenceInvalid", reason: "bad_signature" });

    const g = await writeFixtureInstallation({ now, leaseEndsInDays: 1 });
    const stored = readInstallation(g.home)!;
    writeFileSync(licencePaths(g.home).installation, JSON.stringify({ ...stored, lease: f.stored.lease }));
    await expect(openLicence({ home: g.home, renew: false })).rejects.toMatchObject({ code: "LicenceInvalid", reason: "wrong_licence" });
    writeFileSync(licencePaths(g.home).installation, JSON.stringify({ ...stored, installation_id: "inst_someoneelse000000000" }));
    await expect(openLicence({ home: g.home, renew: false })).rejects.toMatchObject({ code: "LicenceInvalid", reason: "wrong_installation" });
  });
});

describe("meters on the runtime's own clock and state", () => {
  test("past the plan's limit: quota_exhausted naming the meter", async () => {
    const now = new Date("2026-06-10T00:00:00Z");
    const f = await writeFixtureInstallation({ now, leaseEndsInDays: 5, meters: { tool_checks: 3, plan_calls: 100 } });
    const h = await openLicence({ home: f.home, now: () => now, renew: false });
    h.count("tool_checks", 3);
    const err = (() => {
      try {
        h.count("tool_checks");
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(QuotaExhausted);
    expect(err).toMatchObject({ code: "quota_exhausted", meter: "tool_checks", limit: 3 });
    expect((err as Error).message).toMatch(/`tool_checks`/);
    h.count("plan_calls");
    expect(h.status().meters).toMatchObject({ tool_checks: { used: 3, remaining: 0 }, plan_calls: { used: 1, remaining: 99 } });
    await h.close();
  });

  test("a counters file rolled back is detected, the higher counts kept, and reported to the service", async () => {
    const home = tempHome();
    const { api_key } = await bootstrap(target(), "paid");
    await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    const p = licencePaths(home);
    const h = await openLicence({ home, fetch: suite.svc.fetch, renew: false });
    h.count("plan_calls", 10);
    h.flush();
    copyFileSync(p.counters, join(p.dir, "copy.json"));
    h.count("plan_calls", 5);
    await h.close();
    copyFileSync(join(p.dir, "copy.json"), p.counters); // restore the older copy

    const h2 = await openLicence({ home, fetch: suite.svc.fetch, renew: false });
    expect(h2.anomalies).toContain("counters_rolled_back");
    expect(h2.status().meters.plan_calls!.used).toBe(15);
    expect((await h2.renew()).ok).toBe(true);
    expect((await seats(api_key)).installations[0]!.anomalies).toContain("counters_rolled_back");
    expect((await account(api_key)).meters.plan_calls!.used).toBe(15);
  });

  test("a clock set back is detected and does not bring a lapsed lease back", async () => {
    const t = new Date("2026-06-10T00:00:00Z");
    const f = await writeFixtureInstallation({ now: t, leaseEndsInDays: -1, graceDays: 7 }); // in grace at t
    let now = t;
    const h = await openLicence({ home: f.home, now: () => now, renew: false });
    expect(h.view().stage).toBe("grace");
    now = new Date(t.getTime() + 10 * DAY_MS);
    expect(h.view().stage).toBe("lapsed");
    h.count("tool_checks");
    await h.close();
    // the clock is set back to before the lease ended
    const back = new Date(t.getTime() - 3 * DAY_MS);
    const h2 = await openLicence({ home: f.home, now: () => back, renew: false });
    expect(h2.anomalies).toContain("clock_set_back");
    expect(h2.view().stage).toBe("lapsed");
    expect(h2.status().anomalies).toContain("clock_set_back");
  });
});

describe("lease expiry → grace → lapse with an injected clock, the service unreachable", () => {
  for (const onLapse of ["reads_only", "refuse"] as const) {
    test(`on_licence_lapse: ${onLapse}`, async () => {
      const t0 = new Date("2026-06-10T00:00:00Z");
      const f = await writeFixtureInstallation({ now: t0, leaseEndsInDays: 1, graceDays: 30, onLapse });
      let now = t0;
      const h = await openLicence({ home: f.home, now: () => now, fetch: unreachable });
      const ops = () => ["turn", "read", "write"].map((op) => lapseAllows(h.view(), op as "turn"));
      expect(h.view().stage).toBe("active");
      h.count("tool_checks"); // first answer: the renewal fails in the background, the count stands
      expect(await h.renewal).toMatchObject({ ok: false, code: "service_unreachable" });
      expect(ops()).toEqual([true, true, true]);

      now = new Date(t0.getTime() + 2 * DAY_MS);
      expect(h.view()).toMatchObject({ stage: "grace", leaseEnds: f.lease.expires_at, graceEnds: f.lease.grace_ends });
      expect(ops()).toEqual([true, true, true]);

      now = new Date(t0.getTime() + 31 * DAY_MS);
      expect(h.view()).toMatchObject({ stage: "lapsed", lapsedAt: f.lease.grace_ends, onLapse });
      expect(ops()).toEqual(onLapse === "reads_only" ? [true, true, false] : [false, false, false]);
      expect(h.status().lastRenewal).toMatchObject({ ok: false, code: "service_unreachable" });
      await h.close();
    });
  }
});

describe("offline activation", () => {
  test("request → answer → install round trip on enterprise; refused on paid", async () => {
    const offline = tempHome("offline");
    const connected = tempHome("connected");
    const ent = await bootstrap(target(), "enterprise");
    const reqFile = join(offline, "activation-request.json");
    const ansFile = join(connected, "activation-answer.json");
    const request = await writeRequest({ home: offline, out: reqFile });
    await writeAnswer(reqFile, { home: connected, serviceUrl: URL_, apiKey: ent.api_key, fetch: suite.svc.fetch, out: ansFile });
    await installAnswer(ansFile, { home: offline });
    const h = await openLicence({ home: offline, fetch: unreachable, renew: false });
    expect(h.installationId).toBe(request.installation_id);
    expect(h.status()).toMatchObject({ stage: "active", offline: true, plan: "enterprise", leaseEnds: ent.expires_at });

    const paid = await bootstrap(target(), "paid");
    const req2 = join(offline, "second-request.json");
    await writeRequest({ home: tempHome(), out: req2 });
    await expect(writeAnswer(req2, { home: connected, serviceUrl: URL_, apiKey: paid.api_key, fetch: suite.svc.fetch, out: join(connected, "x.json") })).rejects.toMatchObject({
      code: "offline_activation_not_allowed",
      status: 403,
    });
  });

  test("an answer for another request is refused at install", async () => {
    const a = tempHome();
    const b = tempHome();
    const ent = await bootstrap(target(), "enterprise");
    await writeRequest({ home: a, out: join(a, "req.json") });
    await writeAnswer(join(a, "req.json"), { serviceUrl: URL_, apiKey: ent.api_key, fetch: suite.svc.fetch, out: join(a, "ans.json") });
    await writeRequest({ home: b, out: join(b, "req.json") });
    await expect(installAnswer(join(a, "ans.json"), { home: b })).rejects.toMatchObject({ code: "LicenceInvalid", reason: "wrong_installation" });
  });
});
