/**
 * The check worker's licence (LICENCE.md beside this file; licensing.md: the worker is a runtime).
 *
 * The worker is given its installation's signed licence and lease as the `STALWART_LICENCE`
 * secret: the JSON `workerLicenceOf(installation)` makes of an activated installation — never its
 * private key. It is verified once per isolate against the key set compiled into this build, and
 * each request computes the view (`licenceView(state, now)`) on the request's clock, which step 1
 * reads through the engine's `licence` hook. No licence configured (or one that does not verify):
 * every route but health and the OpenAPI document answers 503 with a coded error — never an allow.
 */
import {
  expectationOf,
  licenceView,
  licenceViewSpan,
  verifyLicenceAndLease,
  TRUSTED_KEYS,
  type KeySet,
  type LeasePayload,
  type LicencePayload,
  type LicenceState,
  type LicenceView,
  type SignedDocument,
} from "../../portable/licensing/index.js";
import { LicenceRequired, errorFromWire, type CounterStore, type Engine, type SessionStateStore } from "../../portable/engine/index.js";

/** The fields of an installation (cli/licence/installation.ts) the worker needs. */
export interface InstallationLike {
  installation_id: string;
  licence_id: string;
  /** the installation's public key (base64url) the lease is bound to */
  public_key: string;
  activation_id: string;
  licence: SignedDocument<LicencePayload>;
  lease: SignedDocument<LeasePayload>;
  /** bundles adopted at the installation's last renewal (kind → digest); default: the lease's */
  bundles?: Record<string, string>;
  /** the service said the licence was revoked: lapsed from then on */
  revoked_at?: string;
}

/** What `STALWART_LICENCE` holds (v1): the public part of an activated installation. */
export interface WorkerLicence extends InstallationLike {
  v: 1;
}

/** The `STALWART_LICENCE` value for an activated installation (no private key in it). */
export function workerLicenceOf(inst: InstallationLike): WorkerLicence {
  const out: WorkerLicence = {
    v: 1,
    installation_id: inst.installation_id,
    licence_id: inst.licence_id,
    public_key: inst.public_key,
    activation_id: inst.activation_id,
    licence: inst.licence,
    lease: inst.lease,
  };
  if (inst.bundles && Object.keys(inst.bundles).length > 0) out.bundles = { ...inst.bundles };
  if (inst.revoked_at) out.revoked_at = inst.revoked_at;
  return out;
}

const HINT = "give the worker its licence: `npm run dev` does it locally; deployed, `wrangler secret put STALWART_LICENCE` with the JSON of worker/workerd/check/LICENCE.md";

export type LicenceProblem = { code: "licence_required" | "licence_invalid"; message: string };

/** Parse and verify a `STALWART_LICENCE` value against the trusted key set. */
export async function verifyWorkerLicence(text: string | undefined, keys: KeySet = TRUSTED_KEYS): Promise<{ ok: true; state: LicenceState } | ({ ok: false } & LicenceProblem)> {
  if (text === undefined || text.trim() === "") return { ok: false, code: "licence_required", message: `the check worker has no licence (STALWART_LICENCE is not set); ${HINT}` };
  let doc: WorkerLicence;
  try {
    doc = JSON.parse(text) as WorkerLicence;
  } catch {
    return { ok: false, code: "licence_invalid", message: `STALWART_LICENCE is not JSON; ${HINT}` };
  }
  if (typeof doc !== "object" || doc === null || doc.v !== 1 || typeof doc.installation_id !== "string" || typeof doc.public_key !== "string" || typeof doc.licence_id !== "string") {
    return { ok: false, code: "licence_invalid", message: `STALWART_LICENCE is not a v1 worker licence ({v: 1, installation_id, licence_id, public_key, activation_id, licence, lease}); ${HINT}` };
  }
  const v = await verifyLicenceAndLease(doc, keys, expectationOf(doc));
  if (!v.ok) return { ok: false, code: "licence_invalid", message: `the worker's ${v.document} does not verify: ${v.detail} (${v.reason})` };
  const state: LicenceState = { licence: v.licence, lease: v.lease };
  if (doc.bundles && typeof doc.bundles === "object") state.bundles = { ...doc.bundles };
  if (typeof doc.revoked_at === "string") state.revokedAt = doc.revoked_at;
  return { ok: true, state };
}

/** One verification per isolate and per secret value (a new value — a renewed lease — is verified again). */
export class WorkerLicenceCache {
  private last: { text: string | undefined; result: ReturnType<typeof verifyWorkerLicence> } | undefined;
  constructor(private readonly keys: KeySet = TRUSTED_KEYS) {}

  /** The verified state, or `LicenceRequired` / `LicenceInvalid` (503 `licence_required` / `licence_invalid`). */
  async state(text: string | undefined): Promise<LicenceState> {
    if (!this.last || this.last.text !== text) this.last = { text, result: verifyWorkerLicence(text, this.keys) };
    const r = await this.last.result;
    if (!r.ok) throw errorFromWire({ code: r.code, message: r.message });
    return r.state;
  }

  /** For health: the stage, or why there is none. Never throws. */
  async describe(text: string | undefined, now: Date, effective?: (secret: LicenceState) => Promise<LicenceState>): Promise<{ stage: LicenceView["stage"] | "none" | "invalid"; lease_ends?: string; grace_ends?: string; lapsed_at?: string }> {
    try {
      const secret = await this.state(text);
      const v = licenceView(effective ? await effective(secret).catch(() => secret) : secret, now);
      return { stage: v.stage, lease_ends: v.leaseEnds, grace_ends: v.graceEnds, ...(v.lapsedAt ? { lapsed_at: v.lapsedAt } : {}) };
    } catch (err) {
      return { stage: err instanceof LicenceRequired ? "none" : "invalid" };
    }
  }
}

/**
 * The request's engine: the tenant's, with this request's stores, clock and step 1's hook bound
 * to this licence — one object over the tenant's engine (what `withCounters(…).withClock(…)` and a
 * licence layer make in three, each a level more for every property read in the check). The view
 * is computed when the check runs, on the clock the session uses, so a lease that ends
 * mid-request is seen at once.
 */
export function requestEngine(engine: Engine, counters: CounterStore, state: SessionStateStore, now: () => Date, licence: LicenceState): Engine {
  const e = Object.create(engine) as Engine;
  const w = e as { counters?: CounterStore; state?: SessionStateStore; now: () => Date; licence: Engine["licence"] };
  w.counters = counters;
  w.state = state;
  w.now = now;
  w.licence = () => viewAt(licence, now());
  return e;
}

/** Each licence state's view for the stage it was last computed in (licenceViewSpan), frozen: every check reads the same object. */
const views = new WeakMap<LicenceState, { view: LicenceView; from: number; until: number }>();

function viewAt(state: LicenceState, now: Date): LicenceView {
  const t = now.getTime();
  const hit = views.get(state);
  if (hit && t >= hit.from && t < hit.until) return hit.view;
  const span = licenceViewSpan(state, now);
  Object.freeze(span.view.bundleDigests);
  views.set(state, { ...span, view: Object.freeze(span.view) });
  return span.view;
}

/**
 * The bundle digests the worker's decisions are made with (recorded in each check's detail). They
 * change only when the worker is given a new STALWART_LICENCE, never within a request.
 */
export function bundlesOf(state: LicenceState): Record<string, string> | undefined {
  const digests = state.bundles ?? state.lease.bundles;
  return digests && Object.keys(digests).length > 0 ? { ...digests } : undefined;
}
