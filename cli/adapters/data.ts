/**
 * The guard's views of a call's data: a private copy of a result (or of what an observer is
 * shown), and a call's tool and input as one comparable key.
 */
import { canonicalize } from "../../worker/portable/engine/index.js";

/**
 * A copy of JSON data (plain objects, arrays, strings, finite numbers, booleans, null), or
 * undefined for anything else — never stricter than the session's own reading, which checks the
 * copy again (lone surrogates, depth) and refuses it if it must.
 */
export function plainCopy(x: unknown, depth: number): unknown {
  switch (typeof x) {
    case "string":
    case "boolean":
      return x;
    case "number":
      return Number.isFinite(x) ? x : undefined;
    case "object":
      break;
    default:
      return undefined;
  }
  if (x === null) return null;
  if (depth > 512) return undefined;
  if (Array.isArray(x)) {
    const out: unknown[] = new Array(x.length);
    for (let i = 0; i < x.length; i++) {
      if (!(i in x)) return undefined;
      const v = plainCopy(x[i], depth + 1);
      if (v === undefined) return undefined;
      out[i] = v;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(x);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(x)) {
    const v = plainCopy((x as Record<string, unknown>)[k], depth + 1);
    if (v === undefined) return undefined;
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A call's tool and input as one string. An input that is not JSON data (an `undefined` a schema's
 * transform left, which the check refuses) is keyed by its JSON text, so its refusal is kept too.
 */
export function keyOf(tool: string, args: unknown): string | undefined {
  try {
    return `${tool}\u0000${canonicalize(args)}`;
  } catch {
    try {
      const text = JSON.stringify(args);
      return text === undefined ? undefined : `${tool}\u0001${text}`;
    } catch {
      return undefined;
    }
  }
}

