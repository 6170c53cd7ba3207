/**
 * The check worker renews its own lease (LICENCE.md, "Renewal"; licensing.md, "Activation, lease,
 * grace, release"). Optional: only with `STALWART_INSTALLATION_KEY` (the installation's Ed25519
 * private key, a Workers secret) and `STALWART_LICENCE_URL`; without them the worker holds the
 * secret's lease exactly as before.
 *
 * The first answer in an isolate, and any answer once the lease in use is past half its term (at
 * most one attempt a minute per isolate), start one signed `POST /v1/licences/refresh` in the
 * background. It never fails or delays a request. The answer is verified exactly like the
 * secret's — the trusted key set, this licence, this installation, its key and activation, and a
 * lease newer than the one in use — then kept in the isolate and in the `LicenceStateObject`
 * (STORAGE.md), which other isolates read at most once a minute. A revocation answer
 * (`licence_revoked` / `licence_expired`) records `revoked_at` and the licence lapses; any other
 * failure (unreachable, 5xx, a forged or foreign answer) changes nothing: the last lease holds
 * through its term and then the grace.
 */
import {
  fromBase64Url,
  publicKeyOf,
  signRequest,
  toBase64Url,
  expectationOf,
  verifyLicenceAndLease,
  TRUSTED_KEYS,
  type KeySet,
  type LeasePayload,
  type LicencePayload,
  type LicenceState,
  type SignedDocument,
} from "../../portable/licensing/index.js";
import { WorkerLicenceCache, type WorkerLicence } from "./licence.js";

/** Where renewed leases are shared between isolates (a Durable Object in a deployment). */
export interface LicenceStore {
  /** The stored worker licence JSON, or undefined. */
  get(): Promise<string | undefined>;
  /** Keep `doc` if it ranks above the stored one (higher lease seq; at equal seq, revoked). */
  put(doc: string, seq: number, revoked: boolean): Promise<void>;
}

/** An in-memory store (tests; one value shared by every app given the same store). */
export function memoryLicenceStore(): LicenceStore & { value: string | undefined } {
  let best: { seq: number; revoked: boolean } | undefined;
  const store = {
    value: undefined as string | undefined,
    async get() {
      return store.value;
    },
    async put(doc: string, seq: number, revoked: boolean) {
      if (best && !(seq > best.seq || (seq === best.seq && revoked && !best.revoked))) return;
      best = { seq, revoked };
      store.value = doc;
    },
  };
  return store;
}

export interface RenewalEnv {
  STALWART_LICENCE?: string;
  STALWART_INSTALLATION_KEY?: string;
  STALWART_LICENCE_URL?: string;
}

export interface WaitUntil {
  waitUntil(p: Promise<unknown>): void;
}

/** Per isolate: how often the shared store is read, and how often a renewal may be attempted. */
const STORE_READ_MS = 60_000;
const RETRY_MS = 60_000;

const STOPPING = new Set(["licence_revoked", "licence_expired"]);

const rank = (s: LicenceState): [number, number] => [s.lease.seq, s.revokedAt !== undefined ? 1 : 0];
const above = (a: LicenceState, b: LicenceState): boolean => {
  const [x, y] = [rank(a), rank(b)];
  return x[0] > y[0] || (x[0] === y[0] && x[1] > y[1]);
};

export class LicenceRenewal {
  /** The best renewed licence this isolate knows (the secret's identity, the service's documents). */
  private renewed: string | undefined;
  private readonly renewedCache: WorkerLicenceCache;
  private readAt = -Infinity;
  private attemptAt = -Infinity;
  private started = false;
  private inflight: Promise<void> | undefined;
  private warned = new Set<string>();

  constructor(
    private readonly opts: {
      keys?: KeySet;
      fetch?: typeof fetch;
      store?: (env: unknown, installationId: string) => LicenceStore | undefined;
    } = {},
  ) {
    this.renewedCache = new WorkerLicenceCache(opts.keys ?? TRUSTED_KEYS);
  }

  static configured(env: RenewalEnv | undefined): boolean {
    return !!env?.STALWART_INSTALLATION_KEY && !!env?.STALWART_LICENCE_URL;
  }

  /**
   * The state to answer with: the secret's, or a renewed one if it verifies as this installation's
   * and is newer. Reads the shared store at most once a minute; a failed read changes nothing.
   */
  async effective(env: RenewalEnv, secret: LicenceState, now: Date): Promise<LicenceState> {
    if (!LicenceRenewal.configured(env)) return secret;
    const doc = this.parsed(env.STALWART_LICENCE!);
    const store = this.opts.store?.(env, doc.installation_id);
    if (store && now.getTime() - this.readAt >= STORE_READ_MS) {
      this.readAt = now.getTime();
      try {
        const text = await store.get();
        if (text) await this.consider(doc, text);
      } catch (err) {
        this.warn("store", `the licence state object could not be read: ${(err as Error)?.message ?? err}`);
      }
    }
    const renewed = await this.verified(doc);
    return renewed && above(renewed, secret) ? renewed : secret;
  }

  /**
   * After the state is chosen: start a renewal in the background when this is the isolate's first
   * answer or the lease in use is past half its term. Never throws, never awaited by the request.
   */
  after(env: RenewalEnv, state: LicenceState, now: Date, ctx: WaitUntil | undefined): void {
    if (!LicenceRenewal.configured(env) || this.inflight) return;
    const t = now.getTime();
    const issued = Date.parse(state.lease.issued_at);
    const half = issued + (Date.parse(state.lease.expires_at) - issued) / 2;
    const due = !this.started || t >= half;
    if (!due || t - this.attemptAt < RETRY_MS) return;
    if (state.revokedAt !== undefined) return; // revoked: nothing to renew
    this.started = true;
    this.attemptAt = t;
    const job = this.renew(env, state, now)
      .catch((err) => this.warn("renew", `lease renewal failed: ${(err as Error)?.message ?? err}`))
      .finally(() => {
        this.inflight = undefined;
      });
    this.inflight = job;
    try {
      ctx?.waitUntil(job);
    } catch {
      // no execution context: the promise runs on its own
    }
  }

