/**
 * The approvals page mounted by the check worker at /approvals: the same Hono JSX app as
 * `stalwart approvals serve` (worker/portable/approvals/app.tsx), signed in with the tenant's
 * API key instead of a one-time code. The person's name, if given, is who the receipts name;
 * else the tenant's. State changes are POSTs with `Stalwart-Apply: yes` from the page's own
 * origin, as locally; the cookie names the tenant and (by a MAC of it) the key signed in with, and
 * is MAC'd under a key of the worker's secret: a sign-in whose key was removed from
 * STALWART_API_KEYS (or rotated to another key of the tenant) is signed out at its next request.
 */
import { Hono } from "hono";
import { approvalsApp, type Identity } from "../../portable/approvals/app.js";
import { equalBytes, toHex, utf8 } from "../../portable/engine/index.js";
import { HttpError } from "../http/errors.js";
import type { TenantApprovals } from "./approvals-store.js";
import { parseKeys, tenantOf, type TenantConfig } from "./tenants.js";

const KEY_DOMAIN = "stalwart-page-key-v1.";

export function approvalsPage(a: TenantApprovals, now?: () => Date): Hono {
  // the cookie names the key it was signed in with by a MAC of it (never the key itself)
  const keyMark = (env: unknown, key: string): string => toHex(a.keys.cookie((env ?? {}) as TenantConfig)(`${KEY_DOMAIN}${key}`));
  /** The sign-in's tenant while the key it was made with is still that tenant's (rotated or removed: signed out). */
  const tenantIn = (env: unknown, who: Identity): string => {
    const keys = parseKeys((env as TenantConfig | undefined)?.STALWART_API_KEYS);
    const mark = who.key === undefined ? undefined : utf8(who.key);
    const held = who.tenant !== undefined && mark !== undefined && [...keys].some(([key, tenant]) => tenant === who.tenant && equalBytes(utf8(keyMark(env, key)), mark));
    if (!held || who.tenant === undefined) throw new HttpError("unauthorized", "the key this page was signed in with is not valid here any more; sign in again");
    return who.tenant;
  };
  const page = approvalsApp({
    base: "/approvals",
    local: false,
    now: () => (now ? now() : new Date()).getTime(),
    login: (key, by, env) => {
      let tenant: string;
      try {
        tenant = tenantOf(`Bearer ${key}`, parseKeys((env as TenantConfig | undefined)?.STALWART_API_KEYS));
      } catch {
        return undefined;
      }
      return { by: by ?? tenant, tenant, key: keyMark(env, key) };
    },
    storeFor: (who, env) => a.store(env, tenantIn(env, who)),
    macFor: (who, env) => a.keys.tenant((env ?? {}) as TenantConfig, tenantIn(env, who)),
    cookieMac: (env) => a.keys.cookie((env ?? {}) as TenantConfig),
  });
  return new Hono({ strict: false }).route("/approvals", page);
}
