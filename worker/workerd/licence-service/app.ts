/**
 * The licence service (licensing.md, "Service endpoints"): a Hono app over two Durable Object
 * namespaces. This file only routes, authenticates and validates; the state and every
 * check-then-write live in the objects (licence-object.ts, directory-object.ts).
 *
 * Every refusal is a 4xx `{error: {code, message, pointer?, hint?}}`; a malformed request never
 * reaches an object and never gets a 500.
 */
import { Hono, type Context } from "hono";
import {
  fromBase64Url,
  isBundleKind,
  isPlanName,
  parseSigningKeys,
  publicEntry,
  randomId,
  sha256Hex,
  timingSafe,
  HEADER,
  BUNDLE_KINDS,
  DAY_MS,
  type PublicKeyEntry,
  type RequestParts,
} from "./deps.js";
import { DIRECTORY_NAME, type KeyGrant } from "./directory-object.js";
import type { Env } from "./env.js";
import { bad, errorResponse, ServiceError } from "./errors.js";
import { callObject } from "./rpc.js";

type C = Context<{ Bindings: Env }>;

const MAX_BODY = 64 * 1024;
const INSTALLATION_ID = /^inst_[A-Za-z0-9_-]{16,64}$/;
const LICENCE_ID = /^lic_[A-Za-z0-9_-]{16,64}$/;
const ORG_ID = /^org_[A-Za-z0-9_-]{16,64}$/;

export function createApp(): Hono<{ Bindings: Env }> {
  const app = new Hono<{ Bindings: Env }>();

  app.onError((err) => {
    if (err instanceof ServiceError) return errorResponse(err);
    return errorResponse(new ServiceError(500, "internal_error", "the licence service failed unexpectedly"));
  });
  app.notFound((c) => errorResponse(new ServiceError(404, "not_found", `no route \`${c.req.method} ${new URL(c.req.url).pathname}\``, undefined, "see licensing.md, \"Service endpoints\"")));

  app.get("/health", (c) => c.json({ ok: true, service: "stalwart-licence" }));

  // -- no key --------------------------------------------------------------------------------------
  app.get("/v1/licences/keys", async (c) => c.json({ keys: await publishedKeys(c.env) }));

  // -- API key -------------------------------------------------------------------------------------
  app.post("/v1/licences/activate", async (c) => {
    const grant = await apiKey(c);
    const body = await jsonBody(c);
    const installation_id = field(body, "installation_id", (v) => typeof v === "string" && INSTALLATION_ID.test(v), "`installation_id` must be `inst_` and 16–64 base64url characters");
    const public_key = field(body, "public_key", isPublicKey, "`public_key` must be a 32-byte Ed25519 key, base64url");
    const bundles = await digests(c.env);
    return c.json(await callObject(c.env.LICENCES, grant.licence_id, "activate", { installation_id, public_key, bundles }), 201);
  });

  app.get("/v1/licences", async (c) => {
    const grant = await apiKey(c);
    return c.json(await callObject(c.env.LICENCES, grant.licence_id, "status", {}));
  });

  app.post("/v1/licences/offline", async (c) => {
    const grant = await apiKey(c);
    const body = await jsonBody(c);
    // Accept `{request: <file>}` or the activation-request.json contents as they are.
    const request = (body as { type?: unknown }).type === "activation_request" ? body : (body as { request?: unknown }).request;
    if (request === undefined) throw bad("expected `{request: <activation-request.json>}`", "/request", "post the file `stalwart licence request` wrote");
    const bundles = await digests(c.env);
    const answer = await callObject<Record<string, unknown>>(c.env.LICENCES, grant.licence_id, "offline", { request, bundles });
    return c.json({ v: 1, type: "activation_answer", ...answer }, 201);
  });

  app.get("/v1/account", async (c) => {
    const grant = await apiKey(c);
    return c.json(await callObject(c.env.LICENCES, grant.licence_id, "account", {}));
  });

  // -- installation signature ------------------------------------------------------------------------
  app.post("/v1/licences/refresh", async (c) => {
    const { call, body } = await signed(c);
    const usage = (body as { usage?: unknown }).usage;
    return c.json(await callObject(c.env.LICENCES, call.parts.licenceId, "refresh", { ...call, usage: usage ?? null, bundles: await digests(c.env) }));
  });

  app.post("/v1/licences/release", async (c) => {
    const { call } = await signed(c);
    return c.json(await callObject(c.env.LICENCES, call.parts.licenceId, "release", call));
  });

  app.get("/v1/bundles/:kind", async (c) => {
    const kind = c.req.param("kind");
    if (!isBundleKind(kind)) throw new ServiceError(404, "unknown_bundle_kind", `no bundle kind \`${kind}\``, "/kind", `the kinds are ${BUNDLE_KINDS.join(", ")}`);
    const { call } = await signed(c);
    const b = await callObject<{ content: string; digest: string }>(c.env.DIRECTORY, DIRECTORY_NAME, "get_bundle", { kind });
    const sealed = await callObject(c.env.LICENCES, call.parts.licenceId, "bundle", { ...call, kind, content: b.content });
    return c.json(sealed, 200, { etag: `"${b.digest}"` });
  });

  app.post("/v1/usage-reports", async (c) => {
    const { call, body } = await signed(c);
    return c.json(await callObject(c.env.LICENCES, call.parts.licenceId, "usage", { ...call, report: body }));
  });

  // -- admin (bearer LICENCE_ADMIN_SECRET) --------------------------------------------------------
  app.use("/admin/*", async (c, next) => {
    const secret = c.env.LICENCE_ADMIN_SECRET;
    if (!secret) throw new ServiceError(403, "admin_disabled", "the admin routes are off: `LICENCE_ADMIN_SECRET` is not set");
    const given = bearer(c) ?? "";
    if (!(await timingSafe(given, secret))) throw new ServiceError(401, "admin_required", "the admin routes need `Authorization: Bearer <LICENCE_ADMIN_SECRET>`");
    await next();
  });

  app.post("/admin/organisations", async (c) => {
    const body = await jsonBody(c);
    return c.json(await createOrg(c.env, body), 201);
  });

  app.post("/admin/licences", async (c) => {
    const body = await jsonBody(c);
    return c.json(await createLicence(c.env, body), 201);
  });

  app.post("/admin/api-keys", async (c) => {
    const body = await jsonBody(c);
    return c.json(await createKey(c.env, body), 201);
  });

  app.post("/admin/licences/:id/revoke", async (c) => {
    const id = c.req.param("id");
    if (!LICENCE_ID.test(id)) throw bad("not a licence id", "/id");
    return c.json(await callObject(c.env.LICENCES, id, "revoke", {}));
  });

  app.put("/admin/bundles/:kind", async (c) => {
    const kind = c.req.param("kind");
    if (!isBundleKind(kind)) throw new ServiceError(404, "unknown_bundle_kind", `no bundle kind \`${kind}\``, "/kind");
    const body = await jsonBody(c);
    const content = field(body, "content", (v) => typeof v === "string" && v.length <= MAX_BODY - 1024, "`content` must be a string");
    return c.json(await callObject(c.env.DIRECTORY, DIRECTORY_NAME, "put_bundle", { kind, content }));
  });

  /** One call for scripts and tests: an organisation, a licence on a plan, and an API key. */
  app.post("/admin/bootstrap", async (c) => {
    const body = await jsonBody(c);
    const org = await createOrg(c.env, { name: (body as { org_name?: unknown }).org_name ?? "organisation", on_licence_lapse: (body as { on_licence_lapse?: unknown }).on_licence_lapse });
    const lic = await createLicence(c.env, { ...body, org_id: org.org_id });
    const key = await createKey(c.env, { org_id: org.org_id, licence_id: lic.licence_id, label: "bootstrap", live: (body as { live?: unknown }).live });
    return c.json({ ...org, ...lic, ...key }, 201);
  });

  return app;
}

