/**
 * The routes an organisation calls with its API key (activate, status, offline activation,
 * account), the published keys (no key), and the ones an installation signs (refresh, release,
 * bundles, usage reports). The state and every check-then-write live in the Durable Objects.
 */
import { Hono } from "hono";
import { validator } from "hono/validator";
import { jsonBody } from "../../http/body.js";
import { apiKey, signed } from "../auth.js";
import { BODY, INSTALLATION_ID, field, matches, type ServiceEnv } from "../context.js";
import { BUNDLE_KINDS, fromBase64Url, isBundleKind, parseSigningKeys, publicEntry, type BundleKind, type PublicKeyEntry } from "../deps.js";
import { DIRECTORY_NAME } from "../directory-object.js";
import type { Env } from "../env.js";
import { bad, ServiceError } from "../errors.js";
import { callObject } from "../rpc.js";

const isPublicKey = (v: unknown): v is string => {
  const b = fromBase64Url(v);
  return typeof v === "string" && !!b && b.length === 32;
};

const activateBody = jsonBody(
  (b) => ({
    installation_id: field(b, "installation_id", matches(INSTALLATION_ID), "`inst_` and 16–64 base64url characters"),
    public_key: field(b, "public_key", isPublicKey, "a 32-byte Ed25519 key, base64url"),
  }),
  BODY,
);

/** `{request: <file>}`, or the activation-request.json contents as they are. */
const offlineBody = jsonBody((b) => {
  const request = b.type === "activation_request" ? b : b.request;
  if (request === undefined) throw bad("expected `{request: <activation-request.json>}`", "/request", "post the file `stalwart licence request` wrote");
  return { request };
}, BODY);

const bundleKind = (hint?: string) =>
  validator("param", (p: Record<string, string>): { kind: BundleKind } => {
    const kind = p.kind ?? "";
    if (!isBundleKind(kind)) throw new ServiceError(404, "unknown_bundle_kind", `no bundle kind \`${kind}\``, "/kind", hint);
    return { kind };
  });

export function licenceRoutes(): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>();

  // -- no key --------------------------------------------------------------------------------------
  app.get("/licences/keys", async (c) => c.json({ keys: await publishedKeys(c.env) }));

  // -- API key -------------------------------------------------------------------------------------
  app.post("/licences/activate", apiKey, activateBody, async (c) => {
    const body = c.req.valid("json");
    const bundles = await digests(c.env);
    return c.json(await callObject(c.env.LICENCES, c.get("grant").licence_id, "activate", { ...body, bundles }), 201);
  });

  app.get("/licences", apiKey, async (c) => c.json(await callObject(c.env.LICENCES, c.get("grant").licence_id, "status", {})));

  app.post("/licences/offline", apiKey, offlineBody, async (c) => {
    const { request } = c.req.valid("json");
    const bundles = await digests(c.env);
    const answer = await callObject<Record<string, unknown>>(c.env.LICENCES, c.get("grant").licence_id, "offline", { request, bundles });
    return c.json({ v: 1, type: "activation_answer", ...answer }, 201);
  });

  app.get("/account", apiKey, async (c) => c.json(await callObject(c.env.LICENCES, c.get("grant").licence_id, "account", {})));

  // -- installation signature ------------------------------------------------------------------------
  app.post("/licences/refresh", signed, async (c) => {
    const call = c.get("call");
    const usage = c.get("signedBody").usage;
    return c.json(await callObject(c.env.LICENCES, call.parts.licenceId, "refresh", { ...call, usage: usage ?? null, bundles: await digests(c.env) }));
  });

  app.post("/licences/release", signed, async (c) => {
    const call = c.get("call");
    return c.json(await callObject(c.env.LICENCES, call.parts.licenceId, "release", call));
  });

  app.get("/bundles/:kind", bundleKind(`the kinds are ${BUNDLE_KINDS.join(", ")}`), signed, async (c) => {
    const { kind } = c.req.valid("param");
    const call = c.get("call");
    const b = await callObject<{ content: string; digest: string }>(c.env.DIRECTORY, DIRECTORY_NAME, "get_bundle", { kind });
    const sealed = await callObject(c.env.LICENCES, call.parts.licenceId, "bundle", { ...call, kind, content: b.content });
    return c.json(sealed, 200, { etag: `"${b.digest}"` });
  });

  app.post("/usage-reports", signed, async (c) => {
    const call = c.get("call");
    return c.json(await callObject(c.env.LICENCES, call.parts.licenceId, "usage", { ...call, report: c.get("signedBody") }));
  });

  return app;
}

export { bundleKind };

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

async function digests(env: Env): Promise<Record<string, string>> {
  return callObject(env.DIRECTORY, DIRECTORY_NAME, "bundle_digests", {});
}
