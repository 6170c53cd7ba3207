/**
 * How both workers answer errors: `{error: {code, message, pointer?, hint?}}` with the status the
 * engine's one registry gives the code (worker/portable/engine/errors.ts), never a 500 for bad
 * input and never an allow. A bug is a 500 `internal_error` that echoes nothing of the request.
 */
import type { Context, Env, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { StalwartError, statusOf, toWire, type ErrorCode } from "../../portable/engine/index.js";

/** An error only HTTP answers: the route, the key, the body, the worker's own set-up. */
export class HttpError extends StalwartError {
  constructor(code: ErrorCode, message: string, pointer?: string, hint?: string) {
    super(code, message, { pointer, hint });
  }
}

export interface ErrorAnswers {
  /** said in the 500's message: "the <service> failed on this request" */
  service: string;
  /** the status of an error that carries its own (the licence service's Durable Objects choose theirs) */
  status?: (err: StalwartError) => number | undefined;
  /** said with every `not_found`: where the routes are listed */
  notFoundHint?: string;
  /** where a bug is written for the operator; default: nowhere */
  log?: (err: unknown) => void;
}

function answer(c: Context, err: StalwartError, status = statusOf(err.code)): Response {
  const wire = toWire(err, status);
  return c.json(wire.body, wire.status as ContentfulStatusCode);
}

/** `onError` and `notFound` for a worker's app: every error through the registry. */
export function answerErrors<E extends Env>(app: Hono<E>, o: ErrorAnswers): void {
  app.onError((err, c) => {
    if (err instanceof StalwartError) return answer(c, err, o.status?.(err) ?? statusOf(err.code));
    // hono's own refusals (none of its middleware we use throws one, but a future one might)
    if (err instanceof HTTPException && err.status < 500) return answer(c, new HttpError(`http_${err.status}`, err.message || "the request was refused"));
    o.log?.(err);
    return answer(c, new HttpError("internal_error", `the ${o.service} failed on this request; nothing was allowed`));
  });
  app.notFound((c) => answer(c, new HttpError("not_found", `no route \`${c.req.method} ${new URL(c.req.url).pathname}\``, undefined, o.notFoundHint)));
}

