/**
 * What the check worker's routes share within one isolate: the tenants' engines (one key slot
 * each, the most recently used 384), the compiled catalogues and rulebooks, the licence and its renewal. Everything that
 * belongs to one request — the tenant, the licence in force, the clock — comes from the request's
 * context (env.ts), never from here.
 */
import type { Context } from "hono";
import { Engine, Session, assertSealedHere, cfworkerCompiler, loadCatalogue, rulebookFromText, toHex, utf8 } from "../../portable/engine/index.js";
import type { CompiledCatalogue, CompiledRulebook, Core, Head } from "../../portable/engine/index.js";
import type { LicenceState } from "../../portable/licensing/index.js";
import { HttpError } from "../http/errors.js";
import { Compiled } from "./compiled.js";
import type { AppOptions, CarriedForms, CheckEnv } from "./env.js";
import { WorkerLicenceCache, requestEngine } from "./licence.js";
import { LicenceRenewal, type RenewalEnv, type WaitUntil } from "./renewal.js";
import type { SessionShape } from "./session-shape.js";
import type { Stores } from "./stores.js";
import { historySecret, type TenantConfig } from "./tenants.js";
import { VerifiedHeads, type HeldPrefix } from "./verified-heads.js";
import { answerOf, expand, SESSION_FORMS, SESSION_FORMS_HEADER, type FullSession } from "./carried.js";

type C = Context<CheckEnv>;

/**
 * Tenants' engines kept per isolate: well under the core's 1,024 key slots, which the approvals'
 * keys (approvals-store.ts, as many again at most) and the history secret share.
 */
const ENGINES = 384;

export class CheckRuntime {
  readonly catalogues: Compiled<CompiledCatalogue>;
  readonly rulebooks: Compiled<CompiledRulebook>;
  readonly licences: WorkerLicenceCache;
  private readonly renewal: LicenceRenewal;
  private readonly engines = new Map<string, Engine>();
  private secretSlot: { text: string | undefined; slot: number } | undefined;
  /** what this isolate verified of each session (verified-heads.ts) */
  private readonly verified = new VerifiedHeads();

  /** SHA-256 of a text, hex, on the WASM core */
  readonly sha256Hex: (text: string) => string;

  constructor(private readonly opts: AppOptions & { maxBodyBytes: number }) {
    const hash = (text: string) => toHex(opts.core().sha256Text(text));
    this.sha256Hex = hash;
    this.catalogues = new Compiled(hash);
    this.rulebooks = new Compiled(hash);
    this.licences = new WorkerLicenceCache(opts.trustedKeys);
    this.renewal = new LicenceRenewal({
      ...(opts.trustedKeys ? { keys: opts.trustedKeys } : {}),
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      ...(opts.licenceStore ? { store: opts.licenceStore } : {}),
    });
  }

  core(): Core {
    return this.opts.core();
  }

  stores(c: C): Stores {
    return this.opts.stores(c.env);
  }

  /** The wall clock: licences and leases are judged on it, never on a test's request clock. */
  wallNow(): Date {
    return this.opts.now ? this.opts.now() : new Date();
  }

  /** The request clock when the request does not set one (clock.ts). */
  defaultNow(): () => Date {
    return this.opts.now ?? (() => new Date());
  }

  /**
   * The licence this request answers under: the secret's, or a renewed lease that verifies the
   * same way and is newer (renewal.ts). Then, when due, a renewal starts in the background.
   */
  async licenceOf(c: C): Promise<LicenceState> {
    const env: RenewalEnv = c.env ?? {};
    const secret = await this.licences.state(env.STALWART_LICENCE);
    const t = this.wallNow();
    const state = await this.renewal.effective(env, secret, t);
    let ctx: WaitUntil | undefined;
    try {
      ctx = c.executionCtx;
    } catch {
      ctx = undefined; // app.request() without an execution context
    }
    this.renewal.after(env, state, t, ctx);
    return state;
  }

  /**
   * For health: the licence stage, or why there is none. Never throws. The stage is judged at the
   * request's clock, as a check judges it (outside audit 14, F5); the lease renewed on the wall clock.
   */
  describeLicence(c: C) {
    const env: RenewalEnv = c.env ?? {};
    const now = c.get("now") ?? this.defaultNow();
    return this.licences.describe(env.STALWART_LICENCE, now(), (secret) => this.renewal.effective(env, secret, this.wallNow()));
  }

