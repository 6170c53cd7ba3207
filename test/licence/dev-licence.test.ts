// `stalwart licence dev`: the licence service in this process, a development organisation, this
// home activated against it — verified against the keys the build trusts, labelled as development.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { devLicence, formatDevLicence } from "../../cli/licence/dev-licence.js";
import { openLicence } from "../../cli/licence/index.js";
import { formatStatus } from "../../cli/licence/format.js";
import { DEV_SERVICE_URL } from "../../cli/licence/service.js";
import { Client } from "../../cli/sdk/index.js";
import { publicEntry, type KeySet } from "../../worker/portable/licensing/index.js";
import { stalwart } from "../helpers/licence-cli.js";
import { tempHome, writeFixtureInstallation } from "../helpers/licence-fixtures.js";
import { REPO } from "../conformance/runner.js";

describe("stalwart licence dev", () => {
  test("activates the home with a development licence the runtime accepts; again keeps the installation", async () => {
    const home = tempHome("dev-licence");
    const first = await devLicence({ home });
    expect(first).toMatchObject({ development: true, home, plan: "enterprise", signed_by: "dev-2026-a" });
    expect(formatDevLicence(first)).toMatch(/^DEVELOPMENT LICENCE — .*never for production/);

    const stored = JSON.parse(readFileSync(`${home}/licence/installation.json`, "utf8"));
    expect(stored).toMatchObject({ installation_id: first.installation_id, service_url: DEV_SERVICE_URL });

    const h = await openLicence({ home, renew: false });
    const s = h.status();
    await h.close();
    expect(s.stage).toBe("active");
    expect(formatStatus(s)).toMatch(/development +a development licence from `stalwart licence dev`/);

    // the SDK runs under it; nothing tries to renew it in the background (there is no service to
    // ask), so `licence status` shows no failed renewal; an explicit renewal says why it cannot
    const licence = await openLicence({ home });
    const client = new Client({ home, licence });
    const check = await client.session("b", { catalogue: `${REPO}/examples/store/agent.yaml` }).checkToolCall("get_order", { order_id: "4411" });
    expect(check.decision).toBe("allow");
    expect(licence.renewal).toBeUndefined();
    expect(licence.status().lastRenewal).toBeUndefined();
    expect(await licence.renew()).toMatchObject({ ok: false, code: "service_unreachable", message: expect.stringContaining("stalwart licence dev") });
    expect(licence.view().stage).toBe("active"); // the lease holds
    await licence.close();

    const again = await devLicence({ home });
    expect(again.installation_id).toBe(first.installation_id);
    expect(again.licence_id).not.toBe(first.licence_id); // a new service each time: a new licence, the same machine
  });

  test("refuses to replace a licence from a real service, and refuses in a build that trusts no dev key", async () => {
    const f = await writeFixtureInstallation({ now: new Date(), leaseEndsInDays: 3 });
    await expect(devLicence({ home: f.home })).rejects.toMatchObject({ code: "LicenceExists", hint: expect.stringContaining("--home") });

    const prod: KeySet = { keys: [await publicEntry({ kid: "prod-2026-a", secret: "A".repeat(43) })] };
    await expect(devLicence({ home: tempHome("dev-prod"), trustedKeys: prod })).rejects.toMatchObject({ code: "DevLicenceUnavailable" });
  });

  test("from the command line: exit 0, labelled; `licence status` and `doctor` then exit 0", async () => {
    const home = tempHome("dev-licence-cli");
    const env = { STALWART_HOME: home };
    const dev = await stalwart(["licence", "dev"], env);
    expect(dev.code, dev.stderr).toBe(0);
    expect(dev.stdout).toMatch(/^DEVELOPMENT LICENCE/);
    const [status, doctor, doctorText] = await Promise.all([stalwart(["licence", "status", "--json"], env), stalwart(["doctor", "--json"], env), stalwart(["doctor"], env)]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.json()).toMatchObject({ stage: "active", plan: "enterprise", serviceUrl: DEV_SERVICE_URL, trustedKeys: "dev" });
    expect(doctor.code, doctor.stdout).toBe(0);
    // no service to reach is not a failed round trip: none was tried
    expect(doctor.json()).toMatchObject({ missing: [], round_trip: { ok: false, none: expect.stringContaining("stalwart licence dev") } });
    expect(doctor.json().round_trip.error).toBeUndefined();
    expect(doctorText.stdout).toMatch(/round trip\s+none — a development licence has no licence service/);
    expect(doctorText.stdout).not.toMatch(/round trip\s+failed/);
  });

  // Outside audit 7, F7: two activations of one home at once (two installations of the package, two
  // CI jobs) each made an installation and said so; the home kept the last writer's. They now run
  // one at a time, and the second keeps the first's installation.
  test("two at once on one home: both name the installation the home keeps", async () => {
    for (let round = 0; round < 3; round++) {
      const home = tempHome("dev-licence-race");
      const [a, b] = await Promise.all([devLicence({ home }), devLicence({ home })]);
      const kept = JSON.parse(readFileSync(`${home}/licence/installation.json`, "utf8")).installation_id;
      expect([a.installation_id, b.installation_id]).toEqual([kept, kept]);
      expect(existsSync(`${home}/licence/activate.lock`), "the lock is given back").toBe(false);
    }
  });

  test("a lock left by a process that is gone is taken over", async () => {
    const home = tempHome("dev-licence-stale");
    await devLicence({ home });
    const id = JSON.parse(readFileSync(`${home}/licence/installation.json`, "utf8")).installation_id;
    // a pid no process has (the highest Linux allows is below 2^22)
    writeFileSync(`${home}/licence/activate.lock`, JSON.stringify({ pid: 2 ** 22 + 7, host: (await import("node:os")).hostname(), at: "2026-01-01T00:00:00Z" }));
    expect((await devLicence({ home })).installation_id).toBe(id);
  });
});
