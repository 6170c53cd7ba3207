/**
 * The Node schema adapter: ajv (draft-07) compiles each schema to a function once, at catalogue
 * load. Not for workerd: ajv generates code from strings, which workerd forbids — the worker uses
 * cfworker.ts, and the two return the same `{pointer, rule}` for every failure (verdict.ts).
 *
 * Hot path: one `allErrors: false` validator answers valid/invalid. Only on a failure is a second,
 * `allErrors: true` validator (built lazily, once) asked for every error, so that the failure
 * reported is picked by verdict.ts's rule rather than by ajv's evaluation order.
 * Patterns run on the engine's linear-time engine (`code.regExp`: linear-regex.ts), as in the
 * cfworker adapter, so a backtracking `pattern` cannot freeze the process.
 * Formats are @cfworker/json-schema's own functions, so both adapters judge `format` alike;
 * `multipleOf` is exact decimal arithmetic (multiple-of.ts) for the same reason.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { format as cfFormats } from "@cfworker/json-schema";
import type { SchemaCheck, SchemaCompiler } from "../../worker/portable/engine/index.js";
import { isMultipleOf } from "../../worker/portable/engine/index.js";
import { joinPointer } from "../../worker/portable/engine/index.js";
import { prepareSchema } from "../../worker/portable/engine/index.js";
import { failure, jsonLeaf, pickLeaves, type Leaf } from "../../worker/portable/engine/index.js";
import { linearRegExp } from "../../worker/portable/engine/index.js";
import { BoundedCache, canonicalize } from "../../worker/portable/engine/index.js";

/** ajv's `code.regExp`: every `pattern` / `patternProperties` on the linear-time engine. */
const linearPatterns = Object.assign((pattern: string, _flags: string) => linearRegExp(pattern), { code: "linearRegExp" });

function makeAjv(allErrors: boolean) {
  const ajv = new Ajv({
    allErrors,
    verbose: allErrors, // errors carry their parentSchema: needed to tell a rewritten `contains`
    // check-schema.ts is the strict judge of schemas; ajv's own strict mode would reject
    // `x-` annotations and unknown formats that cfworker accepts
    strict: false,
    strictNumbers: true,
    validateFormats: true,
    logger: false,
    inlineRefs: true,
    // `required`, `properties`, `dependencies` look at own properties only, as cfworker does:
    // otherwise `required: [constructor]` holds for every object (it inherits one)
    ownProperties: true,
    code: { regExp: linearPatterns },
  });
  for (const [name, fn] of Object.entries(cfFormats)) ajv.addFormat(name, fn as (s: string) => boolean);
  ajv.addKeyword({ keyword: CONTAINS_MARK, schemaType: "boolean" }); // an annotation
  ajv.removeKeyword("multipleOf");
  ajv.addKeyword({
    keyword: "multipleOf",
    type: "number",
    schemaType: "number",
    errors: false,
    validate: (divisor: number, data: number) => isMultipleOf(data, divisor),
  });
  return ajv;
}

let fast: Ajv | undefined;
let full: Ajv | undefined;
/**
 * Every function an Ajv instance compiles holds the instance's whole scope (each schema and
 * function it ever compiled): a long-lived instance grows by ~3 KB a schema for good. A new one
 * is made after this many compiles, so what a process keeps is what its live checks need.
 */
const COMPILES_PER_INSTANCE = 256;
let fastCompiles = 0;
let fullCompiles = 0;

/** ajv's errors as leaves (verdict.ts conventions). */
function ajvLeaves(errors: readonly ErrorObject[]): Leaf[] {
  const out: Leaf[] = [];
  for (const e of errors) {
    if ((e as { propertyName?: string }).propertyName !== undefined) continue; // inside propertyNames
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case "if":
        break;
      case "additionalProperties":
        out.push({ pointer: joinPointer(e.instancePath, String(p.additionalProperty)), rule: "additionalProperties" });
        break;
      case "required":
        out.push({ pointer: joinPointer(e.instancePath, String(p.missingProperty)), rule: "required" });
        break;
      case "dependencies":
        out.push({ pointer: joinPointer(e.instancePath, String(p.missingProperty)), rule: "dependencies" });
        break;
      case "propertyNames":
        out.push({ pointer: joinPointer(e.instancePath, String(p.propertyName)), rule: "propertyNames" });
        break;
      case "additionalItems":
        out.push({ pointer: joinPointer(e.instancePath, Number(p.limit)), rule: "additionalItems" });
        break;
      case "not":
        out.push({ pointer: e.instancePath, rule: (e.parentSchema as Record<string, unknown> | undefined)?.[CONTAINS_MARK] === true ? "contains" : "not" });
        break;
      case "false schema":
        out.push({ pointer: e.instancePath, rule: "false" });
        break;
      default:
        out.push({ pointer: e.instancePath, rule: e.keyword });
    }
  }
  return out;
}

