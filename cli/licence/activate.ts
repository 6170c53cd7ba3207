/**
 * `stalwart licence activate` and `release` (licensing.md, "Activation, lease, grace, release"):
 * activation creates the installation — a random id and an Ed25519 key pair, never a hardware
 * fingerprint — and exchanges the API key for the licence and a first lease.
 */
import {
  generateKeyPair,
  randomBytes,
  toBase64Url,
  verifyLicenceAndLease,
  LicenceInvalid,
  StalwartError,
  TRUSTED_KEYS,
  type KeySet,
  type LeasePayload,
  type LicencePayload,
  type SignedDocument,
} from "../../worker/portable/licensing/index.js";
import { flushCounters, loadCounters, startCounters } from "./counters.js";
import { acquireGate, releaseGate, throughGate } from "../sdk/state/open-gate.js";
import { oneActivationAtATime } from "./activation-lock.js";
import { licencePaths, readText, resolveHome, writeJsonAtomic } from "./files.js";
import { loadInstallation, readInstallation, writeInstallation, type LoadedInstallation, type StoredInstallation } from "./installation.js";
import { fetchBundles } from "./renew.js";
import { DEFAULT_SERVICE_URL, DEV_SERVICE_URL, ServiceClient } from "./service.js";

export interface ServiceOptions {
  home?: string;
  serviceUrl?: string;
  apiKey?: string;
  fetch?: typeof fetch;
  now?: () => Date;
  trustedKeys?: KeySet;
}

export interface IssuedAnswer {
  installation_id: string;
  licence: SignedDocument<LicencePayload>;
  lease: SignedDocument<LeasePayload>;
  bundle_key: string;
  bundle_digests: Record<string, string>;
}

export function serviceUrlOf(opts: ServiceOptions, stored?: StoredInstallation): string {
  return opts.serviceUrl ?? process.env.STALWART_LICENCE_URL ?? stored?.service_url ?? DEFAULT_SERVICE_URL;
}

function isLoopback(url: string): boolean {
  try {
    const h = new URL(url).hostname;
    return h === "127.0.0.1" || h === "localhost" || h === "[::1]";
  } catch {
    return false;
  }
}

/** The API key: the option, else $QLS_API_KEY, else (local service only) the dev key file. */
export function apiKeyOf(opts: ServiceOptions, serviceUrl: string): { key?: string; source?: "option" | "QLS_API_KEY" | "dev-api-key" } {
  if (opts.apiKey) return { key: opts.apiKey, source: "option" };
  if (process.env.QLS_API_KEY) return { key: process.env.QLS_API_KEY, source: "QLS_API_KEY" };
  const dev = licencePaths(opts.home).devApiKey;
  const text = isLoopback(serviceUrl) ? readText(dev) : undefined;
  if (text !== undefined) return { key: text.trim(), source: "dev-api-key" };
  return {};
}

export function requireApiKey(opts: ServiceOptions, serviceUrl: string): string {
  const { key } = apiKeyOf(opts, serviceUrl);
  if (!key) {
    throw new StalwartError("ApiKeyRequired", "no API key is configured", {
      hint: "export QLS_API_KEY=qls_live_… (a key of your organisation), or `stalwart licence dev` for a development licence with no account",
    });
  }
  return key;
}

export async function activate(opts: ServiceOptions = {}): Promise<LoadedInstallation> {
  const home = resolveHome(opts.home);
  return oneActivationAtATime(home, () => activateNow(home, opts));
}

async function activateNow(home: string, opts: ServiceOptions): Promise<LoadedInstallation> {
  const now = (opts.now ?? (() => new Date()))();
  const previous = readInstallation(home);
  const serviceUrl = serviceUrlOf(opts, previous);
  const apiKey = requireApiKey(opts, serviceUrl);
  const keys = opts.trustedKeys ?? TRUSTED_KEYS;

  // Re-activating a machine keeps its installation (id and key) unless it released its seat.
  let id: string;
  let publicKey: string;
  let secretKey: string;
  if (previous && !previous.released_at && previous.lease && previous.service_url === serviceUrl) {
    id = previous.installation_id;
    publicKey = previous.public_key;
    secretKey = previous.secret_key;
  } else {
    const pair = await generateKeyPair();
    id = `inst_${toBase64Url(randomBytes(16))}`;
    publicKey = toBase64Url(pair.publicKey);
    secretKey = toBase64Url(pair.secretKey);
  }
  const client = new ServiceClient(serviceUrl, opts.fetch ?? fetch);
  const answer = await client.withKey<IssuedAnswer>("POST", "/v1/licences/activate", apiKey, { installation_id: id, public_key: publicKey });
  const inst = await adopt(home, answer, { id, publicKey, secretKey, serviceUrl, offline: false, now, keys });
  await fetchBundles(home, inst, client, now).catch(() => []);
  writeInstallation(home, inst.stored);
  return inst;
}

