/**
 * Reading a condition's path from a record (checks.md "Argument origins" for the path grammar:
 * dot-separated names, `[i]` for one item, `[]` for every item). Paths are parsed once by the
 * catalogue's `parsePath` and kept in a bounded cache keyed by the path text (paths come from the
 * compiled catalogue, never from a call, so the cache holds nothing of a request).
 *
 * Only own properties are read (`constructor`, `__proto__`, `length` are not fields) — every name,
 * not only those `Object.prototype` has today, so a record with another prototype, or a prototype
 * someone added to, still answers only what it holds —, a name never reads into a list, and
 * `undefined` counts as absent: JSON has no `undefined`.
 */
import { parsePath, type PathSegment } from "../catalogue/paths.js";

/** An absent value: the path leads nowhere. */
export const MISSING: unique symbol = Symbol("missing");
type Missing = typeof MISSING;

/** One step of a path, in one object shape for every kind (monomorphic: the hot path reads these). */
export interface Seg {
  readonly kind: typeof FIELD | typeof INDEX | typeof EACH;
  readonly name: string;
  readonly index: number;
}
export const FIELD = 0;
const INDEX = 1;
const EACH = 2;

function toSeg(s: PathSegment): Seg {
  if (s.kind === "field") return { kind: FIELD, name: s.name, index: -1 };
  if (s.kind === "index") return { kind: INDEX, name: "", index: s.index };
  return { kind: EACH, name: "", index: -1 };
}

export interface CompiledPath {
  readonly segs: readonly Seg[];
  /** the path has a `[]`: it yields every item's value, not one value */
  readonly multi: boolean;
  /** the only `[]` is the last segment (`jobs[]`): the list itself is the values */
  readonly eachLast: boolean;
}

const CACHE_MAX = 4096;
const cache = new Map<string, CompiledPath | null>();

/** The parsed path, or null when it does not parse (a condition on it is `unknown`). */
export function compilePath(path: string): CompiledPath | null {
  let p = cache.get(path);
  if (p === undefined) {
    const parsed = typeof path === "string" ? parsePath(path) : undefined;
    if (parsed === undefined) p = null;
    else {
      const segs = parsed.map(toSeg);
      let eaches = 0;
      for (const s of segs) if (s.kind === EACH) eaches++;
      p = { segs, multi: eaches > 0, eachLast: eaches === 1 && segs[segs.length - 1]!.kind === EACH };
    }
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(path, p);
  }
  return p;
}

const hasOwn = Object.hasOwn;

/** Follows `segs[from..to)` (names and indexes only) from `cur`; MISSING when any part is absent. */
export function readOne(cur: unknown, segs: readonly Seg[], from = 0, to = segs.length): unknown {
  for (let i = from; i < to; i++) {
    if (cur === null || typeof cur !== "object") return MISSING;
    const s = segs[i]!;
    if (s.kind === FIELD) {
      if (Array.isArray(cur) || !hasOwn(cur, s.name)) return MISSING;
      const v = (cur as Record<string, unknown>)[s.name];
      if (v === undefined) return MISSING;
      cur = v;
    } else if (s.kind === INDEX) {
      if (!Array.isArray(cur) || s.index >= cur.length) return MISSING;
      cur = cur[s.index];
    } else return MISSING; // `[]`: callers read multi paths with readMany
  }
  return cur === undefined ? MISSING : cur;
}

/**
 * Pushes every value a `[]` path yields onto `out`. An item where the rest of the path is absent
 * pushes MISSING (so the caller can tell "one value unreadable" from "no values"). Returns false
 * when the path is absent before its first `[]`, or that first `[]` is not a list.
 */
export function readMany(cur: unknown, segs: readonly Seg[], i: number, out: unknown[]): boolean {
  for (; i < segs.length; i++) {
    const s = segs[i]!;
    if (s.kind === EACH) {
      if (!Array.isArray(cur)) return false;
      if (i === segs.length - 1) {
        for (let k = 0; k < cur.length; k++) out.push(cur[k] === undefined ? MISSING : cur[k]);
      } else {
        for (let k = 0; k < cur.length; k++) if (!readMany(cur[k], segs, i + 1, out)) out.push(MISSING);
      }
      return true;
    }
    if (cur === null || typeof cur !== "object") return false;
    if (s.kind === FIELD) {
      if (Array.isArray(cur) || !hasOwn(cur, s.name)) return false;
      const v = (cur as Record<string, unknown>)[s.name];
      if (v === undefined) return false;
      cur = v;
    } else {
      if (!Array.isArray(cur) || s.index >= cur.length) return false;
      cur = cur[s.index];
    }
  }
  out.push(cur === undefined ? MISSING : cur);
  return true;
}

/**
 * The value at `path`, or for a `[]` path the list of every value it yields; MISSING when the path
 * does not parse, is absent, or any of the values is absent.
 */
export function readValue(root: unknown, path: string): unknown {
  const p = compilePath(path);
  if (p === null) return MISSING;
  if (!p.multi) return readOne(root, p.segs);
  if (p.eachLast) {
    const list = readOne(root, p.segs, 0, p.segs.length - 1);
    if (!Array.isArray(list)) return MISSING;
    for (let k = 0; k < list.length; k++) if (list[k] === undefined) return MISSING;
    return list;
  }
  const out: unknown[] = [];
  if (!readMany(root, p.segs, 0, out)) return MISSING;
  for (let k = 0; k < out.length; k++) if (out[k] === MISSING) return MISSING;
  return out;
}

/** A join of `{from: tool.path, same: arg}`: the argument's name and this call's value of it. */
export interface Join {
  arg: string;
  value: unknown;
}

/**
 * A `Scope["from"]` over the results tools last returned: `last(tool)` gives that tool's last
 * recorded result (undefined when it never returned in this session). A `[]` path yields the list
 * of values (`read_resume.skills[]`); an absent value (or one absent item) gives `undefined`.
 * A join (`same`) needs the call's arguments, which this scope has not: it reads nothing (lint
 * allows `same` only in a tool's `checks`, where `joinedResults` is used).
 */
export function fromResults(last: (tool: string) => unknown): (tool: string, path: string, same?: string) => unknown {
  return (tool, path, same) => (same !== undefined ? undefined : readFrom(last(tool), path));
}

/**
 * The check's `from`: as `fromResults`, and with a join, `where(tool, arg, value)` — the last
 * result of that tool's call whose `arg` was `value`.
 */
export function joinedResults(last: (tool: string) => unknown, where: (tool: string, arg: string, value: unknown) => unknown): (tool: string, path: string, join?: Join) => unknown {
  return (tool, path, join) => readFrom(join === undefined ? last(tool) : join.value === undefined ? undefined : where(tool, join.arg, join.value), path);
}

function readFrom(result: unknown, path: string): unknown {
  if (result === undefined) return undefined;
  const v = readValue(result, path);
  return v === MISSING ? undefined : v;
}
