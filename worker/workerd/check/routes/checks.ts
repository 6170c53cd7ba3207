/**
 * The calls of a session: POST /v1/check (before a tool runs), /v1/report (what happened),
 * /v1/filter (what an allowed read passes on) and /v1/plan (the guarded step's undo, follow and
 * judge). Each takes the saved session and answers with the next one.
 */
import { Hono } from "hono";
import { OUTCOMES, StalwartError, lastRun, toolAt, type Session, type SignedReceipt } from "../../../portable/engine/index.js";
import { fields, isInt, isObject, isString, jsonBody, oneOf } from "../../http/body.js";
import { describe } from "../../http/openapi.js";
import type { CheckEnv } from "../env.js";
import { bundlesOf } from "../licence.js";
import { json, ok, session } from "../openapi.js";
import type { CheckRuntime } from "../runtime.js";
import { sessionOf } from "../session-shape.js";

const { field, optional, present } = fields();
const KINDS = ["undo", "follow", "judge"] as const;

const checkBody = jsonBody((b) => ({
  tool: field(b, "tool", isString, "a tool name"),
  args: present(b, "args", "`args` is required (an object)"),
  options: optional(b, "options", isObject, "an object") ?? {},
  session: sessionOf(b),
}), { keys: ["session", "tool", "args", "options"] });

const reportBody = jsonBody((b) => ({
  step: field(b, "step", isInt, "the step number a check returned"),
  outcome: field(b, "outcome", oneOf(OUTCOMES), OUTCOMES.join(" | ")),
  result: b.result,
  session: sessionOf(b),
}), { keys: ["session", "step", "outcome", "result"] });

const filterBody = jsonBody((b) => ({
  step: field(b, "step", isInt, "the step number of an allowed read"),
  result: present(b, "result", "`result` is required: what the read returned"),
  session: sessionOf(b),
}), { keys: ["session", "step", "result"] });

const planBody = jsonBody((b) => {
  const kind = field(b, "kind", oneOf(KINDS), "`undo`, `follow` or `judge`");
  return {
    kind,
    tool: field(b, "tool", isString, "a tool name"),
    session: sessionOf(b),
    step: kind === "follow" ? field(b, "step", isInt, "a step number") : 0,
    // absent is none; anything but an object is a 400, not an undo bound to nothing
    args: optional(b, "args", isObject, "an object (the checked call's arguments)") ?? {},
    result: b.result,
  };
}, { keys: ["session", "kind", "tool", "step", "args", "result"] });

/**
 * The step of the session's last turn, from the index the check kept up to date (O(1)); a history
 * that cannot say (it did not verify) is scanned, as signed: never the caller's copy of it.
 */
function lastRunOf(s: Session): number {
  const prefix = s.verifiedPrefix();
  return prefix?.indexes ? prefix.indexes.history.lastTurn : lastRun(prefix?.entries ?? []);
}

/**
 * A person denied or edited the call a presented token covers (the page, the API): the receipt
 * enters the history first, so step 10 answers `denied` and a caller that kept the token cannot
 * use it. A receipt recorded already, or one of another session or call, leaves it to step 10.
 * Approvals that cannot answer, or a receipt whose MAC does not verify, cannot say whether a
 * person denied the call: the request fails (its error answers) and the token is not used.
 */
async function recordRefusal(decisionOf: ((token: string) => Promise<SignedReceipt | undefined>) | undefined, s: Session, token: string): Promise<void> {
  if (!decisionOf) return;
  const receipt = await decisionOf(token);
  if (!receipt || receipt.decision === "approve") return;
  try {
    await s.receipt(receipt);
  } catch (err) {
    // receiptEntry names the receipt itself ("/receipt") when its shape or MAC is wrong
    if (err instanceof StalwartError && err.code === "InputError" && err.pointer === "/receipt") {
      throw new StalwartError("ApprovalUnreadable", `the tenant's receipt for this token is unusable: ${err.message}`);
    }
  }
}

