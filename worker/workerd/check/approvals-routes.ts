/**
 * The approvals API behind the tenant's key (issue 12): GET /v1/approvals (newest first),
 * GET /v1/approvals/:id, POST /v1/approvals/:id/decide (a receipt signed under the tenant key),
 * POST /v1/approvals/:id/withdraw (the session that asked ended: a gateway that stopped),
 * and POST /v1/receipts, which records a decided receipt in the session the caller carries —
 * the remote SDK's `run(…, {wait})` reads the record, records its receipt, then presents the
 * token (approvals.ts marks the record spent when that call is allowed).
 */
import { Hono } from "hono";
import { approvalStatus, decide, StalwartError, type Approval } from "../../portable/engine/index.js";
import { fields, isBoolean, isString, jsonBody, oneOf } from "../http/body.js";
import { describe } from "../http/openapi.js";
import type { CheckEnv } from "./env.js";
import { json, ok, session } from "./openapi.js";
import type { CheckRuntime } from "./runtime.js";
import { sessionOf } from "./session-shape.js";
import { clip } from "../../portable/approvals/words.js";
import type { TenantApprovals } from "./approvals-store.js";

const { field, optional, present } = fields();

const decideBody = jsonBody((b) => ({
  decision: field(b, "decision", oneOf(["approve", "deny"] as const), "`approve` or `deny`"),
  by: optional(b, "by", isString, "who decides, a name"),
  message: optional(b, "message", isString, "a string"),
  always: optional(b, "always", isBoolean, "true or false"),
}), { keys: ["decision", "by", "message", "always"] });

const receiptBody = jsonBody((b) => ({ receipt: present(b, "receipt", "`receipt` is required: the decided approval's receipt"), session: sessionOf(b) }), { keys: ["receipt", "session"] });

const approval = { type: "object", properties: { record: { type: "object" }, receipt: { type: ["object", "null"] }, used: { type: "boolean" }, status: { enum: ["pending", "approved", "denied", "edited", "used", "withdrawn", "expired"] } } };
const id = { id: { type: "string", pattern: "^p_[0-9a-f]{16}$" } };

export function approvalRoutes(rt: CheckRuntime, a: TenantApprovals): Hono<CheckEnv> {
  const app = new Hono<CheckEnv>();
  const withStatus = (x: Approval, now: number) => ({ ...x, status: approvalStatus(x, now) });

  app.get(
    "/approvals",
    describe({ operationId: "listApprovals", summary: "the tenant's pending confirmations and what became of them, newest first: the 200 newest, and every one still waiting however old (up to 200 of them)", responses: ok({ type: "object", properties: { approvals: { type: "array", items: approval } } }) }),
    async (c) => {
      const now = c.get("now")().getTime();
      const all = await a.store(c.env, c.get("tenant")).list();
      return c.json({ approvals: all.map((x) => withStatus(x, now)) });
    },
  );

  app.get(
    "/approvals/:id",
    describe({ operationId: "getApproval", summary: "one pending confirmation: the exact call, each argument's origin, the reasons, the counters, its receipt", params: id, responses: ok({ type: "object", properties: { approval } }) }),
    async (c) => {
      const x = await a.store(c.env, c.get("tenant")).get(c.req.param("id"));
      if (!x) throw new StalwartError("ApprovalNotFound", `no pending confirmation \`${c.req.param("id")}\` for this tenant`);
      return c.json({ approval: withStatus(x, c.get("now")().getTime()) });
    },
  );

  app.post(
    "/approvals/:id/decide",
    describe({
      operationId: "decideApproval",
      summary: "approve or deny a pending confirmation: a receipt signed under the tenant key; once only (409 `approval_decided` after)",
      params: id,
      requestBody: json({ type: "object", required: ["decision"], properties: { decision: { enum: ["approve", "deny"] }, by: { type: "string" }, message: { type: "string" }, always: { type: "boolean" } } }),
      responses: ok({ type: "object", properties: { receipt: { type: "object" } } }),
    }),
    decideBody,
    async (c) => {
      const b = c.req.valid("json");
      const tenant = c.get("tenant");
      const by = clip(b.by, 100) ?? tenant;
      const x = await decide(a.store(c.env, tenant), a.keys.tenant(c.env, tenant), c.req.param("id"), {
        decision: b.decision, by, at: c.get("now")().getTime(),
        message: clip(b.message, 500),
        always: b.decision === "approve" && b.always === true,
      });
      return c.json({ receipt: x.receipt });
    },
  );

  app.post(
    "/approvals/:id/withdraw",
    describe({
      operationId: "withdrawApproval",
      summary: "close a pending confirmation, or an approved one not yet used, whose session ended before its call ran (a gateway that stopped: nothing can spend its token any more); nobody can decide it after. `withdrawn` is false when it was already used, denied, edited or withdrawn",
      params: id,
      responses: ok({ type: "object", properties: { withdrawn: { type: "boolean" }, approval } }),
    }),
    async (c) => {
      const store = a.store(c.env, c.get("tenant"));
      const x = await store.get(c.req.param("id"));
      if (!x) throw new StalwartError("ApprovalNotFound", `no pending confirmation \`${c.req.param("id")}\` for this tenant`);
      const withdrawn = (await store.withdraw?.(x.record.id)) ?? false;
      const now = c.get("now")().getTime();
      return c.json({ withdrawn, approval: withStatus((await store.get(x.record.id)) ?? x, now) });
    },
  );

  app.post(
    "/receipts",
    describe({
      operationId: "recordReceipt",
      summary: "record a person's signed decision in the session's history (it must verify under the tenant key and decide an ask of this history)",
      requestBody: json({ type: "object", required: ["session", "receipt"], properties: { session, receipt: { type: "object" } } }),
      responses: ok({ type: "object", properties: { step: { type: "integer" }, session } }),
    }),
    receiptBody,
    async (c) => {
      const b = c.req.valid("json");
      const s = await rt.resume(c, b.session);
      const { step } = await s.receipt(b.receipt);
      return rt.reply(c, s, { step });
    },
  );

  return app;
}
