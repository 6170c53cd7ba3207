/**
 * A release, or a stop the service answered, must not be undone by editing an unsigned field of
 * installation.json (outside audit 17, F1, F9), and an unsigned stop answer must not outlive the
 * next renewal the service signs (F2).
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { activate, licencePaths, openLicence, release, resetRenewals } from "../../cli/licence/index.js";
import { formatStatus } from "../../cli/licence/format.js";
import { readInstallation } from "../../cli/licence/installation.js";
import { licenceServiceSuite } from "../helpers/licence-service-suite.js";
import { bootstrap } from "../helpers/licence-service-cases.js";
import { tempHome, unreachable } from "../helpers/licence-fixtures.js";

const URL_ = "http://licence.test";
const suite = licenceServiceSuite();
const target = suite.target;
/** installation.json with `field` deleted, as a host would edit it. */
function deleteField(home: string, field: string): void {
  const file = licencePaths(home).installation;
  const j = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  delete j[field];
  writeFileSync(file, JSON.stringify(j));
}
/** A stand-in on the service URL: every request answered `status {error: {code}}`, unsigned. */
const stopAnswer = (status: number, code: string): typeof fetch => async () => new Response(JSON.stringify({ error: { code, message: "forged by a stand-in, unsigned" } }), { status });

describe("a released seat stays released (F1)", () => {
  test("release deletes the lease: deleting `released_at` by hand leaves LicenceRequired", async () => {
    const home = tempHome();
    const { api_key } = await bootstrap(target(), "free");
    await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    await release({ home, fetch: suite.svc.fetch });
    expect(readInstallation(home)!.lease).toBeUndefined();
    deleteField(home, "released_at");
    await expect(openLicence({ home, fetch: unreachable, renew: false })).rejects.toMatchObject({ code: "LicenceRequired", hint: expect.stringContaining("stalwart licence activate") });
  });

  test("installation.json put back from a copy made before the release is refused: the counts' files keep the release", async () => {
    const home = tempHome();
    const { api_key } = await bootstrap(target(), "free");
    await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    const h = await openLicence({ home, fetch: suite.svc.fetch, renew: false });
    h.count("tool_checks");
    await h.close();
    const p = licencePaths(home);
    copyFileSync(p.installation, join(p.dir, "copy.json"));
    await release({ home, fetch: suite.svc.fetch });
    copyFileSync(join(p.dir, "copy.json"), p.installation);
    await expect(openLicence({ home, fetch: unreachable, renew: false })).rejects.toMatchObject({ code: "LicenceRequired", message: expect.stringContaining("released its seat") });
    // only counters.json put back as well: its witness still holds the release
    const c = JSON.parse(readFileSync(p.counters, "utf8")) as Record<string, unknown>;
    delete c.released_at;
    writeFileSync(p.counters, JSON.stringify(c));
    await expect(openLicence({ home, fetch: unreachable, renew: false })).rejects.toMatchObject({ code: "LicenceRequired" });
  });

  test("activating again after a release takes a new installation with a meter of its own", async () => {
    const home = tempHome();
    const { api_key } = await bootstrap(target(), "free");
    const first = await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    await release({ home, fetch: suite.svc.fetch });
    const again = await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    expect(again.stored.installation_id).not.toBe(first.stored.installation_id);
    const h = await openLicence({ home, fetch: unreachable, renew: false });
    expect(h.view().stage).toBe("active");
    await h.close();
  });
});

describe("a stop the service answered (F2, F9)", () => {
  for (const [status, code] of [[403, "licence_revoked"], [410, "installation_released"]] as const) {
    test(`an unsigned \`${code}\` lapses the licence, status says why, and the next signed renewal lifts it`, async () => {
      const home = tempHome();
      const { api_key } = await bootstrap(target(), "paid");
      await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
      const h = await openLicence({ home, fetch: stopAnswer(status, code) });
      h.answered();
      expect(await h.renewal).toMatchObject({ ok: false, code });
      expect(h.view().stage).toBe("lapsed");
      expect(h.status().stop).toMatchObject({ code });
      expect(formatStatus(h.status())).toContain(code);
      await h.close();

      resetRenewals();
      const h2 = await openLicence({ home, fetch: suite.svc.fetch });
      expect(h2.view().stage).toBe("lapsed"); // believed until the service signs a lease again
      h2.answered();
      expect(await h2.renewal).toMatchObject({ ok: true });
      expect(h2.view().stage).toBe("active");
      expect(h2.status().stop).toBeUndefined();
      await h2.close();
      const h3 = await openLicence({ home, fetch: unreachable, renew: false });
      expect(h3.view().stage).toBe("active");
      await h3.close();
    });
  }

  test("a revocation heard is not undone by deleting `revoked_at` from installation.json", async () => {
    const home = tempHome();
    const { api_key, licence_id } = await bootstrap(target(), "paid");
    await activate({ home, serviceUrl: URL_, apiKey: api_key, fetch: suite.svc.fetch });
    await suite.svc.request(`/admin/licences/${licence_id}/revoke`, { method: "POST", headers: { authorization: `Bearer ${suite.svc.adminSecret}` } });
    const h = await openLicence({ home, fetch: suite.svc.fetch });
    h.answered();
    expect(await h.renewal).toMatchObject({ ok: false, code: "licence_revoked" });
    await h.close();
    deleteField(home, "revoked_at");
    const h2 = await openLicence({ home, fetch: unreachable, renew: false });
    expect(h2.view()).toMatchObject({ stage: "lapsed" });
    expect(h2.status().stop).toMatchObject({ code: "licence_revoked" });
    await h2.close();
  });
});