const CONTAINS_MARK = "x-stalwart-contains";
const SUBSCHEMA = ["additionalItems", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf"];
const SUBSCHEMA_MAPS = ["properties", "patternProperties", "definitions", "$defs"];

/**
 * Rewrites what ajv 8.20 would get wrong, into what it gets right:
 *
 * A bug found by the parity test: `contains` can accept an empty array —
 * its loop never runs and its result variable keeps a stale `true` (e.g. `{items: {contains:
 * {const: []}}}` passes `[[[]], []]`). So ajv never sees `contains`: `contains: S` is rewritten to
 * its equivalent `not: {type: array, items: {not: S}}` ("not every item fails S"), placed in an
 * `allOf` entry marked `x-stalwart-contains`, whose `not` failure is reported as the rule
 * `contains` (the explaining validator runs with `verbose`, so the error carries its schema).
 */
function rewriteContains(schema: unknown): unknown {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return schema;
  const s = { ...(schema as Record<string, unknown>) };
  for (const k of SUBSCHEMA) if (s[k] !== undefined) s[k] = rewriteContains(s[k]);
  if (s.items !== undefined) s.items = Array.isArray(s.items) ? s.items.map(rewriteContains) : rewriteContains(s.items);
  for (const k of SUBSCHEMA_LISTS) if (Array.isArray(s[k])) s[k] = (s[k] as unknown[]).map(rewriteContains);
  for (const k of SUBSCHEMA_MAPS) {
    const m = s[k];
    if (m && typeof m === "object" && !Array.isArray(m)) s[k] = Object.fromEntries(Object.entries(m).map(([n, x]) => [n, rewriteContains(x)]));
  }
  if (s.dependencies && typeof s.dependencies === "object") {
    s.dependencies = Object.fromEntries(Object.entries(s.dependencies).map(([n, x]) => [n, Array.isArray(x) ? x : rewriteContains(x)]));
  }
  // ajv skips a property named `__proto__` (code.ts `allSchemaProperties`), so the argument would
  // count as undeclared; the same schema for the one name that pattern can only match
  const props = s.properties;
  if (props && typeof props === "object" && !Array.isArray(props) && Object.hasOwn(props, "__proto__")) {
    const { ["__proto__"]: proto, ...rest } = props as Record<string, unknown>;
    s.properties = rest;
    const pp = s.patternProperties && typeof s.patternProperties === "object" ? { ...(s.patternProperties as Record<string, unknown>) } : {};
    const key = "^__proto__$";
    Object.defineProperty(pp, key, { value: Object.hasOwn(pp, key) ? { allOf: [pp[key], proto] } : proto, enumerable: true, writable: true, configurable: true });
    s.patternProperties = pp;
  }
  if (s.contains !== undefined) {
    const inner = s.contains;
    delete s.contains;
    const entry = { [CONTAINS_MARK]: true, not: { type: "array", items: { not: inner } } };
    s.allOf = Array.isArray(s.allOf) ? [...s.allOf, entry] : [entry];
  }
  return s;
}

/**
 * Checks already compiled, by the schema's canonical JSON: the same schema met again is not
 * compiled again (ajv's code generation is ~70% of loading a catalogue). The gateway compiles the
 * person's catalogue twice (as written, and with its outside reads added), and an SDK client each
 * catalogue text or object it is given. A schema that has no canonical JSON is compiled each time.
 * Bounded: the least recently used goes first.
 */
const compiled = new BoundedCache<string, SchemaCheck>(512);

/** Compiles a draft-07 schema with ajv. Throws `InvalidSchema` for a schema check-schema.ts refuses. */
export const ajvCompiler: SchemaCompiler = (schema: object): SchemaCheck => {
  let key: string | undefined;
  try {
    key = canonicalize(schema);
  } catch {
    key = undefined; // not plain JSON data (a non-finite number, a cycle): compiled, not kept
  }
  const hit = key === undefined ? undefined : compiled.get(key);
  if (hit) return hit;
  const check = compile(schema);
  if (key !== undefined) compiled.set(key, check);
  return check;
};

function compile(schema: object): SchemaCheck {
  const prepared = rewriteContains(prepareSchema(schema)) as object;
  if (!fast || ++fastCompiles > COMPILES_PER_INSTANCE) [fast, fastCompiles] = [makeAjv(false), 1];
  const quick: ValidateFunction = fast.compile(prepared);
  fast.removeSchema(prepared); // out of its schema cache; its scope still holds it (COMPILES_PER_INSTANCE)
  let explain: ValidateFunction | undefined;
  return (value: unknown) => {
    const bad = jsonLeaf(value);
    if (bad) return failure(bad);
    try {
      if (quick(value)) return { ok: true };
      if (!explain) {
        if (!full || ++fullCompiles > COMPILES_PER_INSTANCE) [full, fullCompiles] = [makeAjv(true), 1];
        explain = full.compile(prepared);
        full.removeSchema(prepared);
      }
      const all: ValidateFunction = explain;
      all(value);
      const leaves = pickLeaves(ajvLeaves(all.errors ?? []));
      return failure(leaves[0] ?? { pointer: "", rule: quick.errors?.[0]?.keyword ?? "invalid" }, leaves);
    } catch {
      // fail closed: a validator that cannot answer is a failure, never a pass
      return failure({ pointer: "", rule: "depth" });
    }
  };
}