/** Verify an issued licence + lease against the installation's key and store it. */
export async function adopt(
  home: string,
  answer: IssuedAnswer,
  who: { id: string; publicKey: string; secretKey: string; serviceUrl: string; offline: boolean; now: Date; keys: KeySet },
): Promise<LoadedInstallation> {
  // What is wrong is the answer just received, not a licence stored here (LicenceInvalid's default words)
  const refused = (reason: string, detail: string) =>
    new LicenceInvalid(reason, detail, {
      message: `the licence service's ${who.offline ? "activation answer" : "answer"} does not verify: ${detail} (${reason}); nothing was stored`,
      hint: who.offline
        ? "answer this machine's own activation-request.json again (`stalwart licence answer`), and install that answer"
        : "check that STALWART_LICENCE_URL names your licence service, then activate again",
    });
  const named = (answer as { installation_id?: unknown } | null)?.installation_id;
  if (typeof named !== "string") throw refused("wrong_installation", "the answer names no installation");
  if (named !== who.id) throw refused("wrong_installation", `the answer is for installation \`${named}\`, not this one (\`${who.id}\`)`);
  // A new activation: any licence of the trusted keys, and a lease for it bound to this key.
  const v = await verifyLicenceAndLease(answer, who.keys, { installationId: who.id, installationKey: who.publicKey });
  if (!v.ok) throw refused(v.reason, v.detail);
  const stored: StoredInstallation = {
    v: 1,
    installation_id: who.id,
    licence_id: v.licence.licence_id,
    service_url: who.serviceUrl,
    public_key: who.publicKey,
    secret_key: who.secretKey,
    activation_id: v.lease.activation_id,
    activated_at: who.now.toISOString(),
    offline: who.offline,
    licence: answer.licence,
    lease: answer.lease,
    bundle_key: answer.bundle_key,
    bundles: {},
  };
  // a new installation starts its own meter; the same one activated again keeps its counts (they must read)
  startCounters(home, who.id, who.now);
  writeInstallation(home, stored);
  return loadInstallation(home, who.keys);
}

/** Free this machine's seat (what a CI job does last). */
export async function release(opts: ServiceOptions = {}): Promise<{ installation_id: string; already: boolean; development?: true }> {
  const home = resolveHome(opts.home);
  const inst = await loadInstallation(home, opts.trustedKeys ?? TRUSTED_KEYS);
  const now = (opts.now ?? (() => new Date()))();
  const url = serviceUrlOf(opts, inst.stored);
  // `stalwart licence dev` made it for this machine alone: no service counts its seat
  if (url === DEV_SERVICE_URL) return { installation_id: inst.stored.installation_id, already: true, development: true };
  const client = new ServiceClient(url, opts.fetch ?? fetch);
  const r = await client.signed<{ released: boolean; already: boolean }>(
    "POST",
    "/v1/licences/release",
    { licenceId: inst.stored.licence_id, installationId: inst.stored.installation_id, secretKey: inst.secretKey },
    now,
    {},
  );
  // The lease is deleted, not marked: putting a field back cannot undo the release. The release is
  // also kept with the counts (and their witness), so an installation.json restored from a copy is refused.
  const { lease: _released, ...rest } = inst.stored;
  writeJsonAtomic(licencePaths(home).installation, { ...rest, released_at: now.toISOString() });
  recordRelease(home, inst.stored.installation_id, now);
  return { installation_id: inst.stored.installation_id, already: r.already };
}

/** Keep the release in counters.json and its witness (through the counts' gate, as a flush). */
function recordRelease(home: string, installationId: string, now: Date): void {
  const gate = acquireGate(licencePaths(home).dir, "counters.gate", "LicenceFileUnreadable");
  try {
    throughGate(gate, () => {
      const { counters } = loadCounters(home, installationId, now);
      flushCounters(home, { ...counters, released_at: now.toISOString() }, {}, now);
    });
  } finally {
    releaseGate(gate);
  }
}
