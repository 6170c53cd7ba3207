/**
 * The check worker's routes (Hono). Runtime-agnostic: the Workers entry (index.ts) passes the
 * compiled WASM module and Durable Object stores; tests pass the Node core and memory stores and
 * drive it with `app.request()`. History stays with the caller: every session route takes the
 * saved session and answers with the next one, exactly as the SDK's `toJSON()` / `resume()`.
 * The worker runs under its installation's licence (`STALWART_LICENCE`, licence.ts / LICENCE.md):
 * without one every route but health and the OpenAPI document answers 503 `licence_required`.
 */
import { Hono, type Context } from "hono";
import { Engine } from "../../portable/engine/index.js";
import { Session, type SavedSession } from "../../portable/engine/index.js";
import type { Core } from "../../portable/engine/index.js";
import type { CompiledCatalogue } from "../../portable/engine/index.js";
import { loadCatalogue } from "../../portable/engine/index.js";
import { cfworkerCompiler } from "../../portable/engine/index.js";
import { CatalogueError, InputError, StalwartError } from "../../portable/engine/index.js";
import { toHex, utf8 } from "../../portable/engine/index.js";
import { OUTCOMES, type Outcome } from "../../portable/engine/index.js";
import { HttpError, errorBody, sendError } from "./http-errors.js";
import { field, isInt, isObject, isString, jsonBody, yamlBody } from "./body.js";
import { historySecret, parseKeys, tenantOf, type TenantConfig } from "./tenants.js";
import type { Stores } from "./stores.js";
import { openapi } from "./openapi.js";
import { rulebookFromText } from "../../portable/engine/index.js";
import type { CompiledRulebook } from "../../portable/engine/index.js";
import type { KeySet, LicenceState } from "../../portable/licensing/index.js";
import { WorkerLicenceCache, bundlesOf, withLicence } from "./licence.js";
import { LicenceRenewal, type LicenceStore, type RenewalEnv, type WaitUntil } from "./renewal.js";

export interface AppOptions {
  core: () => Core;
  stores: (env: unknown) => Stores;
  now?: () => Date;
  version?: string;
  /** the key set licences and leases must verify under; default: the one compiled into this build */
  trustedKeys?: KeySet;
  /** the fetch lease renewals use (renewal.ts); default: the global one */
  fetch?: typeof fetch;
  /** where renewed leases are shared between isolates (the LICENCE_STATE Durable Object); none: per isolate only */
  licenceStore?: (env: unknown, installationId: string) => LicenceStore | undefined;
}

