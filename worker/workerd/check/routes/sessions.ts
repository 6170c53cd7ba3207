/**
 * POST /v1/sessions (start one) and POST /v1/sessions/read (a person's turn). History stays with
 * the caller: each answers with the session to send next time, as the SDK's `toJSON()`.
 */
import { Hono } from "hono";
import { Session, type CompiledRulebook, type Language } from "../../../portable/engine/index.js";
import { fields, isBoolean, isObject, isString, jsonBody, oneOf } from "../../http/body.js";
import { HttpError } from "../../http/errors.js";
import { describe } from "../../http/openapi.js";
import type { CheckEnv } from "../env.js";
import { json, NAME_PATTERN, ok, session } from "../openapi.js";
import { RULEBOOK, type CheckRuntime } from "../runtime.js";
import { sessionOf } from "../session-shape.js";
import { registeredName } from "./catalogues.js";

const { field, optional } = fields();
const LANGUAGES: readonly Language[] = ["en", "pt-BR"];

const startBody = jsonBody((b) => ({
  catalogue: registeredName(field(b, "catalogue", isString, "the name of a registered catalogue"), "catalogue", "/catalogue"),
  name: field(b, "name", isString, "the session's name"),
  language: optional(b, "language", oneOf(LANGUAGES), "`en` or `pt-BR`"),
  context: optional(b, "context", isObject, "an object"),
  agent: optional(b, "agent", isString, "an agent name"),
  rulebook: optional(b, "rulebook", (v): v is string => isString(v) && registeredName(v, "rulebook", "/rulebook") === v, "the name of a registered rulebook"),
  taint: optional(b, "taint_model_after_untrusted", isBoolean, "true or false"),
}), { keys: ["catalogue", "name", "language", "context", "agent", "rulebook", "taint_model_after_untrusted"] });

const readBody = jsonBody((b) => ({ text: field(b, "text", isString, "the person's turn, a string"), session: sessionOf(b) }), { keys: ["session", "text"] });

export function sessionRoutes(rt: CheckRuntime): Hono<CheckEnv> {
  const app = new Hono<CheckEnv>();

  app.post(
    "/sessions",
    describe({
      operationId: "startSession",
      summary: "start a session",
      requestBody: json({
        type: "object",
        required: ["catalogue", "name"],
        properties: { catalogue: { type: "string", pattern: NAME_PATTERN }, name: { type: "string" }, language: { enum: ["en", "pt-BR"] }, context: { type: "object" }, agent: { type: "string" }, rulebook: { type: "string", pattern: NAME_PATTERN, description: "a registered rulebook's name" }, taint_model_after_untrusted: { type: "boolean" } },
      }),
      responses: ok({ type: "object", properties: { session } }, "201"),
    }),
    startBody,
    async (c) => {
      const b = c.req.valid("json");
      const store = rt.stores(c).catalogues(c.get("tenant"));
      const stored = await store.byName(b.catalogue);
      if (!stored) throw new HttpError("catalogue_not_found", `no catalogue named \`${b.catalogue}\`; register it with PUT /v1/catalogues/${b.catalogue}`, "/catalogue");
      const catalogue = await rt.catalogueByDigest(c, stored.digest);
      let rulebook: CompiledRulebook | undefined;
      if (b.rulebook !== undefined) {
        const rb = await store.byName(`${RULEBOOK}${b.rulebook}`);
        if (!rb) throw new HttpError("rulebook_not_found", `no rulebook named \`${b.rulebook}\`; register it with PUT /v1/rulebooks/${b.rulebook}`, "/rulebook");
        rulebook = await rt.rulebookByDigest(c, rb.digest);
      }
      const s = new Session(rt.engineFor(c), b.name, catalogue, {
        ...(b.language ? { language: b.language } : {}),
        ...(b.context ? { context: b.context } : {}),
        ...(b.agent ? { agent: b.agent } : {}),
        ...(b.taint ? { taintModelAfterUntrusted: true } : {}),
        ...(rulebook ? { rulebook } : {}),
      });
      return rt.reply(c, s, {}, 201);
    },
  );

  app.post(
    "/sessions/read",
    describe({
      operationId: "readTurn",
      summary: "a person's turn",
      requestBody: json({ type: "object", required: ["session", "text"], properties: { session, text: { type: "string" } } }),
      responses: ok({ type: "object", properties: { step: { type: "integer" }, restarted: { type: "object", properties: { why: { type: "string" } }, description: "present when the session sent did not verify or was not the newest: the turn starts a new history (step 0)" }, session } }),
    }),
    readBody,
    async (c) => {
      const b = c.req.valid("json");
      const s = await rt.resume(c, b.session);
      const { step, restarted } = await s.read(b.text);
      return rt.reply(c, s, restarted ? { step, restarted } : { step });
    },
  );

  return app;
}
