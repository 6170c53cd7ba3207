/**
 * The request's clock, on the request's context (`c.get("now")`), so no request ever reads
 * another's. A local test may set it with the `x-stalwart-now` header (milliseconds since the
 * epoch), honoured only when the STALWART_TEST_CLOCK var is "1" — never in a deployment.
 */
import type { MiddlewareHandler } from "hono";
import { InputError } from "../../portable/engine/index.js";
import type { CheckEnv } from "./env.js";

export function requestClock(fallback: () => Date): MiddlewareHandler<CheckEnv> {
  return async (c, next) => {
    const header = c.req.header("x-stalwart-now");
    if (header !== undefined && c.env?.STALWART_TEST_CLOCK === "1") {
      // whole milliseconds a Date can hold (±8.64e15): `1e20` is finite but no date, and "" is not 0
      const t = /^-?\d{1,16}$/.test(header) ? Number(header) : NaN;
      if (!(Math.abs(t) <= 8.64e15)) throw new InputError("`x-stalwart-now` must be whole milliseconds since the epoch, within ±8.64e15", "/headers/x-stalwart-now");
      c.set("now", () => new Date(t));
    } else c.set("now", fallback);
    await next();
  };
}
