/**
 * The eval-free schema adapter for workerd (and anywhere else): @cfworker/json-schema, draft-07.
 * It interprets the schema, so nothing is generated from strings. Same verdicts as ajv.ts: the
 * failure reported is picked by verdict.ts from the full error list.
 */
import { Validator, type OutputUnit } from "@cfworker/json-schema";
import type { SchemaCheck, SchemaCompiler } from "../catalogue/types.js";
import { joinPointer } from "./pointer.js";
import { prepareSchema } from "./prepare.js";
import { failure, jsonLeaf, pickLeaf, type Leaf } from "./verdict.js";

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
export function cfworkerLeaves(errors: readonly OutputUnit[]): Leaf[] {
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
  const quick = new Validator(prepared as object, "7", true);
  const explain = new Validator(prepared as object, "7", false);
  return (value: unknown) => {
    const bad = jsonLeaf(value);
    if (bad) return failure(bad);
    try {
      if (quick.validate(value).valid) return { ok: true };
      const leaf = pickLeaf(cfworkerLeaves(explain.validate(value).errors));
      return failure(leaf ?? { pointer: "", rule: "invalid" });
    } catch {
      return failure({ pointer: "", rule: "depth" });
    }
  };
};
