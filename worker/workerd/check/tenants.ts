/**
 * Tenancy: every route but health and the OpenAPI document needs a bearer key; each key belongs
 * to one tenant. Keys and the history secret come from Workers secrets:
 *   STALWART_API_KEYS        "tenant:key,tenant2:key2"
 *   STALWART_HISTORY_SECRET  hex, ≥ 32 bytes; each tenant's history key is HMAC(secret, tenant),
 *                            so a history MAC'd for tenant A never verifies for tenant B.
 */
import { equalBytes, utf8 } from "../../portable/engine/index.js";
import { HttpError } from "../http/errors.js";

export interface TenantConfig {
  STALWART_API_KEYS?: string;
  STALWART_HISTORY_SECRET?: string;
  STALWART_TEST_CLOCK?: string;
}

export function parseKeys(spec: string | undefined): Map<string, string> {
  const keys = new Map<string, string>();
  // a key listed for two tenants belongs to neither (fail closed): the last one listed would
  // otherwise read and decide the other's approvals, sessions and catalogues
  const shared = new Set<string>();
  for (const part of (spec ?? "").split(",")) {
    const i = part.indexOf(":");
    if (i <= 0) continue;
    const tenant = part.slice(0, i).trim();
    const key = part.slice(i + 1).trim();
    if (!tenant || key.length < 16 || shared.has(key)) continue;
    const was = keys.get(key);
    if (was !== undefined && was !== tenant) {
      keys.delete(key);
      shared.add(key);
    } else keys.set(key, tenant);
  }
  return keys;
}

/** `parseKeys` of the last value seen (an isolate has one): not split again on every request. */
let lastKeys: { spec: string | undefined; keys: Map<string, string> } | undefined;
export function keysOf(spec: string | undefined): Map<string, string> {
  if (!lastKeys || lastKeys.spec !== spec) lastKeys = { spec, keys: parseKeys(spec) };
  return lastKeys.keys;
}

/** The tenant a request's bearer key belongs to; compares every key in constant time. */
export function tenantOf(authorization: string | undefined, keys: Map<string, string>): string {
  const m = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
  if (!m) throw new HttpError("unauthorized", "send `authorization: Bearer <key>`");
  const given = utf8(m[1]!);
  let found: string | undefined;
  for (const [key, tenant] of keys) {
    const k = utf8(key);
    if (k.length === given.length && equalBytes(k, given)) found = tenant;
  }
  if (!found) throw new HttpError("unauthorized", "the key is not valid for this worker");
  return found;
}

export function historySecret(env: TenantConfig): Uint8Array {
  const hex = env.STALWART_HISTORY_SECRET ?? "";
  if (!/^[0-9a-fA-F]{64,}$/.test(hex)) throw new HttpError("history_secret_missing", "the worker has no STALWART_HISTORY_SECRET (hex, ≥ 32 bytes); set it with `wrangler secret put`");
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
