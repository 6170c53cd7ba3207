/**
 * The check worker's app (Hono): one route module per resource, mounted under /v1. Runtime-
 * agnostic: the Workers entry (index.ts) passes the compiled WASM module and Durable Object
 * stores; tests pass the Node core and memory stores and drive it with `app.request()`. History
 * stays with the caller: every session route takes the saved session and answers with the next
 * one, exactly as the SDK's `toJSON()` / `resume()`. The worker runs under its installation's
 * licence (`STALWART_LICENCE`, licence.ts / LICENCE.md): without one every route but health and
 * the OpenAPI document answers 503 `licence_required`.
 *
 * Every request behind the key passes, in order: the key (tenant), the licence, the request's
 * clock, the body limit; then its route checks its body in full before it looks anything up.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { limitBody } from "../http/body.js";
import { answerErrors } from "../http/errors.js";
import { requestClock } from "./clock.js";
import { mountApprovals } from "./approvals.js";
import type { AppOptions, CheckEnv } from "./env.js";
import { catalogueRoutes } from "./routes/catalogues.js";
import { checkRoutes } from "./routes/checks.js";
import { healthRoutes } from "./routes/health.js";
import { rulebookRoutes } from "./routes/rulebooks.js";
import { sessionRoutes } from "./routes/sessions.js";
import { MAX_BODY_BYTES } from "./carried.js";
import { CheckRuntime } from "./runtime.js";
import { keysOf, tenantOf } from "./tenants.js";

export type { AppOptions } from "./env.js";

;

export function createApp(opts: AppOptions) {
  const maxBodyBytes = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const rt = new CheckRuntime({ ...opts, maxBodyBytes });
  const app = new Hono<CheckEnv>();
  answerErrors(app, {
    service: "worker",
    // For the operator's log: a bug, not bad input. Nothing of the request is echoed back.
    log: (err) => console.error("stalwart-check internal error:", (err as Error)?.stack ?? String(err)),
  });

  // No key, no licence needed.
  app.route("/v1", healthRoutes(rt, () => app.routes, opts.version));

  // Everything below needs a key; the worker is a runtime: nothing is answered without its licence (licensing.md).
  const authenticate: MiddlewareHandler<CheckEnv> = async (c, next) => {
    c.set("tenant", tenantOf(c.req.header("authorization"), keysOf(c.env?.STALWART_API_KEYS)));
    c.set("licence", await rt.licenceOf(c));
    await next();
  };
  app.use("/v1/*", authenticate, requestClock(rt.defaultNow()), limitBody(maxBodyBytes));
  mountApprovals(app, rt, opts); // issue 12: before the check route, whose confirms it records

  app.route("/v1", catalogueRoutes(rt));
  app.route("/v1", rulebookRoutes(rt));
  app.route("/v1", sessionRoutes(rt));
  app.route("/v1", checkRoutes(rt));
  return app;
}
