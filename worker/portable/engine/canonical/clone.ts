/**
 * A deep copy that shares nothing with its source, for stores that keep what they are handed
 * (approvals/memory.ts) and records that keep a caller's arguments (approvals/build.ts). Plain
 * data — objects of Object's prototype or none, arrays, primitives, what a JSON body or a checked
 * call holds — is copied by a loop: `structuredClone` serialises and reads back, ~5 µs for a
 * pending record where the loop takes well under one (issue 14). Anything else (a Date, a Map, a
 * class instance, a cycle or data nested deeper than `DEEPEST`) is left to `structuredClone`
 * whole, so the copy is always what it would have made, and throws where it would throw.
 */
const DEEPEST = 256;
const NOT_PLAIN = Symbol("not plain data");

export function cloneData<T>(v: T): T {
  try {
    return copyPlain(v, 0) as T;
  } catch (e) {
    if (e === NOT_PLAIN) return structuredClone(v);
    throw e;
  }
}

function copyPlain(v: unknown, depth: number): unknown {
  if (typeof v !== "object") {
    if (typeof v === "function" || typeof v === "symbol") throw NOT_PLAIN;
    return v;
  }
  if (v === null) return v;
  if (depth > DEEPEST) throw NOT_PLAIN;
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Array.prototype) {
    const a = v as unknown[];
    const out: unknown[] = [];
    for (let i = 0; i < a.length; i++) {
      const x = a[i];
      // a hole: structuredClone keeps it
      if (x === undefined && !(i in a)) throw NOT_PLAIN;
      out.push(copyPlain(x, depth + 1));
    }
    // properties beside the elements: structuredClone copies them, the loop would not
    if (Object.keys(a).length !== a.length) throw NOT_PLAIN;
    return out;
  }
  if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) {
    const x = copyPlain(o[k], depth + 1);
    // `__proto__` as an own key: a plain assignment would set the prototype instead
    if (k === "__proto__") Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}
