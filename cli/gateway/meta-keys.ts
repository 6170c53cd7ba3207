/**
 * `params._meta` is passed on as it came (docs/gateway.md, "Forwarded faithfully"), but the SDK's
 * parse of a message drops a key of it named `__proto__` (its own keys are copied by assignment):
 * the tool server would get a `_meta` without it. A request with such a key is refused as invalid
 * params instead, on stdio and over HTTP, before the SDK reads it (outside audit 22, F4). Keys
 * deeper in `_meta`, and in `arguments`, reach the gateway whole.
 */
import { INVALID_PARAMS, type RequestId } from "@modelcontextprotocol/server";

/** The error for a request whose `_meta` the SDK would not carry whole, or undefined. */
export function lostMetaKey(value: unknown): { id: RequestId; code: number; message: string } | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if (typeof m.method !== "string" || (typeof m.id !== "string" && typeof m.id !== "number")) return undefined;
  const p = m.params;
  if (p === null || typeof p !== "object" || Array.isArray(p) || !Object.hasOwn(p, "_meta")) return undefined;
  const meta = (p as Record<string, unknown>)._meta;
  if (meta === null || typeof meta !== "object" || !Object.hasOwn(meta, "__proto__")) return undefined;
  return { id: m.id, code: INVALID_PARAMS, message: `invalid params for ${m.method.slice(0, 100)}: \`params._meta\` holds a key named \`__proto__\`, which the gateway cannot pass on as it came` };
}