  /**
   * The request's engine: the tenant's (its history key is HMAC(secret, tenant), loaded once per
   * isolate) with this request's counters, session state, clock and licence. A Durable Object stub belongs to the
   * request that made it. `carried`: the session a request resumes and its history's head.
   */
  engineFor(c: C, carried?: { id: unknown; head: Head }): Engine {
    const now = c.get("now");
    const engine = this.tenantEngine(c);
    const tenant = c.get("tenant");
    const stores = this.stores(c);
    const head = carried && ((session: string) => (session === carried.id ? carried.head : undefined));
    return requestEngine(engine, stores.counters(tenant), stores.state(tenant, head), now, c.get("licence"));
  }

  /** The tenant's engine for this isolate (its history key), without the request's parts. */
  private tenantEngine(c: C): Engine {
    const tenant = c.get("tenant");
    const env: TenantConfig = c.env ?? {};
    const core = this.core();
    // the secret's text is parsed (and its key slot loaded) once per value, not on each of a
    // request's three lookups: a changed secret (rotation) still makes new engines
    const text = env.STALWART_HISTORY_SECRET;
    if (!this.secretSlot || this.secretSlot.text !== text) {
      const secret = historySecret(env);
      const slot = core.loadKey(secret);
      if (this.secretSlot) core.releaseKey(this.secretSlot.slot);
      this.secretSlot = { text, slot };
      for (const e of this.engines.values()) e.releaseKey();
      this.engines.clear();
    }
    let engine = this.engines.get(tenant);
    if (engine) {
      // most recently used last: the first is the one to drop
      this.engines.delete(tenant);
      this.engines.set(tenant, engine);
      return engine;
    }
    // The core has a fixed number of key slots, one per engine: past ENGINES tenants an isolate
    // drops its least recently used engine and lets its slot go (outside audit 6, F2: tenant
    // 1,024 and every later one were answered 503 wasm_key_slots_full for the isolate's life).
    if (this.engines.size >= ENGINES) {
      const [oldest, dropped] = this.engines.entries().next().value!;
      this.engines.delete(oldest);
      dropped.releaseKey();
    }
    const key = core.hmac(this.secretSlot.slot, utf8(`stalwart-tenant-v1.${tenant}`));
    engine = new Engine({ core, key, schemaCompiler: cfworkerCompiler });
    this.engines.set(tenant, engine);
    return engine;
  }

  compileCatalogue(text: string, name: string): CompiledCatalogue {
    const core = this.core();
    return loadCatalogue(text, { file: `${name}.yaml`, schemaCompiler: cfworkerCompiler, sha256: (b) => core.sha256(b) });
  }

  /**
   * YAML, CSV or a compiled registry's JSON. `format`: what it was uploaded as; without it (a
   * rulebook stored before the format was kept) the name's ending, else the text, decides.
   */
  compileRulebook(text: string, name: string, format?: "yaml" | "csv"): CompiledRulebook {
    const core = this.core();
    return rulebookFromText(text, { file: name, ...(format ? { format } : {}), sha256: (b) => core.sha256(b) });
  }

  async catalogueByDigest(c: C, digest: string): Promise<CompiledCatalogue> {
    const tenant = c.get("tenant");
    const hit = this.catalogues.get(tenant, digest);
    if (hit) return hit;
    const stored = await this.stores(c).catalogues(tenant).byDigest(digest);
    if (!stored) throw new HttpError("catalogue_not_found", `no catalogue with digest \`${digest.slice(0, 16)}…\` for this tenant`, "/session/catalogue");
    return this.catalogues.fromText(tenant, stored.yaml, (text) => this.compileCatalogue(text, stored.name));
  }

