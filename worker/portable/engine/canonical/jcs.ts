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
  // The path is kept as a stack of keys and turned into a JSON pointer only on error: building
  // pointers eagerly cost more than the serialisation itself.
  return write(value, [], 0);
}

/**
 * `canonicalize` for a value the caller passed at `at` (a report's `result`, a session's
 * `context`): an error names it from there (`/result/total`), as a request body holds it.
 */
export function canonicalizeAt(value: unknown, ...at: string[]): string {
  return write(value, at, 0);
}

/**
 * What `canonicalizeAt` checks, without writing the text, for a caller that only needs to know
 * that a value is JSON data (a report's or a filter's result, a plan's arguments): the text of a
 * large result was built and dropped (100,000 records of three fields: 0.3–0.4 s here). A value
 * it refuses is refused as `canonicalizeAt` refuses it, naming the
 * same pointer: the first fault is found here in the value's own order, and the canonical walk is
 * run to name it as that walk (keys sorted) would.
 */
export function checkJsonAt(value: unknown, ...at: string[]): void {
  try {
    check(value, [...at], 0);
  } catch (err) {
    write(value, at, 0);
    // not found again (a getter that answers differently the second time): still not JSON data
    throw err;
  }
}

/** `write`'s checks, in the value's own key order, building nothing. */
function check(value: unknown, path: (string | number)[], depth: number): void {
  switch (typeof value) {
    case "string":
      if (SURROGATE.test(value) && LONE_SURROGATE.test(value)) fail(path, (p) => `string at \`${p}\` holds a lone surrogate, not valid unicode`);
      return;
    case "number":
      if (!Number.isFinite(value)) fail(path, (p) => `number at \`${p}\` is ${value}, which JSON cannot carry`);
      return;
    case "boolean":
      return;
    case "object":
      break;
    default:
      fail(path, (p) => `value at \`${p}\` is ${typeof value}, not JSON data`);
  }
  if (value === null) return;
  if (depth >= MAX_DEPTH) fail(path, (p) => `value at \`${p}\` nests deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      if (!(i in value)) fail(path, (p) => `array at \`${p}\` has a hole`);
      check(value[i], path, depth + 1);
      path.pop();
    }
    return;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    fail(path, (p) => `value at \`${p}\` is a ${proto?.constructor?.name ?? "non-plain object"}, not JSON data`);
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    path.push(key);
    check((value as Record<string, unknown>)[key], path, depth + 1);
    if (SURROGATE.test(key) && LONE_SURROGATE.test(key)) fail(path, (p) => `string at \`${p}\` holds a lone surrogate, not valid unicode`);
    path.pop();
  }
}

/**
 * The canonical form of a plain object together with the canonical form of each of its own
 * values (the same substrings), so per-argument digests cost no second serialisation.
 */
export function canonicalizeTop(value: Record<string, unknown>): { text: string; parts: Record<string, string>; order: string[]; read: Record<string, unknown> } {
  const parts = Object.create(null) as Record<string, string>;
  const order: string[] = [];
  const read = Object.create(null) as Record<string, unknown>;
  return { text: write(value, [], 0, parts, order, read), parts, order, read };
}

function pointerOf(path: readonly (string | number)[]): string {
  let p = "";
  for (const k of path) p += `/${String(k).replace(/~/g, "~0").replace(/\//g, "~1")}`;
  return p;
}

// Cheap pre-test: most strings hold no surrogate at all.
const SURROGATE = /[\uD800-\uDFFF]/;

export function canonicalString(s: string, pointer: string | (() => string)): string {
  if (SURROGATE.test(s) && LONE_SURROGATE.test(s)) {
    const p = typeof pointer === "string" ? pointer : pointer();
    throw new InputError(`string at \`${p || "/"}\` holds a lone surrogate, not valid unicode`, p);
  }
  return JSON.stringify(s);
}

