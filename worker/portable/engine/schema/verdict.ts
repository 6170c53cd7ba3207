/**
 * One failure out of many, picked the same way whichever validator found them (checks.md step 3:
 * `argument_schema` with `pointer` and `rule` in detail).
 *
 * Each adapter turns its validator's full error list (ajv `allErrors`, cfworker without short
 * circuit) into leaves `{pointer, rule}` with these conventions:
 *   - `pointer` names the offending value; for `additionalProperties` the extra property itself
 *     (`/note`), for `required` / property `dependencies` the missing property (`/order_id`), for
 *     `additionalItems` the first extra item, for `propertyNames` the offending property;
 *   - `rule` is the JSON Schema keyword; a `false` schema is the rule `false`;
 *   - wrappers that only say "a subschema failed" (`properties`, `items`, `$ref`, `allOf`, `if`, …)
 *     are not leaves;
 *   - a failing `anyOf` / `oneOf` / `not` / `contains` is the leaf for its place: every other
 *     leaf at or below its pointer is dropped (which branch failed how is validator-specific).
 * Then the first leaf wins, ordered by pointer (document order, parent first) and then by the
 * rule order below. Both adapters share this file, so they agree by construction.
 */
import type { SchemaVerdict } from "../catalogue/types.js";
import { comparePointers, joinPointer, splitPointer } from "./pointer.js";

export interface Leaf {
  pointer: string;
  rule: string;
}

const COMBINATORS = new Set(["anyOf", "oneOf", "not", "contains"]);

const RULE_ORDER = [
  "json", "depth", "type", "required", "additionalProperties", "dependencies", "propertyNames", "false",
  "enum", "const", "pattern", "format", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
  "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "additionalItems",
  "minProperties", "maxProperties", "contains", "anyOf", "oneOf", "not",
];
const rank = (rule: string) => {
  const i = RULE_ORDER.indexOf(rule);
  return i === -1 ? RULE_ORDER.length : i;
};

/** Applies the combinator rule and picks the first leaf; undefined when there is none. */
export function pickLeaf(leaves: readonly Leaf[]): Leaf | undefined {
  return pickLeaves(leaves)[0];
}

/**
 * The first leaf of each top-level place (each argument), in the same order — so the first of
 * them is `pickLeaf`'s. A caller told only of `amount` would fix it and meet `order_id` next.
 */
export function pickLeaves(leaves: readonly Leaf[]): Leaf[] {
  const combinatorAt = leaves.filter((l) => COMBINATORS.has(l.rule) || l.rule === "propertyNames").map((l) => l.pointer);
  const covered = (l: Leaf) =>
    combinatorAt.some((c) => (l.pointer === c || l.pointer.startsWith(c + "/")) && !(l.pointer === c && (COMBINATORS.has(l.rule) || l.rule === "propertyNames")));
  const kept = leaves.filter((l) => !covered(l));
  kept.sort((a, b) => comparePointers(a.pointer, b.pointer) || rank(a.rule) - rank(b.rule) || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0));
  const seen = new Set<string>();
  return kept.filter((l) => {
    const top = splitPointer(l.pointer)[0] ?? "";
    if (seen.has(top)) return false;
    seen.add(top);
    return true;
  });
}

/**
 * The verdict for the picked leaves (the first is `pointer` / `rule`), with messages that depend
 * only on the leaves. `others` are the other places that fail, one per argument.
 */
export function failure(leaf: Leaf, all: readonly Leaf[] = [leaf]): SchemaVerdict {
  const leaves = all.length > 0 ? all : [leaf];
  return { ok: false, pointer: leaf.pointer, rule: leaf.rule, message: describe(leaf), failures: leaves.map((l) => ({ pointer: l.pointer, rule: l.rule, message: describe(l) })) };
}

function describe({ pointer, rule }: Leaf): string {
  const segs = splitPointer(pointer);
  const last = segs[segs.length - 1];
  const where = pointer === "" ? "the value" : `\`${pointer}\``;
  switch (rule) {
    case "additionalProperties":
      return `\`${last}\` is not declared`;
    case "required":
      return `\`${last}\` is required`;
    case "dependencies":
      return `\`${last}\` is required by another property`;
    case "propertyNames":
      return `the name \`${last}\` is not allowed`;
    case "additionalItems":
      return `${where} is one item too many`;
    case "false":
      return `${where} is not allowed`;
    case "json":
      return `${where} is not plain JSON`;
    case "depth":
      return `${where} is nested too deeply`;
    default:
      return `${where} fails \`${rule}\``;
  }
}

/** Values deeper than this are refused before any validator recurses into them. */
const MAX_VALUE_DEPTH = 256;

/**
 * Is the value plain JSON data (what arrives over the wire)? Finite numbers, strings, booleans,
 * null, arrays, plain objects whose keys are well-formed UTF-16; no cycles; not absurdly deep.
 * Iterative, so a 10k-deep value cannot blow the stack here. Returns the first offending leaf.
 */
export function jsonLeaf(value: unknown): Leaf | undefined {
  if (flatData(value)) return undefined;
  type Frame = { v: unknown; p: string; d: number; exit?: object };
  const stack: Frame[] = [{ v: value, p: "", d: 0 }];
  const onPath = new Set<object>();
  let visited = 0;
  while (stack.length > 0) {
    const { v, p, d, exit } = stack.pop()!;
    if (exit) {
      onPath.delete(exit);
      continue;
    }
    if (++visited > 5_000_000) return { pointer: p, rule: "depth" };
    if (v === null || typeof v === "string" || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return { pointer: p, rule: "json" };
      continue;
    }
    if (typeof v !== "object") return { pointer: p, rule: "json" };
    if (d >= MAX_VALUE_DEPTH) return { pointer: p, rule: "depth" };
    if (onPath.has(v)) return { pointer: p, rule: "json" }; // a cycle
    onPath.add(v);
    stack.push({ v: undefined, p, d, exit: v });
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], p: joinPointer(p, i), d: d + 1 });
    } else {
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return { pointer: p, rule: "json" };
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        if (LONE_SURROGATE.test(k)) return { pointer: joinPointer(p, k), rule: "json" };
        stack.push({ v: (v as Record<string, unknown>)[k], p: joinPointer(p, k), d: d + 1 });
      }
    }
  }
  return undefined;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Any UTF-16 surrogate in `s` (a loop: a regex call per key cost more for the short names keys are). */
function hasSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) if ((s.charCodeAt(i) & 0xf800) === 0xd800) return true;
  return false;
}

/**
 * The common case, decided without a frame or a pointer per value: a plain object (or one without
 * a prototype) whose values are all strings, finite numbers, booleans or null and whose keys hold
 * no surrogate. False means only "not this case": the general walk above decides.
 */
function flatData(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    if (hasSurrogate(k)) return false;
    const x = (v as Record<string, unknown>)[k];
    if (x === null || typeof x === "string" || typeof x === "boolean") continue;
    if (typeof x === "number" && Number.isFinite(x)) continue;
    return false;
  }
  return true;
}
