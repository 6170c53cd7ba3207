/**
 * Lints a JSON Schema before any validator sees it. Schemas here are draft-07, and both adapters
 * (ajv in Node, @cfworker/json-schema in workerd) must accept and reject exactly the same schemas
 * and agree on every verdict; so this file is the single judge of what a valid schema is:
 *   - only draft-07 keywords (plus annotations and `x-` extensions); a typo is an error with a
 *     "did you mean" hint, a 2019-09/2020-12 keyword is an error saying so;
 *   - every keyword value has the right shape (the draft-07 meta-schema, written out by hand);
 *   - `pattern` / `patternProperties` compile as `u` regular expressions that the linear-time
 *     engine runs (linear-regex.ts: no lookaround, no backreference), the one engine both
 *     adapters match them with;
 *   - `$ref` is local (`#` or `#/…`), resolves, stands alone (draft-07 ignores its siblings, and
 *     the two validators would disagree on them), and no chain of in-place applicators
 *     (`$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`) loops without consuming data;
 *   - `$id` only at the root, `$schema` only draft-07.
 * Pure: no I/O, no eval.
 */
import { escapeSegment, getAt, joinPointer, splitPointer } from "./pointer.js";
import { unknownWordHint } from "./suggest.js";
import { patternProblem } from "./linear-regex.js";

export interface SchemaProblem {
  /** pointer into the schema */
  pointer: string;
  message: string;
  hint?: string;
  /** the problem is the key itself (an unknown keyword), not its value */
  atKey?: boolean;
}

const SCHEMA_KEYWORDS = [
  "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
  "maxLength", "minLength", "pattern", "items", "additionalItems", "maxItems", "minItems", "uniqueItems",
  "contains", "maxProperties", "minProperties", "required", "properties", "patternProperties",
  "additionalProperties", "dependencies", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf",
  "not", "format", "$ref",
] as const;
const ANNOTATIONS = [
  "$schema", "$id", "$comment", "title", "description", "default", "readOnly", "writeOnly", "examples",
  "contentMediaType", "contentEncoding", "definitions", "$defs",
] as const;
const DRAFT07_WORDS: readonly string[] = [...SCHEMA_KEYWORDS, ...ANNOTATIONS];
const LATER_DRAFTS = new Set([
  "unevaluatedProperties", "unevaluatedItems", "dependentRequired", "dependentSchemas", "prefixItems",
  "minContains", "maxContains", "$anchor", "$recursiveRef", "$recursiveAnchor", "$dynamicRef",
  "$dynamicAnchor", "$vocabulary",
]);
const TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"];
const DRAFT07_URIS = new Set([
  "http://json-schema.org/draft-07/schema#",
  "http://json-schema.org/draft-07/schema",
  "https://json-schema.org/draft-07/schema#",
  "https://json-schema.org/draft-07/schema",
]);
/** Deeper schemas are refused: nobody writes them, and validators recurse on them. */
const MAX_SCHEMA_DEPTH = 64;

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);
const isNonNegInt = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0;
const typeName = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "a list" : isObj(v) ? "a map" : typeof v === "string" ? "a string" : typeof v === "number" ? "a number" : typeof v === "boolean" ? "a boolean" : typeof v);

/** Every problem of a schema; [] when it is a valid draft-07 schema both validators treat alike. */
export function checkSchema(schema: unknown): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  if (!isObj(schema) && typeof schema !== "boolean") {
    out.push({ pointer: "", message: `a schema must be a map or a boolean, not ${typeName(schema)}`, hint: "for example `{type: object, properties: {…}}`" });
    return out;
  }
  const refs: { pointer: string; ref: string }[] = [];
  walk(schema, "", 0, true, out, refs);
  for (const { pointer, ref } of refs) {
    const target = resolveLocalRef(schema, ref);
    if (target === undefined) {
      out.push({ pointer: joinPointer(pointer, "$ref"), message: `\`$ref\` \`${ref}\` does not resolve`, hint: "refer to a place in this schema, e.g. `#/definitions/name`" });
    }
  }
  if (out.length === 0) {
    const loop = findInPlaceLoop(schema);
    if (loop !== undefined) out.push({ pointer: loop, message: "this schema refers to itself without reading any deeper into the value", hint: "a `$ref` loop must pass through `properties` or `items`" });
  }
  return out;
}

/** Resolves `#` / `#/a/b` inside the root schema; undefined when it does not resolve. */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  const target = getAt(root, decoded);
  return isObj(target) || typeof target === "boolean" ? target : undefined;
}

