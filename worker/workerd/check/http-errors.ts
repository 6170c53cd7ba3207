/**
 * Every error the check worker answers: `{error: {code, message, pointer?}}` with a 4xx status,
 * never a 500 and never an allow (interfaces.md, "Check worker").
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type HttpErrorCode =
  | "unauthorized" | "not_found" | "method_not_allowed" | "unsupported_media_type" | "body_too_large"
  | "malformed_json" | "invalid_request" | "catalogue_invalid" | "catalogue_not_found" | "session_invalid"
  | "history_invalid" | "internal_error";

export class HttpError extends Error {
  constructor(readonly status: ContentfulStatusCode, readonly code: HttpErrorCode | string, message: string, readonly pointer?: string, readonly extra?: Record<string, unknown>) {
    super(message);
  }
}

export function errorBody(code: string, message: string, pointer?: string, extra?: Record<string, unknown>) {
  return { error: { code, message, ...(pointer !== undefined ? { pointer } : {}), ...(extra ?? {}) } };
}

export function sendError(c: Context, err: HttpError) {
  return c.json(errorBody(err.code, err.message, err.pointer, err.extra), err.status);
}

/** 1 MiB: a tool call's arguments and a session's history fit easily; anything larger is refused. */
export const MAX_BODY_BYTES = 1 << 20;