type Env = { Bindings: TenantConfig & RenewalEnv & Record<string, unknown>; Variables: { tenant: string; licence: LicenceState } };

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function createApp(opts: AppOptions) {
  const app = new Hono<Env>();
  const engines = new Map<string, Engine>();
  const compiled = new Map<string, CompiledCatalogue>();
  // The clock of the request being handled. Tests of a local worker may set it with the
  // `x-stalwart-now` header, honoured only when the STALWART_TEST_CLOCK var is "1" (never in a
  // deployment). Set right before the synchronous session work, so no request sees another's.
  let requestNow: number | undefined;
  const now = () => (requestNow !== undefined ? new Date(requestNow) : opts.now ? opts.now() : new Date());
  function clockFor(c: Context<Env>): void {
    const header = c.req.header("x-stalwart-now");
    requestNow = undefined;
    if (header !== undefined && c.env?.STALWART_TEST_CLOCK === "1") {
      const t = Number(header);
      if (!Number.isFinite(t)) throw new HttpError(400, "invalid_request", "`x-stalwart-now` must be milliseconds since the epoch");
      requestNow = t;
    }
  }
  let secretSlot: { hex: string; slot: number } | undefined;
  const licences = new WorkerLicenceCache(opts.trustedKeys);
  const renewal = new LicenceRenewal({
    ...(opts.trustedKeys ? { keys: opts.trustedKeys } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.licenceStore ? { store: opts.licenceStore } : {}),
  });
  const wallNow = () => (opts.now ? opts.now() : new Date());

  /**
   * The licence this request answers under: the secret's, or a renewed lease that verifies the same
   * way and is newer (renewal.ts). Then, when due, a renewal starts in the background.
   */
  async function licenceOf(c: Context<Env>): Promise<LicenceState> {
    const env = (c.env ?? {}) as RenewalEnv;
    const secret = await licences.state(env.STALWART_LICENCE);
    const t = wallNow();
    const state = await renewal.effective(env, secret, t);
    let ctx: WaitUntil | undefined;
    try {
      ctx = c.executionCtx;
    } catch {
      ctx = undefined; // app.request() without an execution context
    }
    renewal.after(env, state, t, ctx);
    return state;
  }

  /** The tenant's engine: its history key is HMAC(secret, tenant), loaded once per isolate. */
  function engineFor(env: TenantConfig, tenant: string, licence: LicenceState): Engine {
    const core = opts.core();
    const secret = historySecret(env);
    const hex = toHex(secret);
    if (!secretSlot || secretSlot.hex !== hex) {
      secretSlot = { hex, slot: core.loadKey(secret) };
      engines.clear();
    }
    let engine = engines.get(tenant);
    if (!engine) {
      const key = core.hmac(secretSlot.slot, utf8(`stalwart-tenant-v1.${tenant}`));
      engine = new Engine({ core, key, schemaCompiler: cfworkerCompiler, now });
      engines.set(tenant, engine);
    }
    // Counter stubs belong to the request that made them; the engine (key slot) is per isolate.
    return withLicence(engine.withCounters(opts.stores(env).counters(tenant)), licence, now);
  }

  function compile(text: string, name: string): CompiledCatalogue {
    const core = opts.core();
    return loadCatalogue(text, { file: `${name}.yaml`, schemaCompiler: cfworkerCompiler, sha256: (b) => core.sha256(b) });
  }

  async function catalogueByDigest(c: Context<Env>, digest: string): Promise<CompiledCatalogue> {
    const tenant = c.get("tenant");
    const hit = compiled.get(`${tenant}\u0000${digest}`);
    if (hit) return hit;
    const stored = await opts.stores(c.env).catalogues(tenant).byDigest(digest);
    if (!stored) throw new HttpError(404, "catalogue_not_found", `no catalogue with digest \`${digest.slice(0, 16)}…\` for this tenant`, "/session/catalogue");
    const cat = compile(stored.yaml, stored.name);
    compiled.set(`${tenant}\u0000${digest}`, cat);
    return cat;
  }

  const rulebooks = new Map<string, CompiledRulebook>();
  async function rulebookByDigest(c: Context<Env>, digest: string): Promise<CompiledRulebook> {
    const tenant = c.get("tenant");
    const hit = rulebooks.get(`${tenant}\u0000${digest}`);
    if (hit) return hit;
    const stored = await opts.stores(c.env).catalogues(tenant).byDigest(digest);
    if (!stored || !stored.name.startsWith("rulebook:")) throw new HttpError(404, "rulebook_not_found", `no rulebook with digest \`${digest.slice(0, 16)}…\` for this tenant`, "/session/rulebook");
    const rb = compileRulebookText(stored.yaml, stored.name.slice(9));
    rulebooks.set(`${tenant}\u0000${digest}`, rb);
    return rb;
  }
  function compileRulebookText(text: string, name: string): CompiledRulebook {
    const core = opts.core();
    // YAML, CSV or a compiled registry's JSON, told apart by their text.
    return rulebookFromText(text, { file: name, sha256: (b) => core.sha256(b) });
  }

  async function resume(c: Context<Env>, body: Record<string, unknown>, adoptHeader = false): Promise<Session> {
    const saved = field(body, "session", isObject, "the session object a previous answer returned")! as unknown as SavedSession;
    if (typeof saved.catalogue !== "string") throw new HttpError(400, "session_invalid", "`session.catalogue` must be the catalogue digest", "/session/catalogue");
    if (!Array.isArray(saved.entries) || saved.entries.some((e) => typeof e !== "object" || e === null || Array.isArray(e))) {
      throw new HttpError(400, "session_invalid", "`session.entries` must be a list of entry objects", "/session/entries");
    }
    const catalogue = await catalogueByDigest(c, saved.catalogue);
    if (saved.rulebook !== undefined && saved.rulebook !== null && typeof saved.rulebook !== "string") throw new HttpError(400, "session_invalid", "`session.rulebook` must be a digest or null", "/session/rulebook");
    const rulebook = typeof saved.rulebook === "string" ? await rulebookByDigest(c, saved.rulebook) : undefined;
    const engine = engineFor(c.env, c.get("tenant"), c.get("licence"));
    clockFor(c);
    const opts = rulebook ? { rulebook } : {};
    try {
      return Session.resume(engine, catalogue, saved, opts);
    } catch (err) {
      // A check answers a session sealed by another key (another tenant's, or forged) with
      // `history_invalid` and a new history, as the SDK's next check would; other routes refuse it.
      if (!adoptHeader || !(err instanceof StalwartError) || err.code !== "SessionSealInvalid") throw err;
      return Session.untrusted(engine, catalogue, saved, "the session was not sealed with this key (another tenant's or installation's, or changed by hand)", opts);
    }
  }

  app.onError((err, c) => {
    if (err instanceof HttpError) return sendError(c, err);
    if (err instanceof CatalogueError) {
      return c.json(errorBody("catalogue_invalid", "the catalogue does not load", err.problems[0]?.pointer, { problems: err.problems }), 400);
    }
    if (err instanceof InputError) return c.json(errorBody("invalid_request", err.message, err.pointer ?? ""), 400);
    if (err instanceof StalwartError) {
      const status = err.code === "SessionSealInvalid" ? 400 : err.code === "CatalogueMismatch" ? 409 : err.code === "HistoryInvalid" ? 409 : 400;
      const code = err.code === "SessionSealInvalid" ? "session_invalid" : err.code === "HistoryInvalid" ? "history_invalid" : err.code === "CatalogueMismatch" ? "catalogue_not_found" : err.code;
      return c.json(errorBody(code, err.message), status);
    }
    // For the operator's log: a bug, not bad input. Nothing of the request is echoed back.
    console.error("stalwart-check internal error:", (err as Error)?.stack ?? String(err));
    return c.json(errorBody("internal_error", "the worker failed on this request; nothing was allowed"), 500);
  });
  app.notFound((c) => c.json(errorBody("not_found", `no route \`${c.req.method} ${new URL(c.req.url).pathname}\``), 404));

  app.get("/v1/health", async (c) => {
    let wasm = "ok";
    try {
      opts.core().sha256(new Uint8Array(0));
    } catch {
      wasm = "unavailable";
    }
    const licence = await licences.describe(c.env?.STALWART_LICENCE, wallNow(), (secret) => renewal.effective((c.env ?? {}) as RenewalEnv, secret, wallNow()));
    return c.json({ ok: wasm === "ok", service: "stalwart-check", version: opts.version ?? "0.1.0", wasm, licence });
  });
  app.get("/v1/openapi.json", (c) => c.json(openapi));

  // Everything below needs a key.
  app.use("/v1/*", async (c, next) => {
    c.set("tenant", tenantOf(c.req.header("authorization"), parseKeys(c.env?.STALWART_API_KEYS)));
    // The worker is a runtime: nothing is answered without its licence (licensing.md).
    c.set("licence", await licenceOf(c));
    await next();
  });

  app.put("/v1/catalogues/:name", async (c) => {
    const name = c.req.param("name");
    if (!NAME.test(name)) throw new HttpError(400, "invalid_request", "a catalogue name is 1–64 letters, digits, `.`, `_` or `-`", "/name");
    const yaml = await yamlBody(c);
    const cat = compile(yaml, name);
    const tenant = c.get("tenant");
    await opts.stores(c.env).catalogues(tenant).put({ name, digest: cat.digest, yaml });
    compiled.set(`${tenant}\u0000${cat.digest}`, cat);
    return c.json({ name, digest: cat.digest, tools: [...cat.tools.keys()] });
  });

  app.get("/v1/catalogues/:name", async (c) => {
    const stored = await opts.stores(c.env).catalogues(c.get("tenant")).byName(c.req.param("name"));
    if (!stored) throw new HttpError(404, "catalogue_not_found", `no catalogue named \`${c.req.param("name")}\``);
    return c.json(stored);
  });

  app.put("/v1/rulebooks/:name", async (c) => {
    const name = c.req.param("name");
    if (!NAME.test(name)) throw new HttpError(400, "invalid_request", "a rulebook name is 1–64 letters, digits, `.`, `_` or `-`", "/name");
    const text = await yamlBody(c, true);
    const rb = compileRulebookText(text, name);
    const tenant = c.get("tenant");
    await opts.stores(c.env).catalogues(tenant).put({ name: `rulebook:${name}`, digest: rb.digest, yaml: text });
    rulebooks.set(`${tenant}\u0000${rb.digest}`, rb);
    return c.json({ name, digest: rb.digest, rules: rb.rules.length });
  });

  app.post("/v1/sessions", async (c) => {
    const body = await jsonBody(c);
    const catName = field(body, "catalogue", isString, "the name of a registered catalogue")!;
    const name = field(body, "name", isString, "the session's name")!;
    const language = field(body, "language", isString, "`en` or `pt-BR`", true);
    const context = field(body, "context", isObject, "an object", true);
    const agent = field(body, "agent", isString, "an agent name", true);
    const rulebookName = field(body, "rulebook", isString, "the name of a registered rulebook", true);
    const taint = field(body, "taint_model_after_untrusted", (v): v is boolean => typeof v === "boolean", "true or false", true);
    const stored = await opts.stores(c.env).catalogues(c.get("tenant")).byName(catName);
    if (!stored) throw new HttpError(404, "catalogue_not_found", `no catalogue named \`${catName}\`; register it with PUT /v1/catalogues/${catName}`, "/catalogue");
    const catalogue = await catalogueByDigest(c, stored.digest);
    let rulebook: CompiledRulebook | undefined;
    if (rulebookName !== undefined) {
      const rb = await opts.stores(c.env).catalogues(c.get("tenant")).byName(`rulebook:${rulebookName}`);
      if (!rb) throw new HttpError(404, "rulebook_not_found", `no rulebook named \`${rulebookName}\`; register it with PUT /v1/rulebooks/${rulebookName}`, "/rulebook");
      rulebook = await rulebookByDigest(c, rb.digest);
    }
    clockFor(c);
    const session = new Session(engineFor(c.env, c.get("tenant"), c.get("licence")), name, catalogue, {
      ...(language ? { language: language as never } : {}),
      ...(context ? { context } : {}),
      ...(agent ? { agent } : {}),
      ...(taint ? { taintModelAfterUntrusted: true } : {}),
      ...(rulebook ? { rulebook } : {}),
    });
    return c.json({ session: session.toJSON(false) }, 201);
  });

  app.post("/v1/sessions/read", async (c) => {
    const body = await jsonBody(c);
    const text = field(body, "text", isString, "the person's turn, a string")!;
    const session = await resume(c, body);
    const { step } = await session.read(text);
    return c.json({ step, session: session.toJSON(false) });
  });

  app.post("/v1/check", async (c) => {
    const body = await jsonBody(c);
    const tool = field(body, "tool", isString, "a tool name")!;
    if (!("args" in body)) throw new HttpError(400, "invalid_request", "`args` is required (an object)", "/args");
    const options = field(body, "options", isObject, "an object", true) ?? {};
    // A session sealed by another key (another tenant's, or a forged one) is not an error here:
    // the check refuses it `history_invalid` and starts a new history, as the SDK does.
    const session = await resume(c, body, true);
    const check = await session.checkToolCall(tool, body.args, options);
    const bundles = bundlesOf(c.get("licence"));
    if (bundles) check.detail.bundles = bundles;
    return c.json({ check, session: session.toJSON(false) });
  });

  app.post("/v1/report", async (c) => {
    const body = await jsonBody(c);
    const step = field(body, "step", isInt, "the step number a check returned")!;
    const outcome = field(body, "outcome", (v): v is Outcome => OUTCOMES.includes(v as Outcome), OUTCOMES.join(" | "))!;
    const session = await resume(c, body);
    const r = await session.report(step, outcome, body.result);
    return c.json({ step: r.step, session: session.toJSON(false) });
  });

  app.post("/v1/filter", async (c) => {
    const body = await jsonBody(c);
    const step = field(body, "step", isInt, "the step number of an allowed read")!;
    if (!("result" in body)) throw new HttpError(400, "invalid_request", "`result` is required: what the read returned", "/result");
    const session = await resume(c, body);
    const out = await session.filter(step, body.result);
    return c.json(out);
  });

  app.post("/v1/plan", async (c) => {
    const body = await jsonBody(c);
    const kind = field(body, "kind", (v): v is "undo" | "follow" | "judge" => v === "undo" || v === "follow" || v === "judge", "`undo`, `follow` or `judge`")!;
    const tool = field(body, "tool", isString, "a tool name")!;
    const session = await resume(c, body);
    const args = (isObject(body.args) ? body.args : {}) as Record<string, unknown>;
    if (kind === "undo") return c.json({ plan: session.planUndo(tool, args, body.result) });
    if (kind === "follow") return c.json({ plan: session.planFollow(tool, field(body, "step", isInt, "a step number")!, args, body.result) });
    return c.json({ plan: session.judgeOutcome(tool, body.result) });
  });

  app.all("/v1/*", (c) => c.json(errorBody("not_found", `no route \`${c.req.method} ${new URL(c.req.url).pathname}\``), 404));
  return app;
}