// ---- helpers ------------------------------------------------------------------------------------

async function publishedKeys(env: Env): Promise<PublicKeyEntry[]> {
  let keys: PublicKeyEntry[];
  try {
    keys = await Promise.all(parseSigningKeys(env.LICENCE_SIGNING_KEYS).map((k) => publicEntry(k, k.kid.startsWith("dev-"))));
    if (env.LICENCE_EXTRA_PUBLIC_KEYS) keys.push(...(JSON.parse(env.LICENCE_EXTRA_PUBLIC_KEYS) as PublicKeyEntry[]));
  } catch (err) {
    throw new ServiceError(503, "signing_key_invalid", `the service's signing keys do not parse: ${(err as Error).message}`);
  }
  return keys;
}

function bearer(c: C): string | undefined {
  const h = c.req.header("authorization");
  const m = h ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  return m?.[1];
}

async function apiKey(c: C): Promise<KeyGrant> {
  const key = bearer(c);
  if (!key) throw new ServiceError(401, "api_key_required", "this route needs an API key: `Authorization: Bearer qls_live_…`", undefined, "set `QLS_API_KEY` to a key of your organisation");
  if (!/^qls_(live|test)_[A-Za-z0-9_-]{16,64}$/.test(key)) throw new ServiceError(401, "api_key_invalid", "the API key is not of the form `qls_live_…`");
  const grant = await callObject<KeyGrant | null>(c.env.DIRECTORY, DIRECTORY_NAME, "resolve_key", { hash: await sha256Hex(key) });
  if (!grant) throw new ServiceError(401, "api_key_invalid", "the API key is unknown or revoked", undefined, "create a new key for the organisation");
  return grant;
}

async function readBody(c: C): Promise<string> {
  const len = Number(c.req.header("content-length") ?? "0");
  if (len > MAX_BODY) throw new ServiceError(413, "body_too_large", `request bodies are at most ${MAX_BODY} bytes`);
  let text: string;
  try {
    text = await c.req.text();
  } catch {
    throw bad("the request body could not be read");
  }
  if (text.length > MAX_BODY) throw new ServiceError(413, "body_too_large", `request bodies are at most ${MAX_BODY} bytes`);
  return text;
}

