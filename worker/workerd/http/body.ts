/**
 * Reading request bodies, the same way in both workers: hono's `bodyLimit` bounds them; the
 * content type is required (415) where the worker requires one; UTF-8 is read strictly (what is checked is what was sent, not
 * a replacement character); JSON must be an object, giving no key twice, whose fields the route
 * checks once, up front, and reads typed from `c.req.valid("json")`.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { InputError, didYouMean, duplicateKey, inexactInteger } from "../../portable/engine/index.js";
import { HttpError } from "./errors.js";

/** Past `maxBytes`, 413 `body_too_large`, whether the length is declared or only streamed. */
export function limitBody(maxBytes: number, what = "the body", hint?: string): MiddlewareHandler {
  return bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw new HttpError("body_too_large", `${what} is over ${maxBytes} bytes`, undefined, hint);
    },
  });
}

const mediaType = (c: Context): string => (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";

/** The body as text: one of `types` (415 otherwise), decoded as strict UTF-8 (400 otherwise). */
export async function readText(c: Context, types: readonly string[], what = "the body"): Promise<string> {
  if (!types.includes(mediaType(c))) throw new HttpError("unsupported_media_type", `send ${what} as \`content-type: ${types[0]}\``);
  // a JSON body that is not UTF-8 is malformed JSON; a YAML or CSV text, a request that is wrong
  const json = types.length === 1 && types[0] === "application/json";
  return strictUtf8(await c.req.arrayBuffer(), json ? undefined : () => new InputError(`${what} is not UTF-8 text`, ""));
}

/** One per module: a fatal decoder without `stream` keeps no state between calls. */
const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function strictUtf8(buf: ArrayBuffer, notUtf8?: () => Error): string {
  try {
    return utf8Strict.decode(buf);
  } catch {
    throw notUtf8?.() ?? new HttpError("malformed_json", "the body is not UTF-8");
  }
}

export interface JsonRules {
  /** the error a body that is not a JSON object answers; default `InputError` (`invalid_request`) */
  invalid?: (message: string, pointer: string) => Error;
  /** read the body as JSON whatever its content type says (the licence service always has) */
  anyType?: boolean;
  /** an empty body reads as `{}` (the licence service's routes whose fields all have defaults) */
  emptyIsObject?: boolean;
  /** the body's fields: any other is a 400 naming it (a typo such as `rulebok` must not drop the rulebook in silence) */
  keys?: readonly string[];
}

const inputError = (message: string, pointer: string) => new InputError(message, pointer);

/**
 * A JSON object body, checked by `read` (with `field`), handed to the route as
 * `c.req.valid("json")`: hono's validated-data contract. Not hono's `validator("json")` itself:
 * that parses only when the content type says JSON and otherwise hands the check `{}` in silence,
 * decodes UTF-8 leniently, and answers a parse error without saying where.
 */
export function jsonBody<T extends object>(read: (body: Record<string, unknown>) => T, rules: JsonRules = {}): MiddlewareHandler<any, string, { in: { json: unknown }; out: { json: T } }> {
  return async (c, next) => {
    const text = rules.anyType ? strictUtf8(await c.req.arrayBuffer()) : await readText(c, ["application/json"]);
    const body = parseObject(text, rules);
    if (rules.keys) onlyKeys(body, rules.keys, rules.invalid ?? inputError);
    c.req.addValidatedData("json", read(body));
    await next();
  };
}

function onlyKeys(body: Record<string, unknown>, keys: readonly string[], invalid: (message: string, pointer: string) => Error): void {
  for (const k of Object.keys(body)) {
    if (keys.includes(k)) continue;
    const hint = didYouMean(k, keys) ?? `the fields here are ${keys.map((x) => `\`${x}\``).join(", ")}`;
    throw invalid(`unknown field \`${k}\` in the body; ${hint}`, `/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`);
  }
}

/** Parse a JSON object from text already read (a signed body, whose bytes are hashed first). */
export function parseObject(text: string, rules: JsonRules = {}): Record<string, unknown> {
  if (rules.emptyIsObject && text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new HttpError("malformed_json", `the body is not JSON: ${(err as Error).message}`, "");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw (rules.invalid ?? inputError)("the body must be a JSON object", "");
  // what is checked must be the number the caller wrote, not the one it rounds to
  const inexact = inexactInteger(text);
  if (inexact) {
    const message = `the integer ${inexact.written} at \`${inexact.pointer}\` cannot be read exactly here (it would read as ${BigInt(inexact.read)}): JSON numbers are exact only within ±(2^53 − 1); send a larger one as a string`;
    throw (rules.invalid ?? inputError)(message, inexact.pointer);
  }
  // JSON.parse keeps a key's last value; a host that runs the call from this text may read its
  // first: `{"amount": 900, "amount": 50}` would be checked, shown and approved as 50 and run as 900
  const twice = duplicateKey(text);
  if (twice) throw (rules.invalid ?? inputError)(`the body gives \`${twice.key}\` twice in one object (at \`${twice.pointer}\`): which one holds is not clear, so nothing is read`, twice.pointer);
  return v as Record<string, unknown>;
}

/**
 * Field checks for `read`: `field(body, name, check, what)` is the value or a 400 naming the
 * field (`\`name\` must be <what>`, pointer `/name`); `optional` lets it be absent.
 */
export function fields(invalid: (message: string, pointer: string) => Error = inputError) {
  function field<V>(body: Record<string, unknown>, name: string, check: (v: unknown) => v is V, what: string): V {
    const v = Object.hasOwn(body, name) ? body[name] : undefined;
    if (!check(v)) throw invalid(`\`${name}\` must be ${what}`, `/${name}`);
    return v;
  }
  function optional<V>(body: Record<string, unknown>, name: string, check: (v: unknown) => v is V, what: string): V | undefined {
    const v = Object.hasOwn(body, name) ? body[name] : undefined;
    return v === undefined ? undefined : field(body, name, check, what);
  }
  function present(body: Record<string, unknown>, name: string, message: string): unknown {
    if (!Object.hasOwn(body, name)) throw invalid(message, `/${name}`);
    return body[name];
  }
  return { field, optional, present };
}

export const isString = (v: unknown): v is string => typeof v === "string";
export const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
export const isInt = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
export const oneOf = <V extends string>(values: readonly V[]) => (v: unknown): v is V => typeof v === "string" && (values as readonly string[]).includes(v);
