/**
 * The licence service's three ways in (licensing.md, "Service endpoints"): an organisation's API
 * key, an installation's signature (checked by its licence's Durable Object, which holds the key
 * and the nonces), and the admin secret. Each runs before the route reads its body.
 */
import type { MiddlewareHandler } from "hono";
import { parseObject, strictUtf8 } from "../http/body.js";
import { BODY, INSTALLATION_ID, LICENCE_ID, type C, type ServiceEnv } from "./context.js";
import { HEADER, sha256Hex, timingSafe, type RequestParts } from "./deps.js";
import { DIRECTORY_NAME, type KeyGrant } from "./directory-object.js";
import { bad, ServiceError } from "./errors.js";
import { callObject } from "./rpc.js";

function bearer(c: C): string | undefined {
  const h = c.req.header("authorization");
  const m = h ? /^Bearer\s+(\S+)$/i.exec(h) : null;
  return m?.[1];
}

/** `Authorization: Bearer qls_live_…`, resolved to the licence it grants (`c.get("grant")`). */
export const apiKey: MiddlewareHandler<ServiceEnv> = async (c, next) => {
  const key = bearer(c);
  if (!key) throw new ServiceError(401, "api_key_required", "this route needs an API key: `Authorization: Bearer qls_live_…`", undefined, "set `QLS_API_KEY` to a key of your organisation");
  if (!/^qls_(live|test)_[A-Za-z0-9_-]{16,64}$/.test(key)) throw new ServiceError(401, "api_key_invalid", "the API key is not of the form `qls_live_…`");
  const grant = await callObject<KeyGrant | null>(c.env.DIRECTORY, DIRECTORY_NAME, "resolve_key", { hash: await sha256Hex(key) });
  if (!grant) throw new ServiceError(401, "api_key_invalid", "the API key is unknown or revoked", undefined, "create a new key for the organisation");
  c.set("grant", grant);
  await next();
};

/**
 * The parts an installation signed, read from the headers and the body's bytes
 * (`c.get("call")`, `c.get("signedBody")`); the licence object verifies them.
 */
export const signed: MiddlewareHandler<ServiceEnv> = async (c, next) => {
  const h = (name: string) => c.req.header(name) ?? "";
  const missing = Object.values(HEADER).filter((name) => !h(name));
  if (missing.length > 0) {
    throw new ServiceError(401, "signature_required", `this route needs an installation-signed request; missing ${missing.map((m) => `\`${m}\``).join(", ")}`, undefined, "the stalwart runtime signs these requests; activate this machine with `stalwart licence activate`");
  }
  const licenceId = h(HEADER.licence);
  const installationId = h(HEADER.installation);
  if (!LICENCE_ID.test(licenceId)) throw bad("`stalwart-licence` is not a licence id", "/headers/stalwart-licence");
  if (!INSTALLATION_ID.test(installationId)) throw bad("`stalwart-installation` is not an installation id", "/headers/stalwart-installation");
  const text = strictUtf8(await c.req.arrayBuffer());
  const url = new URL(c.req.url);
  const parts: RequestParts = {
    method: c.req.method,
    path: url.pathname + url.search,
    licenceId,
    installationId,
    date: h(HEADER.date),
    nonce: h(HEADER.nonce),
    bodySha256: await sha256Hex(text),
  };
  c.set("call", { parts, signature: h(HEADER.signature) });
  c.set("signedBody", c.req.method === "GET" ? {} : parseObject(text, BODY));
  await next();
};

/** `Authorization: Bearer <LICENCE_ADMIN_SECRET>`; unset, the admin routes answer 403. */
export const admin: MiddlewareHandler<ServiceEnv> = async (c, next) => {
  const secret = c.env.LICENCE_ADMIN_SECRET;
  if (!secret) throw new ServiceError(403, "admin_disabled", "the admin routes are off: `LICENCE_ADMIN_SECRET` is not set");
  const given = bearer(c) ?? "";
  if (!(await timingSafe(given, secret))) throw new ServiceError(401, "admin_required", "the admin routes need `Authorization: Bearer <LICENCE_ADMIN_SECRET>`");
  await next();
};
