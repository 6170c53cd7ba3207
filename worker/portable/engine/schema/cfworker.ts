/**
 * The eval-free schema adapter for workerd (and anywhere else): @cfworker/json-schema, draft-07.
 * It interprets the schema, so nothing is generated from strings. Same verdicts as ajv.ts: the
 * failure reported is picked by verdict.ts from the full error list.
 *
 * Patterns run on the linear-time engine (linear-regex.ts), as in the ajv adapter. cfworker has no
 * hook for that: it calls `new RegExp(pattern, "u")` for `pattern` and `patternProperties` while
 * it validates. So for the length of one synchronous `validate` call — nothing else can run in
 * between — the global `RegExp` answers this schema's patterns with their compiled linear
 * versions (and any other source, e.g. a `format: regex` value, with the built-in), and is put
 * back in `finally`.
 */
import { Validator, type OutputUnit } from "@cfworker/json-schema";
import type { SchemaCheck, SchemaCompiler } from "../catalogue/types.js";
import { joinPointer } from "./pointer.js";
import { prepareSchema } from "./prepare.js";
import { schemaPatterns, type LinearRegExp } from "./linear-regex.js";
import { failure, jsonLeaf, pickLeaves, type Leaf } from "./verdict.js";

/** `#/a/b%20c` (cfworker's instance location) → `/a/b c`. */
function toPointer(location: string): string {
  const body = location.startsWith("#") ? location.slice(1) : location;
  if (body === "") return "";
  return body
    .split("/")
    .slice(1)
    .map((seg) => "/" + safeDecode(seg))
    .join("");
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s); // still RFC 6901-escaped (~0 ~1), which is what a pointer wants
  } catch {
    return s;
  }
}

const quoted = (message: string, re: RegExp): string | undefined => re.exec(message)?.[1];

/** cfworker's errors as leaves (verdict.ts conventions). */
function cfworkerLeaves(errors: readonly OutputUnit[]): Leaf[] {
  const out: Leaf[] = [];
  for (let i = 0; i < errors.length; i++) {
    const e = errors[i]!;
    const at = toPointer(e.instanceLocation);
    switch (e.keyword) {
      case "properties":
      case "patternProperties":
      case "items":
      case "$ref":
      case "allOf":
      case "if":
        break;
      case "additionalProperties":
      case "additionalItems": {
        const next = errors[i + 1];
        if (next && next.keyword === "false") {
          out.push({ pointer: toPointer(next.instanceLocation), rule: e.keyword });
          i++;
        }
        break;
      }
      case "false":
        out.push({ pointer: at, rule: "false" });
        break;
      case "required": {
        const key = quoted(e.error, /^Instance does not have required property "([\s\S]*)"\.$/);
        out.push({ pointer: key === undefined ? at : joinPointer(at, key), rule: "required" });
        break;
      }
      case "dependencies": {
        const key = quoted(e.error, /^Instance has "[\s\S]*" but does not have "([\s\S]*)"\.$/);
        if (key !== undefined) out.push({ pointer: joinPointer(at, key), rule: "dependencies" });
        break; // the schema form is a wrapper; its leaves follow
      }
      case "propertyNames": {
        const key = quoted(e.error, /^Property name "([\s\S]*)" does not match schema\.$/);
        out.push({ pointer: key === undefined ? at : joinPointer(at, key), rule: "propertyNames" });
        break;
      }
      default:
        out.push({ pointer: at, rule: e.keyword });
    }
  }
  return out;
}

/** Builds an interpreting validator for a draft-07 schema. Throws `InvalidSchema` like ajvCompiler. */
export const cfworkerCompiler: SchemaCompiler = (schema: object): SchemaCheck => {
  const prepared = prepareSchema(schema);
  const patterns = schemaPatterns(prepared);
  const quick = new Validator(prepared as object, "7", true);
  const explain = new Validator(prepared as object, "7", false);
  return (value: unknown) => {
    const bad = jsonLeaf(value);
    if (bad) return failure(bad);
    try {
      if (withPatterns(patterns, () => quick.validate(value).valid)) return { ok: true };
      const leaves = pickLeaves(cfworkerLeaves(withPatterns(patterns, () => explain.validate(value).errors)));
      return failure(leaves[0] ?? { pointer: "", rule: "invalid" }, leaves);
    } catch {
      return failure({ pointer: "", rule: "depth" });
    }
  };
};

const NativeRegExp = RegExp;

/** Runs `work` (synchronous) with `new RegExp(p, "u")` answering `patterns`' own entries in linear time. */
function withPatterns<T>(patterns: ReadonlyMap<string, LinearRegExp>, work: () => T): T {
  if (patterns.size === 0) return work();
  // Only `new RegExp(source, "u")` is asked of it (the validator's own pattern keyword).
  const PatternRegExp = function (source: string | RegExp, flags?: string): RegExp {
    const linear = typeof source === "string" && flags === "u" ? patterns.get(source) : undefined;
    return (linear as RegExp | undefined) ?? new NativeRegExp(source, flags);
  } as RegExpConstructor;
  globalThis.RegExp = PatternRegExp;
  try {
    return work();
  } finally {
    globalThis.RegExp = NativeRegExp;
  }
}
