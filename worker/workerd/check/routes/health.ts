/** GET /v1/health and GET /v1/openapi.json: no key needed, answered even without a licence. */
import { Hono } from "hono";
import { describe, type RouteLike } from "../../http/openapi.js";
import { requestClock } from "../clock.js";
import type { CheckEnv } from "../env.js";
import { openapiDocument, publicErrors } from "../openapi.js";
import type { CheckRuntime } from "../runtime.js";

export function healthRoutes(rt: CheckRuntime, routes: () => readonly RouteLike[], version = "0.1.0"): Hono<CheckEnv> {
  const app = new Hono<CheckEnv>();

  app.get(
    "/health",
    describe({
      operationId: "getHealth",
      summary: "liveness and the worker's licence stage; no key needed",
      security: [],
      responses: {
        "200": {
          description: "ok",
          content: { "application/json": { schema: { type: "object", properties: { ok: { type: "boolean" }, service: { type: "string" }, version: { type: "string" }, wasm: { type: "string" }, licence: { type: "object", description: "stage (active, grace, lapsed) and dates, or why there is none" } } } } },
        },
        ...publicErrors,
      },
    }),
    // the test clock (x-stalwart-now) as checks take it: health tells the stage a check would see
    requestClock(rt.defaultNow()),
    async (c) => {
      let wasm = "ok";
      try {
        rt.core().sha256(new Uint8Array(0));
      } catch {
        wasm = "unavailable";
      }
      const licence = await rt.describeLicence(c);
      return c.json({ ok: wasm === "ok", service: "stalwart-check", version, wasm, licence });
    },
  );

  // Built on first use: by then every route module is mounted.
  let doc: ReturnType<typeof openapiDocument> | undefined;
  app.get(
    "/openapi.json",
    describe({
      operationId: "getOpenApi",
      summary: "this document",
      security: [],
      responses: { "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } }, ...publicErrors },
    }),
    (c) => c.json((doc ??= openapiDocument(routes(), version))),
  );

  return app;
}
