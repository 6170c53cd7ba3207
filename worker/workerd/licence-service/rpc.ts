/**
 * Worker → Durable Object calls: `POST https://object/<op>` with a JSON body, answered with
 * `{result}` or a coded error. Plain fetch (not RPC methods) so the objects need no
 * `cloudflare:workers` import and the worker also runs in Node against Miniflare in tests.
 */
import type { DurableObjectNamespaceLike } from "./env.js";
import { raiseFrom, ServiceError } from "./errors.js";

export async function callObject<T>(ns: DurableObjectNamespaceLike, name: string, op: string, args: unknown): Promise<T> {
  const stub = ns.get(ns.idFromName(name));
  const res = await stub.fetch(`https://object/${op}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(args ?? {}) });
  if (!res.ok) return raiseFrom(res);
  return ((await res.json()) as { result: T }).result;
}

/** The Durable Object side: dispatch `/<op>` to a handler, answer JSON, map errors to 4xx. */
export async function serveOps(request: Request, ops: Record<string, (args: any) => unknown>): Promise<Response> {
  const op = new URL(request.url).pathname.slice(1);
  const handler = Object.hasOwn(ops, op) ? ops[op] : undefined;
  try {
    if (!handler || request.method !== "POST") throw new ServiceError(404, "not_found", `no operation \`${op}\``);
    const args = await request.json();
    const result = await handler(args);
    return new Response(JSON.stringify({ result: result ?? null }), { headers: { "content-type": "application/json" } });
  } catch (err) {
    const e = err instanceof ServiceError ? err : new ServiceError(500, "internal_error", `licence storage failed: ${(err as Error)?.message ?? String(err)}`);
    return new Response(JSON.stringify(e.toJSON()), { status: e.status, headers: { "content-type": "application/json" } });
  }
}
