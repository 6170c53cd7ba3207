/**
 * Small helpers of the guard: a private copy of a result (or of what an observer is
 * shown), and a call's tool and input as one comparable key.
 */
import { canonicalize, recordedResult, sha256Hex, type CompiledCatalogue, type Entry } from "../../worker/portable/engine/index.js";
import type { PendingApproval } from "./approvals.js";
import type { GuardSession } from "./types.js";

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
 * What a report records of a framework tool's `result`: a private copy of it (`plainCopy`, undefined
 * when it is not JSON data), kept to what the tool's `returns` declares, with a lone surrogate as
 * U+FFFD and what canonical JSON cannot carry left out (engine canonical/recordable.ts): one stray
 * character must not drop the `result:` origin and `untrusted:` label of every value in it. The
 * whole copy when the catalogue cannot say (the session then keeps what it keeps).
 */
export function recordedCopy(catalogue: () => CompiledCatalogue, tool: string | undefined, result: unknown): unknown {
  const copy = plainCopy(result, 0);
  if (copy === undefined || tool === undefined) return copy;
  try {
    return recordedResult(catalogue(), tool, copy);
  } catch {
    return copy;
  }
}

/**
 * A call's tool and input as one string. An input that is not JSON data (an `undefined` a schema's
 * transform left, which the check refuses) is keyed by its JSON text, so its refusal is kept too.
 * A tool in an Agents JS namespace is keyed with it: the check knows the tool by its name alone,
 * but the call that runs is the namespace's (outside audit 7, F14).
 */
export function keyOf(tool: string, args: unknown, namespace?: string): string | undefined {
  const name = namespace === undefined ? tool : JSON.stringify([namespace, tool]);
  try {
    return `${name}\u0000${canonicalize(args)}`;
  } catch {
    try {
      const text = JSON.stringify(args);
      return text === undefined ? undefined : `${name}\u0001${text}`;
    } catch {
      return undefined;
    }
  }
}

/** A private copy of plain data (an observer edits only its own); anything else as it is. */
export function copyOf<T>(x: T): T {
  const c = plainCopy(x, 0);
  return c === undefined ? x : (c as T);
}

/** Is this record of the call with this key? (A record from before keys were kept: taken as it.) */
export function sameCall(p: PendingApproval, key: string | undefined): boolean {
  return p.call === undefined || (key !== undefined && p.call === sha256Key(key));
}

/** Drop a map's oldest entries past `limit` (a Map keeps insertion order). */
export function trim<K, V>(map: Map<K, V>, limit: number): void {
  for (const k of map.keys()) {
    if (map.size <= limit) return;
    map.delete(k);
  }
}

export function isThenable(x: unknown): x is PromiseLike<unknown> {
  return (typeof x === "object" || typeof x === "function") && x !== null && typeof (x as { then?: unknown }).then === "function";
}

export function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The digest an approval record keeps of its call's key. */
export function sha256Key(key: string): string {
  return sha256Hex(key);
}

/**
 * The session's entries as plain data, if it can say (a remote one not created yet cannot). Made
 * here, not in the guard's constructor: a closure made there kept the guard's session alive.
 */
export function plainOf(session: GuardSession): () => Entry[] | undefined {
  return () => {
    try {
      return session.toJSON?.().entries;
    } catch {
      return undefined;
    }
  };
}

/** A string that is JSON, parsed; anything else (or text that is not JSON) as it is: how the SDKs hand over a call's input or a tool's output. */
export function jsonOrAsIs(x: unknown): unknown {
  if (typeof x !== "string") return x;
  try {
    return JSON.parse(x);
  } catch {
    return x;
  }
}
