/**
 * `stalwart doctor` (licensing.md, "`stalwart doctor`"): the service base URL, whether a key is
 * configured (never the key), whether the local runtime answers checks, the licence state with its
 * dates, the round trip to the service, the plan, its entitlements and this month's use of each
 * meter, whether the home's history key is one a session can sign with (sdk/key-health.ts), and
 * whether its store of counters and session heads reads (`stalwart counters status`). It works
 * without a licence, to say what is missing. `missing` lists only what stops checks from running
 * here, so an empty list is `stalwart doctor` exiting 0.
 */
import { LicenceServiceError, StalwartError, TRUSTED_KEYS, isDevKeySet } from "../../worker/portable/licensing/index.js";
import { apiKeyOf, serviceUrlOf, type ServiceOptions } from "./activate.js";
import { licencePaths, readJson, resolveHome } from "./files.js";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MeterFailure } from "./handle.js";
import { countsGate, openLicence, type LicenceStatus } from "./handle.js";
import { lmdbOpenable } from "../sdk/state/lmdb-openable.js";
import { readInstallation } from "./installation.js";
import { DEV_SERVICE_URL, ServiceClient } from "./service.js";
import { keyHealth, type KeyHealth } from "../sdk/key-health.js";
import { stateStatus } from "../sdk/state/reset.js";

export interface DoctorReport {
  home: string;
  service_url: string;
  api_key: { configured: boolean; source: string | null };
  trusted_keys: "dev" | "production";
  runtime: { answers_checks: boolean; detail: string };
  /** can the runtime write its meters (`licence/counters.json`)? and the last failure a process recorded */
  meters: { writable: boolean; detail: string; last_failure?: MeterFailure & { pid?: number } };
  /** the key every session here signs its history under: missing while state made under it remains, damaged, or replaced, no session can run */
  history_key: KeyHealth;
  /** the home's store of counters and session heads: damaged or unreadable, every check refuses */
  store: { ok: boolean; file: string; exists: boolean; code?: string; message?: string; hint?: string };
  licence: { ok: true; status: LicenceStatus } | { ok: false; code: string; message: string; hint?: string };
  /** `none`: there is no service to reach (a development licence), so no round trip was tried */
  round_trip: { ok: boolean; ms?: number; error?: string; none?: string };
  account: { ok: true; plan: string; permissions: string[]; limits: Record<string, unknown>; month: string; meters: Record<string, { limit: number; used: number }> } | { ok: false; error: string };
  missing: string[];
}

export type RuntimeProbe = () => Promise<{ ok: boolean; detail: string }>;

/** Default probe: the check core loads and computes (the WASM core's SHA-256 of nothing). */
const probeRuntime: RuntimeProbe = async () => {
  try {
    const { nodeCore } = await import("../sdk/wasm-node.js");
    const digest = nodeCore().sha256(new Uint8Array());
    const ok = digest.length === 32 && digest[0] === 0xe3;
    return { ok, detail: ok ? "the in-process check core loaded and answered" : "the check core answered wrongly" };
  } catch (err) {
    return { ok: false, detail: `the check core did not load: ${(err as Error).message.split("\n")[0]}` };
  }
};

/** What a lapsed licence needs: a development one is renewed by `licence dev`, an expired one by a new licence. */
function lapsedFix(s: LicenceStatus, serviceUrl: string, now: Date): string {
  if (serviceUrl === DEV_SERVICE_URL) return "a current lease: the development licence lapsed; run `stalwart licence dev` to renew it";
  if (Date.parse(s.licenceExpires) <= now.getTime()) return `a current licence: licence ${s.licenceId} expired ${s.licenceExpires.slice(0, 10)}; activate a licence that runs now (\`stalwart licence activate\` with its key)`;
  return "a current lease: the licence lapsed; reach the service so the lease renews, or run `stalwart licence activate`";
}

