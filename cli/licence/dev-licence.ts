/**
 * `stalwart licence dev`: a development licence from the installed package alone. The licence
 * service runs in this process (dev-service.ts), a development organisation on the enterprise
 * plan is created in it, and this home is activated against it — the same activation as
 * `stalwart licence activate`, verified against the keys this build trusts. The documents are
 * signed by the published dev keys, so the licence is for development and tests only; a build
 * that trusts production keys only refuses it.
 *
 * The service is gone when the command ends: the lease runs its term and then the grace (the
 * background renewal fails at once, without the network), and running the command again renews
 * it, keeping the installation.
 */
import { isDevKeySet, StalwartError, TRUSTED_KEYS, type KeySet } from "../../worker/portable/licensing/index.js";
import { activate } from "./activate.js";
import { licencePaths, resolveHome } from "./files.js";
import { openLicence } from "./handle.js";
import { readInstallation } from "./installation.js";
import { DEV_SERVICE_URL } from "./service.js";

const DEV_ORG_NAME = "development licence (stalwart licence dev)";
const NOTE = "a development licence, signed by the published dev keys this build trusts: for development and tests, never for production";

export interface DevLicence {
  development: true;
  note: string;
  home: string;
  installation_id: string;
  licence_id: string;
  org_id: string;
  plan: string;
  signed_by: string;
  lease_ends: string;
  grace_ends: string;
  licence_expires: string;
}

export async function devLicence(opts: { home?: string; now?: () => Date; trustedKeys?: KeySet } = {}): Promise<DevLicence> {
  const home = resolveHome(opts.home);
  const keys = opts.trustedKeys ?? TRUSTED_KEYS;
  const kid = keys.keys.find((k) => k.dev === true)?.kid;
  if (!isDevKeySet(keys) || kid === undefined) {
    throw new StalwartError("DevLicenceUnavailable", "this build trusts production signing keys only: a development licence, signed by the dev keys, would not verify here", {
      hint: "activate your organisation's licence: QLS_API_KEY=qls_live_… stalwart licence activate",
    });
  }
  const previous = readInstallation(home);
  if (previous && !previous.released_at && previous.service_url !== DEV_SERVICE_URL) {
    throw new StalwartError("LicenceExists", `\`${licencePaths(home).installation}\` holds a licence from \`${previous.service_url}\`; a development licence would replace it`, {
      hint: "use another home for development (`--home DIR` or STALWART_HOME=DIR), or free this one first with `stalwart licence release`",
    });
  }

  const { startDevService } = await import("./dev-service.js");
  const service = await startDevService(kid);
  try {
    const boot = await service.admin<{ api_key: string }>("POST", "/admin/bootstrap", { org_name: DEV_ORG_NAME, plan: "enterprise", live: false });
    await activate({ home, serviceUrl: DEV_SERVICE_URL, apiKey: boot.api_key, fetch: service.fetch, trustedKeys: keys, ...(opts.now ? { now: opts.now } : {}) });
  } finally {
    service.dispose();
  }
  const h = await openLicence({ home, renew: false, serviceUrl: DEV_SERVICE_URL, trustedKeys: keys, ...(opts.now ? { now: opts.now } : {}) });
  const s = h.status();
  await h.close();
  return {
    development: true,
    note: NOTE,
    home,
    installation_id: s.installationId,
    licence_id: s.licenceId,
    org_id: s.orgId,
    plan: s.plan,
    signed_by: kid,
    lease_ends: s.leaseEnds,
    grace_ends: s.graceEnds,
    licence_expires: s.licenceExpires,
  };
}

export function formatDevLicence(r: DevLicence): string {
  const day = (iso: string) => iso.slice(0, 10);
  return [
    `DEVELOPMENT LICENCE — ${NOTE}`,
    `activated    ${r.home}: installation ${r.installation_id} on licence ${r.licence_id} (plan ${r.plan}, signed by \`${r.signed_by}\`)`,
    `lease        ends ${day(r.lease_ends)}, then the grace runs to ${day(r.grace_ends)}; nothing renews it in the background: run \`stalwart licence dev\` again`,
    `next         the SDK, \`stalwart replay\` and \`stalwart rules\` run under it; \`stalwart licence status\` shows it`,
  ].join("\n");
}
