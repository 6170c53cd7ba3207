/** Reading request bodies strictly: the right content type, a size limit, JSON that parses to an object. */
import type { Context } from "hono";
import { HttpError, MAX_BODY_BYTES } from "./http-errors.js";

async function readText(c: Context): Promise<string> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw new HttpError(413, "body_too_large", `the body is over ${MAX_BODY_BYTES} bytes`);
  const buf = await c.req.arrayBuffer();
  if (buf.byteLength > MAX_BODY_BYTES) throw new HttpError(413, "body_too_large", `the body is over ${MAX_BODY_BYTES} bytes`);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(buf);
  } catch {
    throw new HttpError(400, "malformed_json", "the body is not UTF-8");
  }
}

export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") throw new HttpError(415, "unsupported_media_type", "send `content-type: application/json`");
  const text = await readText(c);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, "malformed_json", `the body is not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new HttpError(400, "invalid_request", "the body must be a JSON object", "");
  return value as Record<string, unknown>;
}

export async function yamlBody(c: Context, csvToo = false): Promise<string> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "text/plain", "application/json", ...(csvToo ? ["text/csv"] : [])].includes(type)) {
    throw new HttpError(415, "unsupported_media_type", "send the catalogue as `content-type: application/yaml`");
  }
  return readText(c);
}

export function field<T>(body: Record<string, unknown>, name: string, check: (v: unknown) => v is T, what: string, optional = false): T | undefined {
  const v = body[name];
  if (v === undefined && optional) return undefined;
  if (!check(v)) throw new HttpError(400, "invalid_request", `\`${name}\` must be ${what}`, `/${name}`);
  return v;
}

export const isString = (v: unknown): v is string => typeof v === "string";
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
export const isInt = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
