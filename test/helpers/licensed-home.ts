/**
 * A temporary home holding an activated installation (signed with the dev keys the build trusts),
 * for tests that run the in-process SDK: `new Client({ home: licensedHome(), now })`.
 *
 * One fixture is written per test process and copied into each new home (a copy is a few file
 * writes; the fixture needs a key pair and two signatures). Its lease runs from 2026-01-01 for ten
 * years, so every clock the tests use (2026–2035) sees it `active`; its service is unreachable
 * (127.0.0.1:9), so the background renewal fails fast and the last lease holds.
 */
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFixtureInstallation, type FixtureOptions } from "./licence-fixtures.js";
import { workerLicenceOf } from "../../worker/workerd/check/licence.js";

export const FIXTURE_NOW = new Date("2026-01-01T00:00:00Z");
const LONG: FixtureOptions = { now: FIXTURE_NOW, leaseEndsInDays: 3650, licenceEndsInDays: 3650, plan: "enterprise" };

const fixture = await writeFixtureInstallation({ ...LONG, home: mkdtempSync(join(tmpdir(), "stalwart-licensed-fixture-")) });

/** The fixture installation, as written (`stored` is `licence/installation.json`). */
export const licenceFixture = fixture;

/** The check worker's `STALWART_LICENCE` for the same fixture (worker/workerd/check/LICENCE.md). */
export const workerLicence = JSON.stringify(workerLicenceOf(fixture.stored));

/** The `STALWART_LICENCE` of any fixture installation (e.g. a lapsed one). */
export function workerLicenceFor(stored: Parameters<typeof workerLicenceOf>[0]): string {
  return JSON.stringify(workerLicenceOf(stored));
}

/** A new temporary home with the fixture installation in `<home>/licence/`. */
export function licensedHome(tag = "licensed"): string {
  const home = mkdtempSync(join(tmpdir(), `stalwart-${tag}-`));
  copyLicence(home);
  return home;
}

/** Put the fixture installation into an existing home (e.g. one a test already made). */
export function copyLicence(home: string): string {
  cpSync(join(fixture.home, "licence"), join(home, "licence"), { recursive: true });
  return home;
}

/** A home with a fixture of its own (another plan, tiny meters, dates relative to `now`). */
export async function licensedHomeWith(o: Omit<FixtureOptions, "home">, tag = "licensed"): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), `stalwart-${tag}-`));
  await writeFixtureInstallation({ ...o, home });
  return home;
}
