/** The OpenAPI 3.1 document the worker serves at GET /v1/openapi.json. */
import { OUTCOMES, REASON_CODES } from "../../portable/engine/index.js";
const error = { $ref: "#/components/schemas/Error" };
const errors = {
  "400": { description: "malformed request", content: { "application/json": { schema: error } } },
  "401": { description: "missing or wrong key", content: { "application/json": { schema: error } } },
  "404": { description: "unknown route or catalogue", content: { "application/json": { schema: error } } },
  "413": { description: "body over 1 MiB", content: { "application/json": { schema: error } } },
  "415": { description: "wrong content type", content: { "application/json": { schema: error } } },
  "503": { description: "the worker has no valid licence (`licence_required`, `licence_invalid`) or no history secret; nothing is allowed", content: { "application/json": { schema: error } } },
};
const json = (schema: object) => ({ required: true, content: { "application/json": { schema } } });
const ok = (schema: object, code = "200") => ({ [code]: { description: "ok", content: { "application/json": { schema } } }, ...errors });
const session = { $ref: "#/components/schemas/Session" };

export const openapi = {
  openapi: "3.1.0",
  info: {
    title: "stalwart-agents check worker",
    version: "0.1.0",
    description:
      "Checks a tool call before it runs: allow, confirm or refuse, with reasons (checks.md). The caller carries the session: every session route takes the `session` a previous answer returned and answers with the next one.",
  },
  security: [{ bearer: [] }],
  paths: {
    "/v1/health": {
      get: {
        security: [],
        summary: "liveness and the worker's licence stage; no key needed",
        responses: ok({ type: "object", properties: { ok: { type: "boolean" }, wasm: { type: "string" }, licence: { type: "object", description: "stage (active, grace, lapsed) and dates, or why there is none" } } }),
      },
    },
    "/v1/openapi.json": { get: { security: [], summary: "this document", responses: { "200": { description: "OpenAPI 3.1" } } } },
    "/v1/catalogues/{name}": {
      parameters: [{ name: "name", in: "path", required: true, schema: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$" } }],
      put: {
        summary: "register or replace a catalogue (agent.yaml); lint errors come back as 400 with file:line:column",
        requestBody: { required: true, content: { "application/yaml": { schema: { type: "string" } } } },
        responses: ok({ type: "object", properties: { name: { type: "string" }, digest: { type: "string" }, tools: { type: "array", items: { type: "string" } } } }),
      },
      get: { summary: "the registered catalogue", responses: ok({ type: "object", properties: { name: { type: "string" }, digest: { type: "string" }, yaml: { type: "string" } } }) },
    },
    "/v1/rulebooks/{name}": {
      parameters: [{ name: "name", in: "path", required: true, schema: { type: "string", pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$" } }],
      put: {
        summary: "register or replace a rulebook (YAML, or a rules spreadsheet as CSV); errors come back as 400 with file:line:column",
        requestBody: { required: true, content: { "application/yaml": { schema: { type: "string" } }, "text/csv": { schema: { type: "string" } } } },
        responses: ok({ type: "object", properties: { name: { type: "string" }, digest: { type: "string" }, rules: { type: "integer" } } }),
      },
    },
    "/v1/sessions": {
      post: {
        summary: "start a session",
        requestBody: json({ type: "object", required: ["catalogue", "name"], properties: { catalogue: { type: "string" }, name: { type: "string" }, language: { enum: ["en", "pt-BR"] }, context: { type: "object" }, agent: { type: "string" }, rulebook: { type: "string", description: "a registered rulebook's name" }, taint_model_after_untrusted: { type: "boolean" } } }),
        responses: ok({ type: "object", properties: { session } }, "201"),
      },
    },
    "/v1/sessions/read": {
      post: { summary: "a person's turn", requestBody: json({ type: "object", required: ["session", "text"], properties: { session, text: { type: "string" } } }), responses: ok({ type: "object", properties: { step: { type: "integer" }, session } }) },
    },
    "/v1/check": {
      post: {
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
              },
            },
          },
        }),
        responses: ok({ type: "object", properties: { check: { $ref: "#/components/schemas/Check" }, session } }),
      },
    },
    "/v1/report": {
      post: {
        summary: "report what happened to a checked call",
        requestBody: json({ type: "object", required: ["session", "step", "outcome"], properties: { session, step: { type: "integer" }, outcome: { enum: [...OUTCOMES] }, result: {} } }),
        responses: ok({ type: "object", properties: { step: { type: "integer" }, session } }),
      },
    },
    "/v1/filter": {
      post: {
        summary: "the records an allowed read's `filter` passes on",
        requestBody: json({ type: "object", required: ["session", "step", "result"], properties: { session, step: { type: "integer" }, result: {} } }),
        responses: ok({ type: "object", properties: { kept: {}, dropped: { type: "integer" }, unknown: { type: "integer" }, problem: { type: "object" } } }),
      },
    },
    "/v1/plan": {
      post: {
        summary: "for the guarded step: a write's declared undo with bound arguments (`undo`), the read that follows a write's outcome (`follow`), or whether a follow read's result says done/failed/pending (`judge`)",
        requestBody: json({ type: "object", required: ["session", "kind", "tool"], properties: { session, kind: { enum: ["undo", "follow", "judge"] }, tool: { type: "string" }, step: { type: "integer" }, args: { type: "object" }, result: {} } }),
        responses: ok({ type: "object", properties: { plan: {} } }),
      },
    },
  },
  components: {
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    schemas: {
      Error: { type: "object", required: ["error"], properties: { error: { type: "object", required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" }, pointer: { type: "string" } } } } },
      Check: {
        type: "object",
        required: ["decision", "reasons", "detail", "step"],
        properties: { decision: { enum: ["allow", "confirm", "refuse"] }, reasons: { type: "array", items: { anyOf: [{ enum: [...REASON_CODES] }, { type: "string", description: "the name of the rulebook rule that refused" }] } }, detail: { type: "object" }, confirmation: { type: "string" }, step: { type: "integer" } },
      },
      Session: {
        type: "object",
        description: "what the previous answer returned, unchanged but for edits you want detected",
        required: ["v", "id", "name", "language", "catalogue", "entries", "seal", "head"],
        properties: {
          v: { const: 1 }, id: { type: "string" }, name: { type: "string" }, language: { enum: ["en", "pt-BR"] }, agent: { type: ["string", "null"] }, context: { type: "object" },
          catalogue: { type: "string" }, rulebook: { type: ["string", "null"] }, taint_model_after_untrusted: { type: "boolean" },
          entries: { type: "array", items: { type: "object" } }, seal: { type: "string" }, head: { type: "string" },
        },
      },
    },
  },
} as const;
