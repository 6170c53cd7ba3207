/**
 * The OpenAPI 3.1 document the worker serves at GET /v1/openapi.json: its paths are generated
 * from the mounted routes (each route module describes its own, http/openapi.ts), the rest is
 * here, with the pieces the route modules describe themselves with.
 */
import { REASON_CODES } from "../../portable/engine/index.js";
import { openapiPaths, type RouteLike } from "../http/openapi.js";

const error = { $ref: "#/components/schemas/Error" };
const answer = (description: string) => ({ description, content: { "application/json": { schema: error } } });

/** The error answers of a route behind the key (every one of them is `{error: {code, message}}`). */
const errors = {
  "400": answer("malformed request: `malformed_json`, `invalid_request` (with a `pointer`), `session_invalid`, `catalogue_invalid` (with the first 100 `problems` and `more_problems`, how many it leaves out)"),
  "401": answer("missing or wrong key (`unauthorized`)"),
  "404": answer("unknown route, catalogue or rulebook (`not_found`, `catalogue_not_found`, `rulebook_not_found`)"),
  "409": answer("a session that does not verify or moved on (`history_invalid`), the delta form to an isolate that does not hold the entries left out (`session_history_needed`: send it in full), or an approval decided already (`approval_decided`)"),
  "413": answer("body over 1 MiB, a catalogue or rulebook over 256 KiB, or a session over 1 MiB in full (`body_too_large`)"),
  "415": answer("wrong content type (`unsupported_media_type`)"),
  "503": answer("the worker has no valid licence (`licence_required`, `licence_invalid`) or no history secret (`history_secret_missing`); nothing is allowed"),
};

/** The error answers of a route that needs no key. */
export const publicErrors = { "4XX": answer("an error answer, e.g. `not_found` for a method the route does not take") };

export const json = (schema: object) => ({ required: true, content: { "application/json": { schema } } });
export const ok = (schema: object, code = "200") => ({ [code]: { description: "ok", content: { "application/json": { schema } } }, ...errors });
export const session = { $ref: "#/components/schemas/Session" };
export const NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";

const components = {
  securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
  schemas: {
    Error: {
      type: "object",
      required: ["error"],
      properties: {
        error: {
          type: "object",
          required: ["code", "message"],
          properties: { code: { type: "string" }, message: { type: "string" }, pointer: { type: "string" }, hint: { type: "string" }, problems: { type: "array", items: { type: "object" } }, more_problems: { type: "integer" } },
        },
      },
    },
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
        entries: { type: "array", items: { type: "object" }, description: "every entry; with `since`, only the entries from index `since` on" },
        seal: { type: "string" }, head: { type: "string" },
        since: { type: "integer", minimum: 0, description: "the entries before this index are left out: the ones the previous answer returned (or carried). The answer then returns only the entries from `since` on, with `since`; 409 `session_history_needed` when this isolate does not hold them: send the session in full" },
      },
    },
  },
};

/** The document for the routes of the mounted app (`app.routes`). */
export function openapiDocument(routes: readonly RouteLike[], version = "0.1.0") {
  return {
    openapi: "3.1.0",
    info: {
      title: "stalwart-agents check worker",
      version,
      description:
        "Checks a tool call before it runs: allow, confirm or refuse, with reasons (checks.md). The caller carries the session: every session route takes the `session` a previous answer returned and answers with the next one.",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [{ url: "/", description: "the worker that serves this document" }],
    security: [{ bearer: [] }],
    paths: openapiPaths(routes).paths,
    components,
  };
}
