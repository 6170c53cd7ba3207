/**
 * The OpenAPI `paths` generated from the routes themselves: each documented route carries its
 * operation as a pass-through middleware (`describe(op)`, the hono-openapi habit), and
 * `openapiPaths(app.routes)` reads the operations back from the mounted app. A route without one
 * is listed as undocumented, so a test can hold the two equal.
 */
import type { MiddlewareHandler } from "hono";

export interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  /** `[]`: no key needed */
  security?: readonly Record<string, readonly string[]>[];
  /** schemas of the path's `:params`; a param not named here is a string */
  params?: Readonly<Record<string, object>>;
  requestBody?: object;
  responses: Readonly<Record<string, object>>;
}

const OPERATION = Symbol("openapi operation");
type Described = MiddlewareHandler & { [OPERATION]: Operation };

/** The route's OpenAPI operation, as the first handler of its chain. */
export function describe(op: Operation): MiddlewareHandler {
  const mw = (async (_c, next) => {
    await next();
  }) as Described;
  mw[OPERATION] = op;
  return mw;
}

export interface RouteLike {
  method: string;
  path: string;
  handler: unknown;
}

/** `/v1/catalogues/:name` → `/v1/catalogues/{name}` and its parameter names. */
export function openapiPath(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const out = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\{[^}]*\})?/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: out, params };
}

/**
 * The paths object of every described route, and every route (method and path) that is not
 * described. Middleware registered with `app.use` (method ALL) is neither.
 */
export function openapiPaths(routes: readonly RouteLike[]): { paths: Record<string, Record<string, object>>; undocumented: string[] } {
  const paths: Record<string, Record<string, object>> = {};
  const documented = new Set<string>();
  const seen = new Set<string>();
  for (const r of routes) {
    if (r.method === "ALL") continue;
    const route = `${r.method} ${r.path}`;
    seen.add(route);
    const op = operationOf(r.handler);
    if (!op) continue;
    documented.add(route);
    const { path, params } = openapiPath(r.path);
    const { params: schemas, ...rest } = op;
    const parameters = params.map((name) => ({ name, in: "path", required: true, schema: schemas && Object.hasOwn(schemas, name) ? schemas[name] : { type: "string" } }));
    const item = (paths[path] ??= {});
    item[r.method.toLowerCase()] = { ...rest, ...(parameters.length ? { parameters } : {}) };
  }
  return { paths, undocumented: [...seen].filter((r) => !documented.has(r)) };
}

function operationOf(handler: unknown): Operation | undefined {
  return typeof handler === "function" && OPERATION in handler ? (handler as Described)[OPERATION] : undefined;
}