export function checkRoutes(rt: CheckRuntime): Hono<CheckEnv> {
  const app = new Hono<CheckEnv>();

  app.post(
    "/check",
    describe({
      operationId: "checkToolCall",
      summary: "check a tool call before it runs",
      requestBody: json({
        type: "object",
        required: ["session", "tool", "args"],
        properties: {
          session,
          tool: { type: "string" },
          args: { type: "object" },
          options: {
            type: "object",
            properties: {
              origins: { type: "object", additionalProperties: { type: "string" } },
              labels: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
              confirmation: { type: "string" },
              undoOf: { type: "integer" },
              agent: { type: "string" },
              facts: { type: "object" },
              explain: { type: "boolean", description: "also answer `detail.bundles`: the digests of the licence's bundles the decision was made with" },
            },
            additionalProperties: false,
          },
        },
      }),
      responses: ok({ type: "object", properties: { check: { $ref: "#/components/schemas/Check" }, session } }),
    }),
    checkBody,
    async (c) => {
      const b = c.req.valid("json");
      // a header that does not verify is 400 session_invalid here as on every route: adopted as
      // a new history, the edit (another rulebook, catalogue or name) would come back sealed
      const s = await rt.resume(c, b.session);
      if (typeof b.options.confirmation === "string") await recordRefusal(c.get("decisionOf"), s, b.options.confirmation);
      const check = await s.checkToolCall(b.tool, b.args, b.options);
      c.set("checked", { session: s.id, tool: b.tool, args: b.args, options: b.options, catalogue: s.catalogue, run: () => lastRunOf(s), resultTool: (n: number) => toolAt(s.verifiedPrefix()?.entries ?? [], n), check });
      // what the decision was made with, only when asked: the answer stays what the check says
      const bundles = b.options?.explain === true ? bundlesOf(c.get("licence")) : undefined;
      if (bundles) check.detail.bundles = bundles;
      return rt.reply(c, s, { check });
    },
  );

  app.post(
    "/report",
    describe({
      operationId: "reportOutcome",
      summary: "report what happened to a checked call",
      requestBody: json({ type: "object", required: ["session", "step", "outcome"], properties: { session, step: { type: "integer" }, outcome: { enum: [...OUTCOMES] }, result: {} } }),
      responses: ok({ type: "object", properties: { step: { type: "integer" }, session } }),
    }),
    reportBody,
    async (c) => {
      const b = c.req.valid("json");
      const s = await rt.resume(c, b.session);
      const r = await s.report(b.step, b.outcome, b.result);
      return rt.reply(c, s, { step: r.step });
    },
  );

  app.post(
    "/filter",
    describe({
      operationId: "filterRead",
      summary: "the records an allowed read's `filter` passes on",
      requestBody: json({ type: "object", required: ["session", "step", "result"], properties: { session, step: { type: "integer" }, result: {} } }),
      responses: ok({ type: "object", properties: { kept: {}, dropped: { type: "integer" }, unknown: { type: "integer" }, problem: { type: "object" } } }),
    }),
    filterBody,
    async (c) => {
      const b = c.req.valid("json");
      const s = await rt.resume(c, b.session);
      return c.json(await s.filter(b.step, b.result));
    },
  );

  app.post(
    "/plan",
    describe({
      operationId: "planGuardedStep",
      summary: "for the guarded step: a write's declared undo with bound arguments (`undo`), the read that follows a write's outcome (`follow`), or whether a follow read's result says done/failed/pending (`judge`)",
      requestBody: json({ type: "object", required: ["session", "kind", "tool"], properties: { session, kind: { enum: [...KINDS] }, tool: { type: "string" }, step: { type: "integer" }, args: { type: "object" }, result: {} } }),
      responses: ok({ type: "object", properties: { plan: {} } }),
    }),
    planBody,
    async (c) => {
      const b = c.req.valid("json");
      const s = await rt.resume(c, b.session);
      if (b.kind === "undo") return c.json({ plan: s.planUndo(b.tool, b.args, b.result) });
      if (b.kind === "follow") return c.json({ plan: s.planFollow(b.tool, b.step, b.args, b.result) });
      return c.json({ plan: s.judgeOutcome(b.tool, b.result) });
    },
  );

  return app;
}
