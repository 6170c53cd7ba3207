/**
 * Step two of loading: the catalogue's shape against its JSON Schema (schema.ts), with the
 * validator ajv generated ahead of time (generated/validate-catalogue.ts — no eval at run time).
 * Every ajv error becomes a problem at the offending node: an unknown word at its key, with "did
 * you mean" by edit distance; a wrong type or value at the value, with what is expected.
 */
import type { CatalogueProblem } from "../errors.js";
import { getAt, joinPointer, splitPointer } from "../schema/pointer.js";
import { closest, unknownWordHint } from "../schema/suggest.js";
import { contextOf, describeValue, expectedFromType, wordOf } from "./describe.js";
import validateCatalogue from "./generated/validate-catalogue.js";
import { catalogueSchema } from "./schema.js";
import { positionOf, type Source } from "./source.js";

interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
}

type SchemaNode = Record<string, unknown>;
const isNode = (v: unknown): v is SchemaNode => v !== null && typeof v === "object" && !Array.isArray(v);

function deref(node: unknown): SchemaNode | undefined {
  let n = node;
  for (let i = 0; i < 8 && isNode(n) && typeof n.$ref === "string"; i++) n = getAt(catalogueSchema, n.$ref.replace(/^#/, ""));
  return isNode(n) ? n : undefined;
}

/** The `if` forms schema.ts uses: `{type}` and `{required}`. */
function matchesIf(cond: SchemaNode, value: unknown): boolean {
  if (typeof cond.type === "string") {
    const t = cond.type;
    if (t === "number") return typeof value === "number";
    if (t === "string") return typeof value === "string";
    if (t === "array") return Array.isArray(value);
    if (t === "object") return isNode(value);
    return false;
  }
  if (Array.isArray(cond.required)) return isNode(value) && cond.required.every((k) => Object.prototype.hasOwnProperty.call(value, String(k)));
  return false;
}

/** The schema nodes that apply to one value: the node, then the `then`/`else` branch it takes. */
function applicable(node: unknown, value: unknown, depth = 0): SchemaNode[] {
  const n = deref(node);
  if (!n || depth > 8) return [];
  const out = [n];
  if (isNode(n.if)) {
    const branch = matchesIf(n.if, value) ? n.then : n.else;
    if (branch !== undefined) out.push(...applicable(branch, value, depth + 1));
  }
  return out;
}

/**
 * The nodes of the catalogue schema that apply at an instance pointer, found by walking the schema
 * along the data (not from ajv's `schemaPath`, which restarts at every `$ref`d definition).
 */
function nodesAt(data: unknown, pointer: string): SchemaNode[] {
  let value = data;
  let chain = applicable(catalogueSchema, value);
  for (const seg of splitPointer(pointer)) {
    let next: unknown;
    for (let i = chain.length - 1; i >= 0 && next === undefined; i--) {
      const n = chain[i]!;
      if (Array.isArray(value) && n.items !== undefined) next = n.items;
      else if (isNode(value) && isNode(n.properties) && Object.prototype.hasOwnProperty.call(n.properties, seg)) next = n.properties[seg];
      else if (isNode(value) && isNode(n.additionalProperties)) next = n.additionalProperties;
    }
    value = Array.isArray(value) ? value[Number(seg)] : isNode(value) ? value[seg] : undefined;
    if (next === undefined) return [];
    chain = applicable(next, value);
  }
  return chain;
}

/** What the place expects, in words: the outermost `x-expect` among the nodes that apply. */
function expectAt(chain: SchemaNode[]): string | undefined {
  for (const n of chain) if (typeof n["x-expect"] === "string") return n["x-expect"];
  return undefined;
}

/** The innermost applicable node carrying `keyword`. */
function nodeWith(chain: SchemaNode[], keyword: string): SchemaNode | undefined {
  for (let i = chain.length - 1; i >= 0; i--) if (chain[i]![keyword] !== undefined) return chain[i];
  return undefined;
}

/** Every problem of the shape, the first `max` of them (in the order ajv finds them: the data's). */
export function lintFormat(source: Source, max = Infinity): CatalogueProblem[] {
  const data = source.data;
  if (validateCatalogue(data)) return [];
  const errors = ((validateCatalogue as { errors?: AjvError[] | null }).errors ?? []) as AjvError[];
  const out: CatalogueProblem[] = [];
  const seen = new Set<string>();
  const add = (pointer: string, atKey: boolean, message: string, hint?: string) => {
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    const pos = positionOf(source, pointer, atKey);
    const where = source.fromObject ? ` (at \`${pointer || "/"}\`)` : "";
    out.push({ ...pos, pointer, message: contextOf(data, pointer) + message + where, ...(hint ? { hint } : {}) });
  };
  for (const e of errors) {
    if (out.length >= max) break;
    const value = getAt(data, e.instancePath);
    const word = wordOf(e.instancePath);
    const chain = nodesAt(data, e.instancePath);
    const expect = expectAt(chain);
    switch (e.keyword) {
      case "if":
        break; // "must match then/else": the branch's own errors follow
      case "additionalProperties": {
        const extra = String(e.params.additionalProperty);
        const known = Object.keys((nodeWith(chain, "properties")?.properties as object | undefined) ?? {});
        const pointer = joinPointer(e.instancePath, extra);
        const inHttp = splitPointer(e.instancePath)[0] === "http";
        if (extra === "writes" && inHttp && splitPointer(e.instancePath).length === 2) {
          add(pointer, true, "unknown word `writes` in an http entry", "an http entry's `method` says whether it writes: GET reads, the others write");
        } else if (known.length === 0) {
          add(pointer, true, `unknown word \`${extra}\``, expect ? `expected ${expect}` : undefined);
        } else {
          add(pointer, true, `unknown word \`${extra}\``, unknownWordHint(extra, known));
        }
        break;
      }
      case "required": {
        const missing = String(e.params.missingProperty);
        const prop = deref((nodeWith(chain, "properties")?.properties as Record<string, unknown> | undefined)?.[missing]);
        const propExpect = typeof prop?.["x-expect"] === "string" ? `: ${prop["x-expect"] as string}` : "";
        const what = e.instancePath === "" ? "the catalogue" : `\`${word}\``;
        add(e.instancePath, false, `${what} is missing \`${missing}\``, `add \`${missing}\`${propExpect}`);
        break;
      }
      case "type": {
        const want = expect ?? expectedFromType(e.params.type);
        let hint = `expected ${want}`;
        if (e.params.type === "boolean" && typeof value === "string" && /^(yes|no|on|off|y|n|true|false)$/i.test(value)) {
          const meant = /^(yes|on|y|true)$/i.test(value) ? "true" : "false";
          // YAML 1.2 reads true/True/TRUE as booleans: a string of them was written in quotes
          hint = /^(true|false)$/i.test(value) ? `write \`${meant}\` without quotes: in quotes it is text` : `write \`${meant}\`: YAML 1.2 reads \`${value}\` as a string`;
        } else if (typeof value === "string" && /^(object|array)$/.test(String(e.params.type)) && value.trim() === "") {
          hint = `expected ${want}; the value is empty`;
        }
        add(e.instancePath, false, `\`${word}\` must be ${expectedFromType(e.params.type)}, not ${describeValue(value)}`, hint);
        break;
      }
      case "enum": {
        const allowed = ((e.params.allowedValues as unknown[]) ?? (nodeWith(chain, "enum")?.enum as unknown[]) ?? []).map(String);
        const list = allowed.map((a) => `\`${a}\``).join(", ");
        const near = typeof value === "string" ? closest(value, allowed) : undefined;
        add(e.instancePath, false, `\`${word}\` must be ${allowed.length === 1 ? list : `one of ${list}`}, not ${describeValue(value)}`, near ? `did you mean \`${near}\`?` : expect ? `expected ${expect}` : undefined);
        break;
      }
      case "pattern":
        add(e.instancePath, false, `${describeValue(value)} is not a valid \`${word}\``, expect ? `expected ${expect}` : undefined);
        break;
      case "minimum":
      case "exclusiveMinimum": {
        const limit = e.params.limit;
        add(e.instancePath, false, `\`${word}\` must be ${e.keyword === "minimum" ? "at least" : "greater than"} ${String(limit)}, not ${describeValue(value)}`, expect ? `expected ${expect}` : undefined);
        break;
      }
      case "minItems":
      case "maxItems": {
        const limit = Number(e.params.limit);
        const msg = e.keyword === "minItems" && limit === 1 ? `\`${word}\` must not be empty` : `\`${word}\` must have ${e.keyword === "minItems" ? "at least" : "at most"} ${limit} items`;
        add(e.instancePath, false, msg, expect ? `expected ${expect}` : undefined);
        break;
      }
      case "minProperties":
      case "maxProperties":
        add(e.instancePath, false, `\`${word}\` must name exactly one source`, expect ? `expected ${expect}` : undefined);
        break;
      default:
        add(e.instancePath, false, `\`${word}\` is not valid here (\`${e.keyword}\`)`, expect ? `expected ${expect}` : undefined);
    }
  }
  return out;
}
