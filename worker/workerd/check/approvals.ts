/**
 * The approvals in the check worker (issue 12), mounted by app.ts in one call: every `confirm`
 * POST /v1/check answers becomes a pending record in the tenant's store (approvals-store.ts)
 * before the answer leaves, under the id its token names (`approvalIdOf`), with each counter's
 * before → after; the allowed call that presents an approved record's token marks it spent; the
 * API under /v1/approvals (approvals-routes.ts) and the page at /approvals (approvals-page.ts)
 * decide them. The hook never changes an answer: a record it could not write is logged, and a
 * remote `run(…, {wait})` then waits in vain and runs nothing (fail closed).
 */
import type { Hono, MiddlewareHandler } from "hono";
import { approvalIdOf, decide, pendingFrom, withCounts } from "../../portable/engine/index.js";
import type { AppOptions, CheckEnv } from "./env.js";
import type { CheckRuntime } from "./runtime.js";
import { approvalRoutes } from "./approvals-routes.js";
import { approvalsPage } from "./approvals-page.js";
import { addAndFindStanding, ApprovalKeys, memoryApprovals, type TenantApprovals } from "./approvals-store.js";

/** Before the check route is mounted: the hook must wrap it. */
export function mountApprovals(app: Hono<CheckEnv>, rt: CheckRuntime, opts: AppOptions): void {
  const a: TenantApprovals = { store: opts.approvals ?? memoryApprovals(), keys: new ApprovalKeys(opts.core) };
  app.use("/v1/check", onChecked(rt, a));
  app.route("/v1", approvalRoutes(rt, a));
  const page = approvalsPage(a, opts.now);
  // one handler for the whole page (method ALL: HTML, not part of the OpenAPI document)
  app.all("/approvals", (c) => page.fetch(c.req.raw, c.env));
  app.all("/approvals/*", (c) => page.fetch(c.req.raw, c.env));
}

function onChecked(rt: CheckRuntime, a: TenantApprovals): MiddlewareHandler<CheckEnv> {
  return async (c, next) => {
    // read only when a token is presented (routes/checks.ts): one record by id
    c.set("decisionOf", async (token) => (await a.store(c.env, c.get("tenant")).get(approvalIdOf(token, rt.sha256Hex)))?.receipt ?? undefined);
    await next();
    const done = c.get("checked");
    if (!done) return;
    const { check, options } = done;
    try {
      const tenant = c.get("tenant");
      if (check.decision === "confirm" && check.confirmation) {
        const store = a.store(c.env, tenant);
        const catalogue = done.catalogue;
        const args = typeof done.args === "object" && done.args !== null && !Array.isArray(done.args) ? (done.args as Record<string, unknown>) : {};
        const built = pendingFrom({ session: done.session, tool: done.tool, args, check, origins: options.origins, labels: options.labels, catalogue, now: c.get("now")().getTime(), sha256Hex: rt.sha256Hex, resultTool: done.resultTool });
        if (!built) return;
        const record = await withCounts(built, rt.stores(c).counters(tenant), catalogue, done.run());
        // "always for this session": the same call (same argument digest) approved before stands
        // one indexed lookup (record.ts `standing`): a confirm costs the same however many records
        // the tenant has; found with the add, in one round trip where the store can
        const standing = await addAndFindStanding(store, record);
        if (standing?.receipt) {
          await decide(store, a.keys.tenant(c.env, tenant), record.id, { decision: "approve", by: standing.receipt.by, at: record.created, message: `always for this session (${standing.record.id})` }).catch(() => undefined);
        }
      } else if (check.decision === "allow" && check.reasons.includes("confirmed") && typeof options.confirmation === "string") {
        // only an allow the token gave (step 10) spends it: a call allowed by itself, with a token
        // of another call riding along, ran nothing the record covers
        await a.store(c.env, tenant).markUsed(approvalIdOf(options.confirmation, rt.sha256Hex));
      }
    } catch (err) {
      console.error("stalwart-check approvals:", (err as Error)?.message ?? String(err));
    }
  };
}