export function canonicalNumber(n: number, pointer: string | (() => string)): string {
  if (!Number.isFinite(n)) {
    const p = typeof pointer === "string" ? pointer : pointer();
    throw new InputError(`number at \`${p || "/"}\` is ${n}, which JSON cannot carry`, p);
  }
  // JSON.stringify gives the ECMAScript Number::toString form RFC 8785 requires (and -0 → "0").
  return JSON.stringify(n);
}

function fail(path: (string | number)[], what: (p: string) => string): never {
  const p = pointerOf(path);
  throw new InputError(what(p || "/"), p);
}

/**
 * `parts`, when given, collects the canonical form of each value of the top-level object, and
 * `order` its keys in the object's own order (each key and value is read once: what is digested
 * is what the caller gets back, whatever a getter would answer the next time); `read`, each
 * value as it was read (a string, number, boolean or null is its own copy).
 */
function write(value: unknown, path: (string | number)[], depth: number, parts?: Record<string, string>, order?: string[], read?: Record<string, unknown>): string {
  // Strings and numbers are checked here rather than through canonicalString / canonicalNumber:
  // their pointer argument would be a closure per value, allocated on every call.
  switch (typeof value) {
    case "string": {
      const q = quotedPlain(value);
      if (q !== undefined) return q;
      if (SURROGATE.test(value) && LONE_SURROGATE.test(value)) return fail(path, (p) => `string at \`${p}\` holds a lone surrogate, not valid unicode`);
      return JSON.stringify(value);
    }
    case "number":
      if (!Number.isFinite(value)) return fail(path, (p) => `number at \`${p}\` is ${value}, which JSON cannot carry`);
      // a finite number's JSON is Number::toString (-0 → "0" both ways), which String() is without the serialiser around it
      return String(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      break;
    default:
      return fail(path, (p) => `value at \`${p}\` is ${typeof value}, not JSON data`);
  }
  if (value === null) return "null";
  if (depth >= MAX_DEPTH) return fail(path, (p) => `value at \`${p}\` nests deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ",";
      path.push(i);
      if (!(i in value)) return fail(path, (p) => `array at \`${p}\` has a hole`);
      out += write(value[i], path, depth + 1);
      path.pop();
    }
    return out + "]";
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    return fail(path, (p) => `value at \`${p}\` is a ${proto?.constructor?.name ?? "non-plain object"}, not JSON data`);
  }
  const keys = Object.keys(value);
  if (order) order.push(...keys);
  if (keys.length > 1) sortKeys(keys);
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (i > 0) out += ",";
    path.push(key);
    const got = (value as Record<string, unknown>)[key];
    const v = write(got, path, depth + 1);
    // `parts` and `read` have no prototype: an assignment makes an own property, `__proto__` too
    if (parts) parts[key] = v;
    if (read) read[key] = got;
    const qk = quotedPlain(key);
    if (qk === undefined && SURROGATE.test(key) && LONE_SURROGATE.test(key)) return fail(path, (p) => `string at \`${p}\` holds a lone surrogate, not valid unicode`);
    out += (qk ?? JSON.stringify(key)) + ":" + v;
    path.pop();
  }
  return out + "}";
}

/**
 * `JSON.stringify(s)` for a string it leaves as it is (printable ASCII but `"` and `\`, hence no
 * surrogate either), written without the serialiser; undefined for any other (which takes it).
 */
function quotedPlain(s: string): string | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return undefined;
  }
  return `"${s}"`;
}

/**
 * Sort object keys in place as RFC 8785 orders them (`compareUtf16`). A handful by insertion:
 * `Array.prototype.sort` allocates its work space even for two keys (~0.9 KB per write check's
 * arguments, measured: docs/perf/engine.round7.md); more go to it.
 */
export function sortKeys(keys: string[]): string[] {
  const n = keys.length;
  if (n > 16) return keys.sort(compareUtf16);
  for (let i = 1; i < n; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) {
      keys[j + 1] = keys[j]!;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

/** RFC 8785 §3.2.3: sort by UTF-16 code units, which is what `<` on JS strings compares. */
export function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
