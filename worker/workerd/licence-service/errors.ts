/**
 * Errors of the licence service: every refusal is a 4xx `{error: {code, message, pointer?, hint?}}`.
 * A `ServiceError` travels from a Durable Object to the worker as the same JSON and is re-raised.
 * Its status is the one the thrower gives (the Durable Objects choose theirs); the codes are in
 * the one registry (worker/portable/engine/errors.ts).
 */
import { StalwartError, isErrorCode, toWire, type ErrorCode, type WireError } from "./deps.js";

export type ServiceStatus = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503;

export class ServiceError extends StalwartError {
  constructor(
    readonly status: ServiceStatus,
    code: ErrorCode,
    message: string,
    pointer?: string,
    hint?: string,
  ) {
    super(code, message, { pointer, hint });
  }

  toJSON(): { error: WireError } {
    return toWire(this, this.status).body;
  }
}

function errorResponse(err: ServiceError): Response {
  return Response.json(err.toJSON(), { status: err.status });
}

/** Re-raise an error that came back from a Durable Object (or wrap an unexpected answer). */
export async function raiseFrom(res: Response): Promise<never> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  const e = (body as { error?: { code?: unknown; message?: unknown; pointer?: unknown; hint?: unknown } } | undefined)?.error;
  if (e && typeof e.code === "string" && isErrorCode(e.code) && typeof e.message === "string") {
    throw new ServiceError(res.status as ServiceStatus, e.code, e.message, typeof e.pointer === "string" ? e.pointer : undefined, typeof e.hint === "string" ? e.hint : undefined);
  }
  throw new ServiceError(503, "storage_unavailable", `licence storage answered ${res.status}`);
}

export const bad = (message: string, pointer?: string, hint?: string) => new ServiceError(400, "malformed_request", message, pointer, hint);