function walk(s: unknown, ptr: string, depth: number, isRoot: boolean, out: SchemaProblem[], refs: { pointer: string; ref: string }[]): void {
  if (typeof s === "boolean") return;
  if (!isObj(s)) {
    out.push({ pointer: ptr, message: `a schema must be a map or a boolean, not ${typeName(s)}` });
    return;
  }
  if (depth > MAX_SCHEMA_DEPTH) {
    out.push({ pointer: ptr, message: `the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`, hint: "use `definitions` and `$ref` for repeated parts" });
    return;
  }
  const sub = (value: unknown, ...segs: (string | number)[]) => walk(value, joinPointer(ptr, ...segs), depth + 1, false, out, refs);
  const bad = (key: string, message: string, hint?: string) => out.push({ pointer: joinPointer(ptr, key), message, ...(hint ? { hint } : {}) });
  for (const key of Object.keys(s)) {
    const v = s[key];
    if (key.startsWith("x-")) continue;
    if (!DRAFT07_WORDS.includes(key)) {
      if (LATER_DRAFTS.has(key)) {
        out.push({ pointer: joinPointer(ptr, key), atKey: true, message: `\`${key}\` is not a draft-07 keyword`, hint: "schemas here are JSON Schema draft-07; rewrite it with draft-07 keywords" });
      } else if (key === "nullable") {
        out.push({ pointer: joinPointer(ptr, key), atKey: true, message: "`nullable` is not a JSON Schema keyword", hint: 'use `type: [string, "null"]`' });
      } else {
        out.push({ pointer: joinPointer(ptr, key), atKey: true, message: `unknown schema keyword \`${key}\``, hint: unknownWordHint(key, DRAFT07_WORDS) });
      }
      continue;
    }
    switch (key) {
      case "type": {
        const list = Array.isArray(v) ? v : [v];
        if (Array.isArray(v) && v.length === 0) bad(key, "`type` must not be an empty list");
        const seen = new Set<unknown>();
        for (const t of list) {
          if (typeof t !== "string" || !TYPES.includes(t)) {
            bad(key, `\`type\` must be one of ${TYPES.map((x) => `\`${x}\``).join(", ")}${typeof t === "string" ? `, not \`${t}\`` : ""}`, typeof t === "string" ? unknownWordHint(t, TYPES) : undefined);
            break;
          }
          if (seen.has(t)) {
            bad(key, `\`type\` lists \`${t}\` twice`);
            break;
          }
          seen.add(t);
        }
        break;
      }
      case "enum":
        if (!Array.isArray(v) || v.length === 0) bad(key, "`enum` must be a non-empty list of values");
        else if (new Set(v.map(canonical)).size !== v.length) bad(key, "`enum` lists a value twice");
        break;
      case "multipleOf":
        if (typeof v !== "number" || !(v > 0)) bad(key, "`multipleOf` must be a number greater than 0");
        break;
      case "maximum":
      case "exclusiveMaximum":
      case "minimum":
      case "exclusiveMinimum":
        if (typeof v !== "number") bad(key, `\`${key}\` must be a number`, typeof v === "boolean" ? "draft-07 writes `exclusiveMinimum: 5`, not a boolean" : undefined);
        break;
      case "maxLength":
      case "minLength":
      case "maxItems":
      case "minItems":
      case "maxProperties":
      case "minProperties":
        if (!isNonNegInt(v)) bad(key, `\`${key}\` must be a whole number ≥ 0`);
        break;
      case "uniqueItems":
      case "readOnly":
      case "writeOnly":
        if (typeof v !== "boolean") bad(key, `\`${key}\` must be true or false`);
        break;
      case "pattern":
        if (typeof v !== "string") bad(key, "`pattern` must be a string");
        else {
          const e = patternProblem(v);
          if (e) bad(key, `\`pattern\` ${e.message}`, PATTERN_HINT);
        }
        break;
      case "format":
      case "$comment":
      case "title":
      case "description":
      case "contentMediaType":
      case "contentEncoding":
        if (typeof v !== "string") bad(key, `\`${key}\` must be a string`);
        break;
      case "examples":
        if (!Array.isArray(v)) bad(key, "`examples` must be a list");
        break;
      case "required":
        if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) bad(key, "`required` must be a list of property names");
        else if (new Set(v).size !== v.length) bad(key, "`required` names a property twice");
        break;
      case "items":
        if (Array.isArray(v)) v.forEach((x, i) => sub(x, key, i));
        else sub(v, key);
        break;
      case "additionalItems":
      case "additionalProperties":
      case "contains":
      case "propertyNames":
      case "not":
      case "if":
      case "then":
      case "else":
        sub(v, key);
        break;
      case "properties":
      case "definitions":
      case "$defs":
        if (!isObj(v)) bad(key, `\`${key}\` must be a map of names to schemas`);
        else for (const name of Object.keys(v)) sub(v[name], key, name);
        break;
      case "patternProperties":
        if (!isObj(v)) bad(key, "`patternProperties` must be a map of patterns to schemas");
        else
          for (const pat of Object.keys(v)) {
            const e = patternProblem(pat);
            if (e) out.push({ pointer: joinPointer(ptr, key, pat), atKey: true, message: `\`${pat}\` ${e.message}`, hint: PATTERN_HINT });
            sub(v[pat], key, pat);
          }
        break;
      case "dependencies":
        if (!isObj(v)) bad(key, "`dependencies` must be a map");
        else
          for (const name of Object.keys(v)) {
            const d = v[name];
            if (Array.isArray(d)) {
              if (d.some((x) => typeof x !== "string")) out.push({ pointer: joinPointer(ptr, key, name), message: "a dependency must be a list of property names or a schema" });
            } else sub(d, key, name);
          }
        break;
      case "allOf":
      case "anyOf":
      case "oneOf":
        if (!Array.isArray(v) || v.length === 0) bad(key, `\`${key}\` must be a non-empty list of schemas`);
        else v.forEach((x, i) => sub(x, key, i));
        break;
      case "$ref":
        if (typeof v !== "string") bad(key, "`$ref` must be a string");
        else if (!(v === "#" || v.startsWith("#/"))) bad(key, `\`$ref\` \`${v}\` is not a local reference`, "only references inside this schema (`#/definitions/…`) are read; nothing is fetched");
        else {
          const siblings = Object.keys(s).filter((k) => k !== "$ref" && !(ANNOTATIONS as readonly string[]).includes(k) && !k.startsWith("x-"));
          if (siblings.length > 0) bad(key, `\`$ref\` must stand alone; draft-07 ignores \`${siblings[0]}\` beside it`, "wrap it: `allOf: [{$ref: …}, {…}]`");
          refs.push({ pointer: ptr, ref: v });
        }
        break;
      case "$id":
        if (!isRoot) bad(key, "`$id` is only read at the top of a schema", "remove it; use `definitions` and `$ref: '#/definitions/…'`");
        else if (typeof v !== "string") bad(key, "`$id` must be a string");
        break;
      case "$schema":
        if (!isRoot) bad(key, "`$schema` is only read at the top of a schema");
        else if (typeof v !== "string" || !DRAFT07_URIS.has(v)) bad(key, "`$schema` must be draft-07", "write `http://json-schema.org/draft-07/schema#` or leave it out");
        break;
      default:
        break; // const, default: any value
    }
  }
}

