/**
 * What a host records of a result it did not write itself (a tool server's answer, a framework
 * tool's return value), as data the signed history can hold. A report whose result canonical JSON
 * refuses is refused whole (session.ts `report`, rightly, for a caller's own data). For a host
 * that only relays a third party's result that would lose the call's outcome, and with it the
 * `result:` origin and the `untrusted:` label of every value in it. One stray character in a
 * message read from outside would then make the values copied from it read as the model's own.
 *
 * So what canonical JSON cannot carry is repaired or left out:
 *   - a lone UTF-16 surrogate (text cut inside an emoji, or a `\ud83d` escape in a JSON text),
 *     in a string or a key, becomes U+FFFD, as a reader shows it;
 *   - a number JSON cannot carry (`1e400` read as Infinity) is left out;
 *   - a list or map nested as deep as canonical JSON refuses (`jcs.ts`) is left out. A value
 *     nested that deep is not traced: it reads as the model's, which a write asks a person about.
 * A member left out is dropped from its map, or `null` in its list so later items keep their index,
 * as the catalogue's `keepDeclared` does. Well-formed data comes back as the same value (not a
 * copy): the common case costs one walk and nothing else.
 */
import { MAX_DEPTH } from "./jcs.js";

/** `value` as data canonical JSON takes; undefined when nothing of it can be kept (a lone Infinity). */
export function recordable(value: unknown): unknown {
  return repaired(value, 0);
}

/**
 * What a report records of `tool`'s result `value`: the part its `returns` schema declares (the
 * session keeps no more, so nothing else need be data), made recordable. Undefined when nothing is
 * kept (no `returns`, an unknown tool, no value).
 */
export function recordedResult(catalogue: { tools: ReadonlyMap<string, { keepDeclared(result: unknown): unknown }> }, tool: string, value: unknown): unknown {
  if (value === undefined) return undefined;
  const kept = catalogue.tools.get(tool)?.keepDeclared(value);
  return kept === undefined ? undefined : recordable(kept);
}

const LEFT_OUT = undefined;

const SURROGATE = /[\uD800-\uDFFF]/;
// one unit either side: linear, like jcs.ts's test
const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `s` with each lone surrogate as U+FFFD (String.prototype.toWellFormed, which ES2023 lacks). */
function wellFormed(s: string): string {
  return SURROGATE.test(s) ? s.replace(LONE_SURROGATES, "\uFFFD") : s;
}

function repaired(v: unknown, depth: number): unknown {
  switch (typeof v) {
    case "string":
      return wellFormed(v);
    case "number":
      return Number.isFinite(v) ? v : LEFT_OUT;
    case "boolean":
      return v;
    case "object":
      break;
    default:
      return LEFT_OUT; // undefined, a function, a symbol, a bigint: not data
  }
  if (v === null) return v;
  if (depth >= MAX_DEPTH) return LEFT_OUT;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const r = repaired(x, depth + 1) ?? null;
      if (r !== x && out === undefined) out = v.slice(0, i);
      if (out !== undefined) out.push(r);
    }
    return out ?? v;
  }
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto !== Object.prototype && proto !== null) return LEFT_OUT; // a Date, a Map, a class: not data
  const keys = Object.keys(v);
  const values: unknown[] = []; // each member read once
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const x = (v as Record<string, unknown>)[k];
    const r = repaired(x, depth + 1);
    values.push(r);
    const key = wellFormed(k);
    if (out === undefined && (r !== x || key !== k || r === LEFT_OUT)) {
      out = {};
      for (let j = 0; j < i; j++) own(out, keys[j]!, values[j]);
    }
    if (out !== undefined && r !== LEFT_OUT) own(out, key, r);
  }
  return out ?? v;
}

/** An own member, `__proto__` included (an assignment would set the prototype instead). */
function own(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}