export async function doctor(opts: ServiceOptions & { probe?: RuntimeProbe } = {}): Promise<DoctorReport> {
  const home = resolveHome(opts.home);
  // What stops checks here. An API key is needed only to activate: with a licence active, none is.
  const missing: string[] = [];
  // A licence file that cannot be read is reported, not thrown: doctor is what says so (the
  // installation's error comes again, typed, from opening the licence below).
  const stored = unlessUnreadable(() => readInstallation(home), () => undefined);
  const serviceUrl = serviceUrlOf(opts, stored);
  const key = unlessUnreadable<ReturnType<typeof apiKeyOf>>(
    () => apiKeyOf(opts, serviceUrl),
    (e) => (missing.push(`licence files the runtime can read: ${e.message}${e.hint ? ` (${e.hint})` : ""}`), {}),
  );

  const runtime = await (opts.probe ?? probeRuntime)();
  if (!runtime.ok) missing.push("a working check core: its WebAssembly did not load (reinstall the package; in the repository, `npm run build`)");

  const meters = probeMeters(home);
  if (!meters.writable || meters.last_failure) missing.push(`meters the runtime can write: ${meters.last_failure && meters.writable ? `a process could not write them (${meters.last_failure.message}); the next count retries` : meters.detail}`);

  const historyKey = keyHealth(home);
  if (!historyKey.ok) missing.push(`a history key sessions can sign with: ${historyKey.message}${historyKey.hint ? ` (${historyKey.hint})` : ""}`);

  const store = storeHealth(home);
  if (!store.ok) missing.push(`a store the checks can use: ${store.message}${store.hint ? ` (${store.hint})` : ""}`);

  let licence: DoctorReport["licence"];
  try {
    const h = await openLicence({ home, renew: false, ...(opts.now ? { now: opts.now } : {}), ...(opts.trustedKeys ? { trustedKeys: opts.trustedKeys } : {}), serviceUrl });
    licence = { ok: true, status: h.status() };
    await h.close();
    if (licence.status.stage === "lapsed") missing.push(lapsedFix(licence.status, serviceUrl, (opts.now ?? (() => new Date()))()));
  } catch (err) {
    const e = err as StalwartError;
    licence = { ok: false, code: e.code ?? "error", message: e.message, ...(e.hint ? { hint: e.hint } : {}) };
    // a licence file that cannot be read is fixed by its hint, not by activating again (said once: the meters may have said it)
    if (e.code === "LicenceFileUnreadable") {
      if (!missing.some((m) => m.includes(e.message))) missing.push(`licence files the runtime can read: ${e.message}${e.hint ? ` (${e.hint})` : ""}`);
    } else {
      missing.push(
        key.key
          ? "an activated licence: run `stalwart licence activate`"
          : "an activated licence: export QLS_API_KEY=qls_live_… and run `stalwart licence activate`, or `stalwart licence dev` for a development licence",
      );
    }
  }

  const client = new ServiceClient(serviceUrl, opts.fetch ?? fetch);
  let round_trip: DoctorReport["round_trip"];
  const t0 = performance.now();
  if (serviceUrl === DEV_SERVICE_URL) {
    // not a fault: a development licence is made and renewed by `stalwart licence dev` itself
    round_trip = { ok: false, none: "a development licence has no licence service: `stalwart licence dev` makes and renews it" };
  } else {
    try {
      await client.withKey("GET", "/v1/licences/keys", "");
      round_trip = { ok: true, ms: Math.round(performance.now() - t0) };
    } catch (err) {
      round_trip = { ok: false, error: (err as Error).message };
    }
  }

  let account: DoctorReport["account"];
  if (!key.key) account = { ok: false, error: "no API key configured" };
  else if (round_trip.none) account = { ok: false, error: round_trip.none };
  else if (!round_trip.ok) account = { ok: false, error: "the service could not be reached" };
  else {
    try {
      account = { ok: true, ...(await client.withKey<Omit<Extract<DoctorReport["account"], { ok: true }>, "ok">>("GET", "/v1/account", key.key)) };
    } catch (err) {
      const e = err as LicenceServiceError;
      account = { ok: false, error: `${e.code}: ${e.message}` };
    }
  }

  return {
    home,
    service_url: serviceUrl,
    api_key: { configured: !!key.key, source: key.source ?? null },
    trusted_keys: isDevKeySet(opts.trustedKeys ?? TRUSTED_KEYS) ? "dev" : "production",
    runtime: { answers_checks: runtime.ok, detail: runtime.detail },
    meters,
    history_key: historyKey,
    store,
    licence,
    round_trip,
    account,
    missing,
  };
}

/** `read()`, or `instead(error)` when it throws `LicenceFileUnreadable`. */
function unlessUnreadable<T>(read: () => T, instead: (e: StalwartError) => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof StalwartError && err.code === "LicenceFileUnreadable") return instead(err);
    throw err;
  }
}

/**
 * Whether the meters can be written where the runtime writes them (a probe file in the licence
 * folder, removed again), and the last failure a running process recorded (handle.ts).
 */
function probeMeters(home: string): DoctorReport["meters"] {
  const p = licencePaths(home);
  let lastFailure: (MeterFailure & { pid?: number }) | undefined;
  try {
    lastFailure = readJson<MeterFailure & { pid?: number }>(p.meterFailure);
  } catch {
    lastFailure = undefined;
  }
  const probe = join(p.dir, `.doctor-probe-${process.pid}`);
  try {
    // the counts' gate, which every write of the counts opens: LMDB would kill the process on a bad one
    lmdbOpenable(countsGate(home), "LicenceFileUnreadable");
  } catch (err) {
    const e = err as StalwartError;
    return { writable: false, detail: `${e.message}${e.hint ? ` (${e.hint})` : ""}`, ...(lastFailure ? { last_failure: lastFailure } : {}) };
  }
  try {
    mkdirSync(p.dir, { recursive: true, mode: 0o700 });
    writeFileSync(probe, "ok\n", { mode: 0o600 });
    rmSync(probe, { force: true });
    return { writable: true, detail: `\`${p.dir}\` takes writes`, ...(lastFailure ? { last_failure: lastFailure } : {}) };
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    return { writable: false, detail: `\`${p.dir}\` takes no writes (${typeof e.code === "string" ? `${e.code}: ` : ""}${String(e.message ?? err).split("\n")[0]})`, ...(lastFailure ? { last_failure: lastFailure } : {}) };
  }
}

/** `stalwart counters status`, as much as doctor says of it (reading it makes nothing). */
function storeHealth(home: string): DoctorReport["store"] {
  try {
    const s = stateStatus(home);
    if (s.healthy) return { ok: true, file: s.file, exists: s.exists };
    return { ok: false, file: s.file, exists: s.exists, code: s.problem?.code ?? "StoreDamaged", message: s.problem?.message ?? "the store is damaged", ...(s.problem?.hint ? { hint: s.problem.hint } : {}) };
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    return { ok: false, file: join(home, "state.mdb"), exists: true, code: typeof e.code === "string" ? e.code : "SessionStateUnreadable", message: `the store could not be read (${String(e.message ?? err).split("\n")[0]})` };
  }
}
