/**
 * `stalwart licence status`'s state line: the lease and the grace after it agree with the licence's
 * end. A grace never runs past the licence's end, so an offline activation (a lease for the whole
 * term) has no grace; the line said "then the grace runs to" the lease's own end (outside audit 16, F12).
 */
import { describe, expect, it } from "vitest";
import { formatStatus } from "../../cli/licence/format.js";
import type { LicenceStatus } from "../../cli/licence/handle.js";

const status = (dates: { leaseEnds: string; graceEnds: string; licenceExpires: string }, offline = false): LicenceStatus => ({
  stage: "active", onLapse: "reads_only", plan: "enterprise", bundleDigests: {},
  installationId: "inst_x", licenceId: "lic_x", orgId: "org_x", serviceUrl: "https://licences.example", offline,
  limits: { installations: 50, lease_days: 7, offline_grace_days: 30, offline_activation: true },
  month: "2026-12", meters: {}, anomalies: [], trustedKeys: "production",
  ...dates,
});
const stateLine = (s: LicenceStatus) => formatStatus(s).split("\n").find((l) => l.startsWith("state"));

describe("licence status: the lease and its grace", () => {
  it("an online lease: the grace runs 30 days after it", () => {
    expect(stateLine(status({ leaseEnds: "2026-12-14T18:34:00.000Z", graceEnds: "2027-01-13T18:34:00.000Z", licenceExpires: "2027-12-07T18:34:00.000Z" })))
      .toBe("state        active — the lease ends 2026-12-14 18:34 UTC; then the grace runs to 2027-01-13 18:34 UTC");
  });

  it("an offline lease for the licence's whole term: no grace follows, and the line says why", () => {
    const line = stateLine(status({ leaseEnds: "2027-12-07T18:34:00.000Z", graceEnds: "2027-12-07T18:34:00.000Z", licenceExpires: "2027-12-07T18:34:00.000Z" }, true));
    expect(line).toBe("state        active — the lease ends 2027-12-07 18:34 UTC with the licence itself, so no grace follows (a grace never runs past the licence's end)");
    expect(line).not.toContain("grace runs to");
  });

  it("a grace cut short by the licence's end says so", () => {
    expect(stateLine(status({ leaseEnds: "2027-12-01T18:34:00.000Z", graceEnds: "2027-12-07T18:34:00.000Z", licenceExpires: "2027-12-07T18:34:00.000Z" })))
      .toBe("state        active — the lease ends 2027-12-01 18:34 UTC; then the grace runs to 2027-12-07 18:34 UTC (the licence's end: a grace never runs past it)");
  });
});