  /** The renewal running in this isolate, if any (tests). */
  get pending(): Promise<void> | undefined {
    return this.inflight;
  }

  private async renew(env: RenewalEnv, state: LicenceState, now: Date): Promise<void> {
    const doc = this.parsed(env.STALWART_LICENCE!);
    const secretKey = fromBase64Url(env.STALWART_INSTALLATION_KEY!.trim());
    if (!secretKey || secretKey.length !== 32) throw new Error("STALWART_INSTALLATION_KEY is not 32 bytes of base64url");
    if (toBase64Url(await publicKeyOf(secretKey)) !== doc.public_key) throw new Error("STALWART_INSTALLATION_KEY is not the key of the installation in STALWART_LICENCE");
    const path = "/v1/licences/refresh";
    const body = "{}";
    const headers = await signRequest({ method: "POST", path, body, licenceId: doc.licence_id, installationId: doc.installation_id, secretKey, now });
    const url = env.STALWART_LICENCE_URL!.replace(/\/+$/, "") + path;
    const res = await (this.opts.fetch ?? fetch)(url, { method: "POST", headers: { ...headers, "content-type": "application/json" }, body });
    const payload = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) {
      const code = (payload as { error?: { code?: string } }).error?.code ?? `http_${res.status}`;
      if (!STOPPING.has(code)) throw new Error(`the licence service answered ${res.status} ${code}`);
      // The licence was revoked or has expired: it lapses from now on (fail-closed).
      const current = this.docOf(doc, state);
      await this.adopt(env, doc, { ...current, revoked_at: now.toISOString() });
      return;
    }
    const answer = payload as { licence?: SignedDocument<LicencePayload>; lease?: SignedDocument<LeasePayload> };
    const keys = this.opts.keys ?? TRUSTED_KEYS;
    const v = await verifyLicenceAndLease(answer, keys, expectationOf(doc, state.lease.seq + 1));
    if (!v.ok) throw new Error(`the renewed ${v.document} does not verify: ${v.detail} (${v.reason})`);
    const next: WorkerLicence = { ...doc, licence: answer.licence!, lease: answer.lease! };
    delete next.revoked_at;
    await this.adopt(env, doc, next);
  }

  /** The worker licence JSON of a state (the secret's identity, the state's documents). */
  private docOf(secret: WorkerLicence, state: LicenceState): WorkerLicence {
    if (this.renewed) {
      const r = this.parsed(this.renewed);
      if (r.lease.payload.seq === state.lease.seq) return r;
    }
    return secret;
  }

  /** Keep a renewed licence in this isolate (if it verifies and ranks higher) and in the store. */
  private async adopt(env: RenewalEnv, secret: WorkerLicence, next: WorkerLicence): Promise<void> {
    const text = JSON.stringify(next);
    const state = await this.consider(secret, text);
    if (!state) throw new Error("the renewed licence does not verify");
    const store = this.opts.store?.(env, secret.installation_id);
    if (store) await store.put(text, state.lease.seq, state.revokedAt !== undefined);
  }

  /** Verify a renewed licence against the secret's installation; keep it if it ranks higher. */
  private async consider(secret: WorkerLicence, text: string): Promise<LicenceState | undefined> {
    let other: WorkerLicence;
    try {
      other = JSON.parse(text) as WorkerLicence;
    } catch {
      return undefined;
    }
    // The secret's identity, the other's documents: it verifies exactly as the secret does.
    const bound: WorkerLicence = { ...secret, licence: other.licence, lease: other.lease };
    if (typeof other.revoked_at === "string") bound.revoked_at = other.revoked_at;
    else delete bound.revoked_at;
    const boundText = JSON.stringify(bound);
    let state: LicenceState;
    try {
      state = await this.renewedCache.state(boundText);
    } catch {
      return undefined;
    }
    const mine = await this.verified(secret);
    if (!mine || above(state, mine)) this.renewed = boundText;
    return state;
  }

  private async verified(secret: WorkerLicence): Promise<LicenceState | undefined> {
    if (!this.renewed) return undefined;
    const r = this.parsed(this.renewed);
    if (r.installation_id !== secret.installation_id || r.public_key !== secret.public_key || r.licence_id !== secret.licence_id || r.activation_id !== secret.activation_id) return undefined;
    try {
      return await this.renewedCache.state(this.renewed);
    } catch {
      return undefined;
    }
  }

  /**
   * A worker licence's JSON, parsed once per text (the secret's, the renewed one's): with renewal
   * configured every request reads both, ~1.3 KB each. The documents are only ever copied, never
   * changed. A text that is not JSON throws, as JSON.parse does (the secret's was verified first).
   */
  private parsed(text: string): WorkerLicence {
    let doc = this.parsedDocs.get(text);
    if (!doc) {
      doc = JSON.parse(text) as WorkerLicence;
      if (this.parsedDocs.size >= 4) this.parsedDocs.clear();
      this.parsedDocs.set(text, doc);
    }
    return doc;
  }
  private readonly parsedDocs = new Map<string, WorkerLicence>();

  private warn(kind: string, message: string): void {
    const key = `${kind}:${message}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    console.warn(`stalwart-check licence: ${message}`);
  }
}
