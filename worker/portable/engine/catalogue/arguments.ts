/**
 * The argument set a tool's `args` schema declares (checks.md step 3: "an argument the schema
 * does not declare is refused"; interfaces.md: "undeclared arguments are refused").
 *
 * Declared are the names the schema gives — in `properties`, `required`, `dependencies` and
 * `propertyNames: {enum | const}` — and the names its `patternProperties` match, at the top or in
 * any branch the arguments object is checked against in place (`allOf` / `anyOf` / `oneOf`,
 * `if` / `then` / `else`, a schema-valued dependency, a local `$ref`), whatever the combinators:
 * `{properties: {order_id, email}, anyOf: [{required: [order_id]}, {required: [email]}]}` declares
 * `order_id` and `email`, and nothing else, so `{order_id: "1", shell: "rm -rf /"}` is refused
 * `argument_schema` at `/shell`.
 *
 * A schema that opens the set on purpose — `additionalProperties` other than `false`, at the top
 * or in such a branch — is left as it is, and its tool's `argsClosed` is false: a write whose set
 * is not closed is confirmed `schema_partial` (step 11), as before.
 */
import { resolveLocalRef } from "../schema/check-schema.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** `false`, or a schema that accepts nothing written as `{not: {}}`. */
function isFalse(s: unknown): boolean {
  return s === false || (isObj(s) && Object.keys(s).length === 1 && isObj(s.not) && Object.keys(s.not).length === 0);
}

interface Declared {
  names: Set<string>;
  patterns: Set<string>;
  /** a branch says `additionalProperties` other than false: the set is open on purpose */
  open: boolean;
}

/** What the schema declares at the top and in every branch read in place. */
export function declaredArguments(root: Obj): Declared {
  const out: Declared = { names: new Set(), patterns: new Set(), open: false };
  const seen = new Set<unknown>();
  const visit = (s: unknown, depth: number) => {
    if (!isObj(s) || seen.has(s) || depth > 64) return;
    seen.add(s);
    if (s.additionalProperties !== undefined && !isFalse(s.additionalProperties)) out.open = true;
    if (isObj(s.properties)) for (const k of Object.keys(s.properties)) out.names.add(k);
    if (isObj(s.patternProperties)) for (const k of Object.keys(s.patternProperties)) out.patterns.add(k);
    if (Array.isArray(s.required)) for (const k of s.required) if (typeof k === "string") out.names.add(k);
    if (isObj(s.propertyNames)) {
      if (Array.isArray(s.propertyNames.enum)) for (const k of s.propertyNames.enum) if (typeof k === "string") out.names.add(k);
      if (typeof s.propertyNames.const === "string") out.names.add(s.propertyNames.const);
    }
    if (isObj(s.dependencies)) {
      for (const [k, d] of Object.entries(s.dependencies)) {
        out.names.add(k);
        if (Array.isArray(d)) for (const n of d) typeof n === "string" && out.names.add(n);
        else visit(d, depth + 1);
      }
    }
    for (const k of ["allOf", "anyOf", "oneOf"]) if (Array.isArray(s[k])) for (const b of s[k] as unknown[]) visit(b, depth + 1);
    for (const k of ["if", "then", "else"]) visit(s[k], depth + 1);
    if (typeof s.$ref === "string") visit(resolveLocalRef(root, s.$ref), depth + 1);
  };
  visit(root, 0);
  return out;
}

/**
 * The args schema the validator enforces: the same schema with every declared name and pattern
 * also at the top and `additionalProperties: false` there, so an undeclared argument is refused at
 * its own pointer, rule `additionalProperties`. A schema whose set is open on purpose, or that
 * says `additionalProperties` at the top itself, is returned unchanged.
 */
export function closeArgs(schema: Obj): Obj {
  if (schema.additionalProperties !== undefined) return schema;
  const d = declaredArguments(schema);
  if (d.open) return schema;
  const { $ref, ...rest } = schema;
  const out: Obj = { ...rest };
  // draft-07 reads nothing beside a `$ref`: keep it as a branch of its own
  if (typeof $ref === "string") out.allOf = [...(Array.isArray(rest.allOf) ? rest.allOf : []), { $ref }];
  const top = isObj(schema.properties) ? schema.properties : {};
  const extra = [...d.names].filter((n) => !Object.hasOwn(top, n));
  if (extra.length > 0) {
    const props: Obj = {};
    for (const n of extra) define(props, n, true);
    for (const n of Object.keys(top)) define(props, n, top[n]);
    out.properties = props;
  }
  const topPatterns = isObj(schema.patternProperties) ? schema.patternProperties : {};
  const extraPatterns = [...d.patterns].filter((p) => !Object.hasOwn(topPatterns, p));
  if (extraPatterns.length > 0) {
    const pats: Obj = {};
    for (const p of extraPatterns) define(pats, p, true);
    for (const p of Object.keys(topPatterns)) define(pats, p, topPatterns[p]);
    out.patternProperties = pats;
  }
  out.additionalProperties = false;
  return out;
}

/** Does this effective args schema close the argument set at the top (as an author writes it)? */
export function closesArguments(schema: Obj): boolean {
  // a pattern names no argument: what it matches (`""` matches every name) is open, as catalogue.md says
  if (declaredArguments(schema).patterns.size > 0) return false;
  if (isFalse(schema.additionalProperties)) return true;
  if (schema.maxProperties === 0) return true;
  const pn = schema.propertyNames;
  return pn === false || (isObj(pn) && (Array.isArray(pn.enum) || pn.const !== undefined));
}

function define(o: Obj, key: string, value: unknown): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}