/** JSON with sorted keys: equal values, equal strings. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (isObj(v)) return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
  return JSON.stringify(v) ?? "null";
}

const PATTERN_HINT = "patterns are ECMAScript regular expressions (`u` flag) matched in linear time: no lookahead, lookbehind or backreferences";

/**
 * A loop of in-place applicators (a `$ref`, `allOf`, … reaching itself without `properties` or
 * `items` in between) would make a validator recurse forever. Returns the pointer of one such
 * `$ref`, or undefined.
 */
function findInPlaceLoop(root: unknown): string | undefined {
  const state = new Map<string, 1 | 2>(); // 1 visiting, 2 done
  const visit = (ptr: string, depth: number): string | undefined => {
    if (depth > 1000) return ptr;
    const st = state.get(ptr);
    if (st === 1) return ptr;
    if (st === 2) return undefined;
    state.set(ptr, 1);
    const s = getAt(root, ptr);
    if (isObj(s)) {
      const next: string[] = [];
      if (typeof s.$ref === "string") {
        const t = s.$ref === "#" ? "" : safeDecode(s.$ref.slice(1));
        if (t !== undefined) next.push(t);
      }
      for (const k of ["allOf", "anyOf", "oneOf"]) if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((_, i) => next.push(joinPointer(ptr, k, i)));
      for (const k of ["not", "if", "then", "else"]) if (s[k] !== undefined) next.push(joinPointer(ptr, k));
      if (isObj(s.dependencies)) for (const [k, d] of Object.entries(s.dependencies)) if (!Array.isArray(d)) next.push(joinPointer(ptr, "dependencies", k));
      for (const n of next) {
        const found = visit(n, depth + 1);
        if (found !== undefined) return found;
      }
    }
    state.set(ptr, 2);
    return undefined;
  };
  // every subschema is a possible entry point
  const all: string[] = [];
  const collect = (s: unknown, ptr: string, depth: number) => {
    if (!isObj(s) || depth > MAX_SCHEMA_DEPTH + 1) return;
    all.push(ptr);
    for (const [k, v] of Object.entries(s)) {
      if (k === "properties" || k === "definitions" || k === "$defs" || k === "patternProperties" || k === "dependencies") {
        if (isObj(v)) for (const [n, x] of Object.entries(v)) collect(x, joinPointer(ptr, k, n), depth + 1);
      } else if (k === "items" || k === "allOf" || k === "anyOf" || k === "oneOf") {
        if (Array.isArray(v)) v.forEach((x, i) => collect(x, joinPointer(ptr, k, i), depth + 1));
        else collect(v, joinPointer(ptr, k), depth + 1);
      } else if (["additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else"].includes(k)) {
        collect(v, joinPointer(ptr, k), depth + 1);
      }
    }
  };
  collect(root, "", 0);
  for (const p of all) {
    const found = visit(p, 0);
    if (found !== undefined) return found;
  }
  return undefined;
}

function safeDecode(s: string): string | undefined {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

// re-exported for callers that build pointers next to schema problems
;