function parseJson(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new ServiceError(400, "malformed_json", `the body is not JSON: ${(err as Error).message}`, "");
  }
  if (!v || typeof v !== "object" || Array.isArray(v)) throw new ServiceError(400, "malformed_request", "the body must be a JSON object", "");
  return v as Record<string, unknown>;
}

async function jsonBody(c: C): Promise<Record<string, unknown>> {
  return parseJson(await readBody(c));
}

function field<T = unknown>(body: Record<string, unknown>, name: string, ok: (v: unknown) => boolean, message: string): T {
  if (!ok(body[name])) throw bad(message, `/${name}`);
  return body[name] as T;
}

function isPublicKey(v: unknown): boolean {
  const b = fromBase64Url(v);
  return !!b && b.length === 32;
}

/** The parts an installation signed, read from the headers; the object verifies them. */
async function signed(c: C): Promise<{ call: { parts: RequestParts; signature: string }; body: Record<string, unknown> }> {
  const h = (name: string) => c.req.header(name);
  const missing = Object.values(HEADER).filter((name) => !h(name));
  if (missing.length > 0) {
    throw new ServiceError(401, "signature_required", `this route needs an installation-signed request; missing ${missing.map((m) => `\`${m}\``).join(", ")}`, undefined, "the stalwart runtime signs these requests; activate this machine with `stalwart licence activate`");
  }
  const licenceId = h(HEADER.licence)!;
  const installationId = h(HEADER.installation)!;
  if (!LICENCE_ID.test(licenceId)) throw bad("`stalwart-licence` is not a licence id", "/headers/stalwart-licence");
  if (!INSTALLATION_ID.test(installationId)) throw bad("`stalwart-installation` is not an installation id", "/headers/stalwart-installation");
  const text = await readBody(c);
  const body = c.req.method === "GET" ? {} : parseJson(text);
  const url = new URL(c.req.url);
  const parts: RequestParts = {
    method: c.req.method,
    path: url.pathname + url.search,
    licenceId,
    installationId,
    date: h(HEADER.date)!,
    nonce: h(HEADER.nonce)!,
    bodySha256: await sha256Hex(text),
  };
  return { call: { parts, signature: h(HEADER.signature)! }, body };
}

async function digests(env: Env): Promise<Record<string, string>> {
  return callObject(env.DIRECTORY, DIRECTORY_NAME, "bundle_digests", {});
}

async function createOrg(env: Env, body: Record<string, unknown>): Promise<{ org_id: string }> {
  const name = field<string>(body, "name", (v) => typeof v === "string" && v.length > 0 && v.length <= 200, "`name` must be a non-empty string");
  const onLapse = body.on_licence_lapse ?? "reads_only";
  if (onLapse !== "reads_only" && onLapse !== "refuse") throw bad("`on_licence_lapse` must be `reads_only` or `refuse`", "/on_licence_lapse");
  return callObject(env.DIRECTORY, DIRECTORY_NAME, "create_org", { name, on_licence_lapse: onLapse });
}

async function createLicence(env: Env, body: Record<string, unknown>): Promise<{ licence_id: string; org_id: string; plan: string; expires_at: string }> {
  const org_id = field<string>(body, "org_id", (v) => typeof v === "string" && ORG_ID.test(v), "`org_id` must be an organisation id (`org_…`)");
  const plan = field<string>(body, "plan", isPlanName, "`plan` must be `free`, `paid` or `enterprise`");
  const days = body.days ?? 365;
  if (!Number.isSafeInteger(days) || (days as number) < 1 || (days as number) > 3660) throw bad("`days` must be a whole number of days, 1 to 3660", "/days");
  const org = await callObject<{ on_licence_lapse: string }>(env.DIRECTORY, DIRECTORY_NAME, "get_org", { org_id });
  const onLapse = body.on_licence_lapse ?? org.on_licence_lapse;
  if (onLapse !== "reads_only" && onLapse !== "refuse") throw bad("`on_licence_lapse` must be `reads_only` or `refuse`", "/on_licence_lapse");
  const licence_id = randomId("lic");
  const starts = new Date();
  const expires_at = new Date(starts.getTime() + (days as number) * DAY_MS).toISOString();
  await callObject(env.DIRECTORY, DIRECTORY_NAME, "add_licence", { licence_id, org_id, plan });
  await callObject(env.LICENCES, licence_id, "init", { licence_id, org_id, plan, on_licence_lapse: onLapse, starts_at: starts.toISOString(), expires_at });
  return { licence_id, org_id, plan, expires_at };
}

async function createKey(env: Env, body: Record<string, unknown>): Promise<{ api_key: string; prefix: string }> {
  const org_id = field<string>(body, "org_id", (v) => typeof v === "string" && ORG_ID.test(v), "`org_id` must be an organisation id (`org_…`)");
  const licence_id = field<string>(body, "licence_id", (v) => typeof v === "string" && LICENCE_ID.test(v), "`licence_id` must be a licence id (`lic_…`)");
  const label = typeof body.label === "string" ? body.label.slice(0, 100) : "api key";
  return callObject(env.DIRECTORY, DIRECTORY_NAME, "create_key", { org_id, licence_id, label, live: body.live === true });
}