  async rulebookByDigest(c: C, digest: string): Promise<CompiledRulebook> {
    const tenant = c.get("tenant");
    const hit = this.rulebooks.get(tenant, digest);
    if (hit) return hit;
    const stored = await this.stores(c).catalogues(tenant).byDigest(digest);
    if (!stored || !stored.name.startsWith(RULEBOOK)) throw new HttpError("rulebook_not_found", `no rulebook with digest \`${digest.slice(0, 16)}…\` for this tenant`, "/session/rulebook");
    return this.rulebooks.fromText(tenant, stored.yaml, (text) => this.compileRulebook(text, stored.name.slice(RULEBOOK.length), stored.format), stored.format);
  }

  /**
   * The session a request carries, resumed. A header that does not verify (changed by hand, or
   * sealed under another tenant's key) is SessionSealInvalid, 400 `session_invalid`, on every route.
   */
  async resume(c: C, carried: SessionShape): Promise<Session> {
    const held = typeof carried.id === "string" ? this.verified.get(this.tenantEngine(c), carried.id) : undefined;
    // the delta form's first entries put back (or 409 session_history_needed), before any lookup
    const saved = expand(carried, held, this.opts.maxBodyBytes, carried.since === undefined ? 0 : (await c.req.arrayBuffer()).byteLength);
    const { catalogue, rulebook } = await this.lookupsOf(c, saved);
    const engine = this.engineFor(c, { id: saved.id, head: headOf(saved.entries) });
    const opts = { ...(rulebook ? { rulebook } : {}), ...(held ? { known: held } : {}), ...(held?.sealed ? { sealed: held.sealed } : {}), ...(held?.headSeal !== undefined ? { knownHead: held.headSeal } : {}) };
    const s = Session.resume(engine, catalogue, saved, opts);
    carriedOf(c).set(s, { saved: carried, held });
    return s;
  }

  /**
   * The catalogue and rulebook a carried session names. One this tenant does not hold is 404 only
   * for the tenant's own session: another tenant's is `session_invalid`, whatever this tenant
   * holds (outside audit 14, F6). The seal is made only then, not on every request.
   */
  private async lookupsOf(c: C, saved: FullSession): Promise<{ catalogue: CompiledCatalogue; rulebook: CompiledRulebook | undefined }> {
    try {
      const catalogue = await this.catalogueByDigest(c, saved.catalogue);
      const rulebook = typeof saved.rulebook === "string" ? await this.rulebookByDigest(c, saved.rulebook) : undefined;
      return { catalogue, rulebook };
    } catch (err) {
      const engine = this.tenantEngine(c);
      assertSealedHere((text) => engine.macText(text), saved);
      throw err;
    }
  }

  /**
   * The answer's JSON: `fields`, then the next session in the form the request used (carried.ts);
   * what the session verified and signed is kept for its next request (verified-heads.ts).
   */
  reply(c: C, s: Session, fields: Record<string, unknown>, status: 200 | 201 = 200): Response {
    const from = c.get("carried")?.get(s);
    const prefix = s.verifiedPrefix();
    const answer = answerOf(s, from?.saved, from?.held, prefix);
    this.verified.remember(this.tenantEngine(c), prefix, answer.bytes, answer.sealed, answer.head);
    const head = JSON.stringify(fields);
    const text = head.length > 2 ? `${head.slice(0, -1)},"session":${answer.text}}` : `{"session":${answer.text}}`;
    return c.body(text, status, { "content-type": "application/json", [SESSION_FORMS_HEADER]: SESSION_FORMS });
  }
}

/**
 * Each session a request resumed, with its request form and what this isolate held of it then
 * (carried.ts), kept with the request: a WeakMap of the runtime's, which outlives every request,
 * had V8's young collector keep each request's carried session (the young collector keeps a
 * long-lived WeakMap's value while its key is young) until a full collection.
 */
function carriedOf(c: C): CarriedForms {
  let m = c.get("carried");
  if (!m) c.set("carried", (m = new Map()));
  return m;
}

/** The head a carried history claims (its length and last link); the engine verifies it. */
function headOf(entries: readonly unknown[]): Head {
  const n = entries.length;
  const last = n > 0 ? (entries[n - 1] as { link?: unknown } | undefined) : undefined;
  return { count: n, link: typeof last?.link === "string" ? last.link : "" };
}

/** Rulebooks share the catalogue store under this name prefix (STORAGE.md). */
export const RULEBOOK = "rulebook:";
