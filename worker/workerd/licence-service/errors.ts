/**
 * Errors of the licence service: every refusal is a 4xx `{error: {code, message, pointer?, hint?}}`.
 * A `ServiceError` travels from a Durable Object to the worker as the same JSON and is re-raised.
 */
export class ServiceError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503,
    readonly code: string,
    message: string,
    readonly pointer?: string,
    readonly hint?: string,
  ) {
    super(message);
  }

  toJSON(): { error: { code: string; message: string; pointer?: string; hint?: string } } {
    const error: { code: string; message: string; pointer?: string; hint?: string } = { code: this.code, message: this.message };
    if (this.pointer !== undefined) error.pointer = this.pointer;
    if (this.hint !== undefined) error.hint = this.hint;
    return { error };
  }
}

export function errorResponse(err: ServiceError): Response {
  return new Response(JSON.stringify(err.toJSON()), { status: err.status, headers: { "content-type": "application/json" } });
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
  if (e && typeof e.code === "string" && typeof e.message === "string") {
    throw new ServiceError(res.status as ServiceError["status"], e.code, e.message, typeof e.pointer === "string" ? e.pointer : undefined, typeof e.hint === "string" ? e.hint : undefined);
  }
  throw new ServiceError(503, "storage_unavailable", `licence storage answered ${res.status}`);
}

export const bad = (message: string, pointer?: string, hint?: string) => new ServiceError(400, "malformed_request", message, pointer, hint);
