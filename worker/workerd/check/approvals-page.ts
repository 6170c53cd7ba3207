/**
 * The approvals page mounted by the check worker at /approvals: the same Hono JSX app as
 * `stalwart approvals serve` (worker/portable/approvals/app.tsx), signed in with the tenant's
 * API key instead of a one-time code. The person's name, if given, is who the receipts name;
 * else the tenant's. State changes are POSTs with `Stalwart-Apply: yes` from the page's own
 * origin, as locally; the cookie names the tenant and is MAC'd under a key of the worker's secret,
 * and a tenant whose key was removed is signed out at its next request.
 */
import { Hono } from "hono";
import { approvalsApp } from "../../portable/approvals/app.js";
import { HttpError } from "../http/errors.js";
import type { TenantApprovals } from "./approvals-store.js";
import { parseKeys, tenantOf, type TenantConfig } from "./tenants.js";

export function approvalsPage(a: TenantApprovals, now?: () => Date): Hono {
  const tenantIn = (env: unknown, tenant: string | undefined): string => {
    const keys = parseKeys((env as TenantConfig | undefined)?.STALWART_API_KEYS);
    if (tenant === undefined || ![...keys.values()].includes(tenant)) throw new HttpError("unauthorized", "this tenant has no key here any more; sign in again");
    return tenant;
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
      return { by: by ?? tenant, tenant };
    },
    storeFor: (who, env) => a.store(env, tenantIn(env, who.tenant)),
    macFor: (who, env) => a.keys.tenant((env ?? {}) as TenantConfig, tenantIn(env, who.tenant)),
    cookieMac: (env) => a.keys.cookie((env ?? {}) as TenantConfig),
  });
  return new Hono({ strict: false }).route("/approvals", page);
}
