/**
 * The licence service (licensing.md, "Service endpoints"): a Hono app over two Durable Object
 * namespaces, one route module per audience (routes/licences.ts: organisations and
 * installations; routes/admin.ts). This layer only routes, authenticates (auth.ts) and validates;
 * the state and every check-then-write live in the objects (licence-object.ts, directory-object.ts).
 *
 * Every refusal is a 4xx `{error: {code, message, pointer?, hint?}}` (http/errors.ts, the codes in
 * the engine's one registry); a malformed request never reaches an object and never gets a 500.
 */
import { Hono } from "hono";
import { limitBody } from "../http/body.js";
import { answerErrors } from "../http/errors.js";
import { MAX_BODY, type ServiceEnv } from "./context.js";
import { ServiceError } from "./errors.js";
import { adminRoutes } from "./routes/admin.js";
import { licenceRoutes } from "./routes/licences.js";

export function createApp(): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>();
  answerErrors(app, { service: "licence service", log: (err) => console.error("stalwart-licence internal error:", (err as Error)?.stack ?? String(err)), status: (err) => (err instanceof ServiceError ? err.status : undefined), notFoundHint: 'see licensing.md, "Service endpoints"' });

  app.get("/health", (c) => c.json({ ok: true, service: "stalwart-licence" }));
  app.use("*", limitBody(MAX_BODY));
  app.route("/v1", licenceRoutes());
  app.route("/admin", adminRoutes());
  return app;
}
