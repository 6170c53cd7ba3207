/**
 * Routes for tests of the state objects through a real `wrangler dev`, before the session code
 * uses them: `/__test/state/{load,commit}`, `/__test/counters/{reserve,peek,release,rows}`,
 * `/__test/approvals/{add,add-and-find-standing}`, and the bench's floor rows `/__test/rpc-floor/{0,1,2}`
 * (a 404 from here after no call, after one call that does nothing to a session's object, or after
 * that and one to the tenant's approvals object: the calls a confirm cannot do without).
 * Only when STALWART_TEST_CLOCK is "1" (the test-only switch, never set in a deployment), and
 * only with a tenant's key, scoped to that tenant. They call the stores exactly as the engine
 * does; errors answer `{error: {code, message}}`.
 */
import { StalwartError, statusOf, type CounterItem, type PendingRecord, type StateChange } from "../../portable/engine/index.js";
import type { WorkerApprovalStore } from "./approvals-store.js";
import { parseKeys, tenantOf, type TenantConfig } from "./tenants.js";
import type { Stores } from "./stores.js";

export interface TestHooks {
  stores: Stores;
  /** rows held by the tenant's counter object */
  counterRows(tenant: string): Promise<unknown>;
  /** the tenant's approvals object */
  approvals(tenant: string): WorkerApprovalStore;
  /** a call that does nothing to the object of the tenant's session `session` */
  pingSession(tenant: string, session: string): Promise<void>;
  /** a call that does nothing to the tenant's approvals object */
  pingApprovals(tenant: string): Promise<void>;
}

type Body = { session?: string; change?: StateChange; id?: string; items?: CounterItem[]; now?: number; record?: PendingRecord };

export function testRoute(req: Request, env: TenantConfig, hooks: (env: unknown) => TestHooks): Promise<Response> | undefined {
  const url = new URL(req.url);
  if (!url.pathname.startsWith("/__test/") || env.STALWART_TEST_CLOCK !== "1") return undefined;
  return answer(req, url.pathname, env, hooks(env));
}

async function answer(req: Request, path: string, env: TenantConfig, h: TestHooks): Promise<Response> {
  try {
    const tenant = tenantOf(req.headers.get("authorization") ?? undefined, parseKeys(env.STALWART_API_KEYS));
    const b = (req.method === "POST" ? await req.json() : {}) as Body;
    const now = b.now ?? 0;
    const state = h.stores.state(tenant);
    const counters = h.stores.counters(tenant);
    switch (path) {
      case "/__test/state/load": {
        const s = await state.load(b.session as string);
        return Response.json({ head: s.head, spent: [...s.spent], tallies: s.tallies });
      }
      case "/__test/state/commit":
        return Response.json(await state.commit(b.session as string, b.change as StateChange));
      case "/__test/counters/reserve":
        return Response.json(await counters.reserve(b.id as string, b.items as CounterItem[], now));
      case "/__test/counters/peek":
        return Response.json(await counters.peek(b.items as CounterItem[], now));
      case "/__test/counters/release":
        await counters.release(b.id as string, now);
        return Response.json({ ok: true });
      case "/__test/counters/rows":
        return Response.json(await h.counterRows(tenant));
      case "/__test/approvals/add":
        await h.approvals(tenant).add(b.record as PendingRecord);
        return Response.json({ ok: true });
      case "/__test/approvals/add-and-find-standing": {
        const standing = await h.approvals(tenant).addAndFindStanding?.(b.record as PendingRecord);
        return Response.json({ ok: true, standing: standing ?? null });
      }
      case "/__test/rpc-floor/0":
      case "/__test/rpc-floor/1":
      case "/__test/rpc-floor/2": {
        if (!path.endsWith("/0")) await h.pingSession(tenant, new URL(req.url).searchParams.get("session") ?? "floor");
        if (path.endsWith("/2")) await h.pingApprovals(tenant);
        return new Response(null, { status: 404, headers: { "x-stalwart-calls": path.slice(-1) } });
      }
      default:
        return Response.json({ error: { code: "NotFound", message: `no test route \`${path}\`` } }, { status: 404 });
    }
  } catch (err: unknown) {
    if (err instanceof StalwartError) return Response.json({ error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } }, { status: statusOf(err.code) });
    return Response.json({ error: { code: "internal", message: err instanceof Error ? err.message : String(err) } }, { status: 500 });
  }
}
