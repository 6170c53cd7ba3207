/**
 * Field paths (checks.md "Argument origins": dot-separated names with `[i]` for list items, `[]`
 * for every item) and what a `returns` schema declares: `returnsDeclares` walks `properties` /
 * `items` (following local `$ref` and any branch of `allOf`/`anyOf`/`oneOf`); `keepDeclared` strips
 * a reported result to the declared fields, recursively.
 */
import { resolveLocalRef } from "../schema/check-schema.js";

export type PathSegment = { kind: "field"; name: string } | { kind: "index"; index: number } | { kind: "each" };

/** `transactions[2].amount` → field, index, field; undefined when malformed. */
export function parsePath(path: string): PathSegment[] | undefined {
  if (typeof path !== "string" || path.length === 0 || path.length > 1000) return undefined;
  const out: PathSegment[] = [];
  const re = /([^.[\]\s]+)|\[(\d*)\]|(\.)/g;
  let pos = 0;
  let expectName = true;
  let m: RegExpExecArray | null;
  while ((m = re.exec(path)) !== null) {
    if (m.index !== pos) return undefined;
    pos = re.lastIndex;
    if (m[1] !== undefined) {
      if (!expectName) return undefined;
      out.push({ kind: "field", name: m[1] });
      expectName = false;
    } else if (m[2] !== undefined) {
      if (expectName) return undefined;
      if (m[2] === "") out.push({ kind: "each" });
      else {
        if (m[2].length > 9) return undefined;
        out.push({ kind: "index", index: Number(m[2]) });
      }
    } else {
      if (expectName) return undefined;
      expectName = true;
    }
  }
  if (pos !== path.length || expectName) return undefined;
  return out;
}

type S = Record<string, unknown>;
const isObj = (v: unknown): v is S => v !== null && typeof v === "object" && !Array.isArray(v);

/** The schema after following `$ref`s (bounded), or undefined. */
function deref(root: unknown, s: unknown): S | boolean | undefined {
  let cur = s;
  for (let i = 0; i < 32 && isObj(cur) && typeof cur.$ref === "string"; i++) cur = resolveLocalRef(root, cur.$ref);
  if (isObj(cur) && typeof cur.$ref === "string") return undefined;
  return isObj(cur) || typeof cur === "boolean" ? cur : undefined;
}

function branches(s: S): unknown[] {
  const out: unknown[] = [];
  for (const k of ["allOf", "anyOf", "oneOf"]) if (Array.isArray(s[k])) out.push(...(s[k] as unknown[]));
  return out;
}

function schemaDeclares(root: unknown, schema: unknown, segs: readonly PathSegment[], depth = 0): boolean {
  if (depth > 64) return false;
  const s = deref(root, schema);
  if (!isObj(s)) return false;
  if (segs.length === 0) return true;
  const [head, ...rest] = segs;
  let next: unknown;
  if (head!.kind === "field") {
    const props = s.properties;
    if (isObj(props) && Object.prototype.hasOwnProperty.call(props, head!.name)) next = props[head!.name];
  } else if (Array.isArray(s.items)) {
    if (head!.kind === "index") next = s.items[head!.index];
    else if (s.items.length > 0 && s.items.every((it) => schemaDeclares(root, it, rest, depth + 1))) return true;
  } else if (s.items !== undefined) {
    next = s.items;
  }
  if (next !== undefined && schemaDeclares(root, next, rest, depth + 1)) return true;
  return branches(s).some((b) => schemaDeclares(root, b, segs, depth + 1));
}

/** Does this `returns` schema declare `path`? A malformed path declares nothing. */
export function declares(returns: object | undefined, path: string): boolean {
  if (!returns) return false;
  if (path === "") return true;
  const segs = parsePath(path);
  return segs !== undefined && schemaDeclares(returns, returns, segs);
}

function propertySchema(root: unknown, s: S, key: string, depth: number): unknown {
  if (isObj(s.properties) && Object.prototype.hasOwnProperty.call(s.properties, key)) return s.properties[key];
  if (depth > 64) return undefined;
  for (const b of branches(s)) {
    const d = deref(root, b);
    if (isObj(d)) {
      const found = propertySchema(root, d, key, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function itemSchema(root: unknown, s: S, index: number, depth: number): unknown {
  if (Array.isArray(s.items)) return s.items[index];
  if (s.items !== undefined) return s.items;
  if (depth > 64) return undefined;
  for (const b of branches(s)) {
    const d = deref(root, b);
    if (isObj(d)) {
      const found = itemSchema(root, d, index, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function declaresStructure(root: unknown, s: S, depth: number): boolean {
  if (s.properties !== undefined || s.items !== undefined) return true;
  if (depth > 64) return false;
  return branches(s).some((b) => {
    const d = deref(root, b);
    return isObj(d) && declaresStructure(root, d, depth + 1);
  });
}

/** A copy of `value` with only the fields `schema` declares; undefined when nothing is declared. */
export function keepDeclaredBy(root: unknown, schema: unknown, value: unknown, depth = 0): unknown {
  if (depth > 256) return undefined;
  const s = deref(root, schema);
  if (s === false || s === undefined) return undefined;
  if (s === true || !declaresStructure(root, s, 0)) return jsonCopy(value, depth);
  if (Array.isArray(value)) {
    if (itemSchema(root, s, 0, 0) === undefined && !Array.isArray(s.items)) return jsonCopy(value, depth);
    const out: unknown[] = [];
    value.forEach((v, i) => {
      const is = itemSchema(root, s, i, 0);
      if (is !== undefined) out.push(keepDeclaredBy(root, is, v, depth + 1) ?? null);
    });
    return out;
  }
  if (isObj(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const ps = propertySchema(root, s, key, 0);
      if (ps === undefined) continue;
      const kept = keepDeclaredBy(root, ps, value[key], depth + 1);
      if (kept !== undefined) Object.defineProperty(out, key, { value: kept, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return jsonCopy(value, depth);
}

function jsonCopy(value: unknown, depth: number): unknown {
  if (depth > 256) return undefined;
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (Array.isArray(value)) return value.map((v) => jsonCopy(v, depth + 1) ?? null);
  if (isObj(value)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      const c = jsonCopy(value[k], depth + 1);
      if (c !== undefined) Object.defineProperty(out, k, { value: c, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return undefined;
}
