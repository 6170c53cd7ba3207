/**
 * RFC 8785 (JCS) canonical JSON, so anyone can recompute an argument digest:
 * object keys sorted by UTF-16 code units, numbers in ECMAScript shortest form, strings escaped
 * as JSON.stringify does, no whitespace.
 *
 * Only JSON data is accepted: a value that is not (undefined, NaN, Infinity, bigint, a function, a
 * Date or Map or class instance, a lone surrogate, a cycle, absurd depth) is an `InputError`
 * naming its JSON pointer — the caller turns it into a refusal, never an allow.
 */
import { InputError } from "../errors.js";

/** Deeper than this is refused: it is never real tool input and would exhaust the stack. */
export const MAX_DEPTH = 256;

// A lone surrogate cannot be encoded as UTF-8, so two parties could hash it differently.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function canonicalize(value: unknown): string {
  return write(value, "", 0);
}

function pointerJoin(base: string, key: string | number): string {
  return `${base}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

export function canonicalString(s: string, pointer: string): string {
  if (LONE_SURROGATE.test(s)) throw new InputError(`string at \`${pointer || "/"}\` holds a lone surrogate, not valid unicode`, pointer);
  return JSON.stringify(s);
}

export function canonicalNumber(n: number, pointer: string): string {
  if (!Number.isFinite(n)) throw new InputError(`number at \`${pointer || "/"}\` is ${n}, which JSON cannot carry`, pointer);
  // JSON.stringify gives the ECMAScript Number::toString form RFC 8785 requires (and -0 → "0").
  return JSON.stringify(n);
}

function write(value: unknown, pointer: string, depth: number): string {
  switch (typeof value) {
    case "string":
      return canonicalString(value, pointer);
    case "number":
      return canonicalNumber(value, pointer);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      break;
    default:
      throw new InputError(`value at \`${pointer || "/"}\` is ${typeof value}, not JSON data`, pointer);
  }
  if (value === null) return "null";
  if (depth >= MAX_DEPTH) throw new InputError(`value at \`${pointer || "/"}\` nests deeper than ${MAX_DEPTH} levels`, pointer);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      if (!(i in value)) throw new InputError(`array at \`${pointer || "/"}\` has a hole at ${i}`, pointerJoin(pointer, i));
      out += write(value[i], pointerJoin(pointer, i), depth + 1);
    }
    return out + "]";
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new InputError(`value at \`${pointer || "/"}\` is a ${proto?.constructor?.name ?? "non-plain object"}, not JSON data`, pointer);
  }
  const keys = Object.keys(value).sort(compareUtf16);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const child = pointerJoin(pointer, key);
    if (i > 0) out += ",";
    out += canonicalString(key, child) + ":" + write((value as Record<string, unknown>)[key], child, depth + 1);
  }
  return out + "}";
}

/** RFC 8785 §3.2.3: sort by UTF-16 code units, which is what `<` on JS strings compares. */
export function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
