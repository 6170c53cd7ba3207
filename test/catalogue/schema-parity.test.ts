/**
 * The two schema adapters (ajv for Node, @cfworker/json-schema for workerd) must give the same
 * verdict — the same `{pointer, rule}` — for every schema and value (checks.md step 3 detail).
 * One table of cases, run against both; then seeded random schemas and values.
 */
import { describe, expect, it } from "vitest";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { cfworkerCompiler } from "../../worker/portable/engine/schema/cfworker.js";
import { InvalidSchema } from "../../worker/portable/engine/schema/prepare.js";
import { prng } from "../helpers/prng.js";

type Case = [name: string, schema: object, value: unknown, expected: { pointer: string; rule: string } | "ok"];

const refund = {
  type: "object",
  properties: { order_id: { type: "string", pattern: "^[0-9]+$" }, amount: { type: "number", exclusiveMinimum: 0 } },
  required: ["order_id", "amount"],
  additionalProperties: false,
};

const cases: Case[] = [
  ["seed: undeclared note", refund, { order_id: "4411", amount: 40, note: "cortesia" }, { pointer: "/note", rule: "additionalProperties" }],
  ["valid refund", refund, { order_id: "4411", amount: 40 }, "ok"],
  ["missing order_id", refund, { amount: 40 }, { pointer: "/order_id", rule: "required" }],
  ["missing both: first in document order", refund, {}, { pointer: "/amount", rule: "required" }],
  ["pattern", refund, { order_id: "44a", amount: 1 }, { pointer: "/order_id", rule: "pattern" }],
  ["exclusiveMinimum", refund, { order_id: "1", amount: 0 }, { pointer: "/amount", rule: "exclusiveMinimum" }],
  ["wrong type", refund, { order_id: 4411, amount: 1 }, { pointer: "/order_id", rule: "type" }],
  ["top-level type", refund, [], { pointer: "", rule: "type" }],
  ["null value", refund, null, { pointer: "", rule: "type" }],
  ["extra and missing: extra named first by pointer", refund, { amount: 1, note: "x" }, { pointer: "/note", rule: "additionalProperties" }],
  ["two extras", refund, { order_id: "1", amount: 1, z: 1, b: 2 }, { pointer: "/b", rule: "additionalProperties" }],
  ["integer", { type: "integer" }, 1.5, { pointer: "", rule: "type" }],
  ["integer ok", { type: "integer" }, 2, "ok"],
  ["integer 1.0", { type: "integer" }, 1.0, "ok"],
  ["type list", { type: ["string", "null"] }, 3, { pointer: "", rule: "type" }],
  ["type list ok", { type: ["string", "null"] }, null, "ok"],
  ["enum", { enum: ["a", "b"] }, "c", { pointer: "", rule: "enum" }],
  ["enum object", { enum: [{ a: 1 }] }, { a: 1 }, "ok"],
  ["enum and type: type first", { type: "string", enum: ["a"] }, 3, { pointer: "", rule: "type" }],
  ["const", { const: 5 }, 6, { pointer: "", rule: "const" }],
  ["const deep", { const: { a: [1, 2] } }, { a: [1, 2] }, "ok"],
  ["minimum", { minimum: 3 }, 2, { pointer: "", rule: "minimum" }],
  ["maximum", { maximum: 3 }, 4, { pointer: "", rule: "maximum" }],
  ["exclusiveMaximum", { exclusiveMaximum: 3 }, 3, { pointer: "", rule: "exclusiveMaximum" }],
  ["multipleOf decimal", { multipleOf: 0.1 }, 0.3, "ok"],
  ["multipleOf fails", { multipleOf: 0.25 }, 0.3, { pointer: "", rule: "multipleOf" }],
  ["multipleOf big", { multipleOf: 3 }, 1e21, { pointer: "", rule: "multipleOf" }],
  ["minLength astral", { minLength: 2 }, "😀", { pointer: "", rule: "minLength" }],
  ["maxLength astral ok", { maxLength: 1 }, "😀", "ok"],
  ["maxLength", { maxLength: 3 }, "abcd", { pointer: "", rule: "maxLength" }],
  ["pattern unicode", { pattern: "^\\p{L}+$" }, "ção", "ok"],
  ["format email", { format: "email" }, "not-an-email", { pointer: "", rule: "format" }],
  ["format date ok", { format: "date" }, "2024-02-29", "ok"],
  ["format date bad", { format: "date" }, "2023-02-29", { pointer: "", rule: "format" }],
  ["format ignores numbers", { format: "email" }, 5, "ok"],
  ["unknown format ignored", { format: "stalwart-thing" }, "x", "ok"],
  ["minItems", { type: "array", minItems: 2 }, [1], { pointer: "", rule: "minItems" }],
  ["maxItems", { type: "array", maxItems: 1 }, [1, 2], { pointer: "", rule: "maxItems" }],
  ["uniqueItems", { uniqueItems: true }, [1, { a: 1 }, { a: 1 }], { pointer: "", rule: "uniqueItems" }],
  ["items", { type: "array", items: { type: "number" } }, [1, "x", 3, "y"], { pointer: "/1", rule: "type" }],
  ["tuple items + additionalItems false", { type: "array", items: [{ type: "string" }], additionalItems: false }, ["a", 1, 2], { pointer: "/1", rule: "additionalItems" }],
  ["additionalItems schema", { items: [{}], additionalItems: { type: "string" } }, [1, 2], { pointer: "/1", rule: "type" }],
  ["contains", { contains: { const: 3 } }, [1, 2], { pointer: "", rule: "contains" }],
  ["contains empty", { contains: { const: 3 } }, [], { pointer: "", rule: "contains" }],
  ["minProperties", { minProperties: 1 }, {}, { pointer: "", rule: "minProperties" }],
  ["maxProperties", { maxProperties: 1 }, { a: 1, b: 2 }, { pointer: "", rule: "maxProperties" }],
  ["patternProperties", { patternProperties: { "^x_": { type: "number" } } }, { x_a: "s" }, { pointer: "/x_a", rule: "type" }],
  ["additionalProperties schema", { properties: { a: {} }, additionalProperties: { type: "string" } }, { a: 1, b: 2 }, { pointer: "/b", rule: "type" }],
  ["additionalProperties with patternProperties", { patternProperties: { "^a": {} }, additionalProperties: false }, { ab: 1, c: 2 }, { pointer: "/c", rule: "additionalProperties" }],
  ["propertyNames", { propertyNames: { maxLength: 2 } }, { abc: 1 }, { pointer: "/abc", rule: "propertyNames" }],
  ["dependencies list", { dependencies: { a: ["b"] } }, { a: 1 }, { pointer: "/b", rule: "dependencies" }],
  ["dependencies schema", { dependencies: { a: { required: ["c"] } } }, { a: 1 }, { pointer: "/c", rule: "required" }],
  ["anyOf", { anyOf: [{ type: "string" }, { type: "number" }] }, true, { pointer: "", rule: "anyOf" }],
  ["anyOf ok", { anyOf: [{ type: "string" }, { type: "number" }] }, 3, "ok"],
  ["oneOf two match", { oneOf: [{ type: "number" }, { minimum: 0 }] }, 3, { pointer: "", rule: "oneOf" }],
  ["oneOf none", { oneOf: [{ type: "string" }, { type: "null" }] }, 3, { pointer: "", rule: "oneOf" }],
  ["not", { not: { type: "string" } }, "x", { pointer: "", rule: "not" }],
  ["allOf leaves", { allOf: [{ type: "object" }, { required: ["a"] }] }, {}, { pointer: "/a", rule: "required" }],
  ["if/then", { if: { properties: { k: { const: 1 } } }, then: { required: ["v"] } }, { k: 1 }, { pointer: "/v", rule: "required" }],
  ["if/else", { if: { properties: { k: { const: 1 } } }, then: {}, else: { required: ["w"] } }, { k: 2 }, { pointer: "/w", rule: "required" }],
  ["false schema property", { properties: { secret: false } }, { secret: 1 }, { pointer: "/secret", rule: "false" }],
  ["false items", { items: false }, [1], { pointer: "/0", rule: "false" }],
  ["$ref", { definitions: { id: { type: "string" } }, properties: { a: { $ref: "#/definitions/id" } } }, { a: 1 }, { pointer: "/a", rule: "type" }],
  ["recursive $ref", { type: "object", properties: { next: { $ref: "#" }, v: { type: "number" } } }, { next: { next: { v: "x" } } }, { pointer: "/next/next/v", rule: "type" }],
  ["nested pointer escaping", { properties: { "a/b": { properties: { "c~d": { type: "string" } } } } }, { "a/b": { "c~d": 1 } }, { pointer: "/a~1b/c~0d", rule: "type" }],
  ["key with spaces and %", { properties: { "a b%20": { type: "string" } } }, { "a b%20": 1 }, { pointer: "/a b%20", rule: "type" }],
  ["required key with quote", { required: ['we"ird'] }, {}, { pointer: '/we"ird', rule: "required" }],
  ["additional key with slash", { additionalProperties: false }, { "x/y": 1 }, { pointer: "/x~1y", rule: "additionalProperties" }],
  ["deep first by document order", { properties: { a: { properties: { z: { type: "string" } } }, b: { type: "string" } } }, { a: { z: 1 }, b: 2 }, { pointer: "/a/z", rule: "type" }],
  ["array index order numeric", { items: { type: "string" } }, Array.from({ length: 12 }, (_, i) => (i >= 2 ? i : "s")), { pointer: "/2", rule: "type" }],
  ["anyOf covers its subtree", { properties: { a: { anyOf: [{ required: ["x"] }, { required: ["y"] }] } } }, { a: {} }, { pointer: "/a", rule: "anyOf" }],
  ["ajv 8.20 contains bug: empty inner array", { items: { contains: { const: [] } } }, [[[]], []], { pointer: "/1", rule: "contains" }],
  ["ajv 8.20 contains bug: tuple items", { items: [{ minimum: 1 }], contains: { type: "string" } }, [], { pointer: "", rule: "contains" }],
  ["contains beside not", { not: { type: "string" }, contains: { const: 1 } }, [2], { pointer: "", rule: "contains" }],
  ["huge string", { type: "string", maxLength: 10 }, "x".repeat(1_000_000), { pointer: "", rule: "maxLength" }],
  ["boolean true schema", { properties: { a: true } }, { a: { any: [1] } }, "ok"],
  ["empty schema", {}, { anything: [1, "x", null] }, "ok"],
];

const compilers = { ajv: ajvCompiler, cfworker: cfworkerCompiler };

describe("schema adapters agree", () => {
  it("has at least 40 cases", () => expect(cases.length).toBeGreaterThanOrEqual(40));
  for (const [name, schema, value, expected] of cases) {
    it(name, () => {
      const verdicts = Object.entries(compilers).map(([who, compile]) => {
        const v = compile(schema)(value);
        return { who, v: v.ok ? "ok" : { pointer: v.pointer, rule: v.rule } };
      });
      for (const { v } of verdicts) expect(v).toEqual(expected);
    });
  }

  it("never throws on values that are not JSON; both refuse alike", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const bad: unknown[] = [cyclic, { f: () => 1 }, { n: NaN }, { d: new Date(0) }, { u: undefined }, 10n, deep, { "\ud800": 1 }];
    for (const value of bad) {
      const a = ajvCompiler({})(value);
      const c = cfworkerCompiler({})(value);
      expect(a.ok).toBe(false);
      expect(c).toEqual(a);
    }
  });

  it("reject the same schemas, with InvalidSchema", () => {
    const invalid = [
      { type: "strin" },
      { propertes: {} },
      { pattern: "(" },
      { $ref: "http://example.com/s.json" },
      { $ref: "#/definitions/missing" },
      { definitions: { a: { $ref: "#/definitions/a" } }, $ref: "#/definitions/a" },
      { unevaluatedProperties: false },
      { minLength: -1 },
      { required: "a" },
      { $ref: "#/definitions/a", type: "string", definitions: { a: {} } },
      { properties: { a: { $id: "x" } } },
      { $schema: "https://json-schema.org/draft/2020-12/schema" },
    ];
    for (const s of invalid) {
      expect(() => ajvCompiler(s), JSON.stringify(s)).toThrow(InvalidSchema);
      expect(() => cfworkerCompiler(s), JSON.stringify(s)).toThrow(InvalidSchema);
    }
  });
});

/** Random schemas and values from a seeded generator: both adapters must agree on each. */
describe("schema adapters agree on random cases", () => {
  const SEED = Number(process.env.PARITY_SEED ?? 20240611);
  const rnd = prng(SEED);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const names = ["a", "b", "c", "x/y", "n~m", "é"];
  const randValue = (depth: number): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.35) return pick([0, 1, -1, 2.5, 0.3, 100, "", "a", "abc", "2024-01-01", "a@b.co", true, false, null]);
    if (r < 0.65) return Array.from({ length: Math.floor(rnd() * 4) }, () => randValue(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(rnd() * 4); i > 0; i--) o[pick(names)] = randValue(depth + 1);
    return o;
  };
  const randSchema = (depth: number): Record<string, unknown> => {
    const s: Record<string, unknown> = {};
    const n = 1 + Math.floor(rnd() * 3);
    for (let i = 0; i < n; i++) {
      const k = pick(depth > 2 ? ["type", "enum", "minimum", "maxLength", "pattern", "const", "format", "multipleOf"] : ["type", "enum", "minimum", "maxLength", "pattern", "properties", "required", "additionalProperties", "items", "anyOf", "not", "minItems", "const", "format", "multipleOf", "propertyNames", "dependencies", "oneOf", "allOf", "contains", "uniqueItems"]);
      switch (k) {
        case "type": s.type = pick(["string", "number", "integer", "object", "array", "boolean", "null", ["string", "number"]]); break;
        case "enum": s.enum = [randValue(3), randValue(3)]; break;
        case "minimum": s.minimum = pick([0, 1, 2.5]); break;
        case "maxLength": s.maxLength = pick([0, 1, 3]); break;
        case "pattern": s.pattern = pick(["^a", "b$", "^[0-9]+$", "é"]); break;
        case "const": s.const = randValue(3); break;
        case "format": s.format = pick(["email", "date", "ipv4", "hostname"]); break;
        case "multipleOf": s.multipleOf = pick([0.1, 0.5, 2, 3]); break;
        case "properties": s.properties = Object.fromEntries(names.slice(0, 1 + Math.floor(rnd() * 3)).map((nm) => [nm, randSchema(depth + 1)])); break;
        case "required": s.required = [...new Set([pick(names), pick(names)])]; break;
        case "additionalProperties": s.additionalProperties = rnd() < 0.6 ? false : randSchema(depth + 1); break;
        case "items": s.items = rnd() < 0.7 ? randSchema(depth + 1) : [randSchema(depth + 1), randSchema(depth + 1)]; break;
        case "anyOf": s.anyOf = [randSchema(depth + 1), randSchema(depth + 1)]; break;
        case "oneOf": s.oneOf = [randSchema(depth + 1), randSchema(depth + 1)]; break;
        case "allOf": s.allOf = [randSchema(depth + 1), randSchema(depth + 1)]; break;
        case "not": s.not = randSchema(depth + 1); break;
        case "minItems": s.minItems = pick([1, 2]); break;
        case "propertyNames": s.propertyNames = { maxLength: 1 }; break;
        case "dependencies": s.dependencies = { a: rnd() < 0.5 ? ["b"] : randSchema(depth + 1) }; break;
        case "contains": s.contains = randSchema(depth + 1); break;
        case "uniqueItems": s.uniqueItems = true; break;
      }
    }
    return s;
  };
  it("1,000 random schemas × 5 values (seed " + SEED + ", set PARITY_SEED to vary)", () => {
    let failures = 0;
    let compared = 0;
    for (let i = 0; i < 1000; i++) {
      const schema = randSchema(0);
      let a, c;
      try {
        a = ajvCompiler(schema);
      } catch (err) {
        expect(() => cfworkerCompiler(schema), `${JSON.stringify(schema)}: ${String(err)}`).toThrow();
        continue;
      }
      c = cfworkerCompiler(schema);
      for (let j = 0; j < 5; j++) {
        const value = randValue(0);
        const va = a(value);
        const vc = c(value);
        compared++;
        if (JSON.stringify(va) !== JSON.stringify(vc)) {
          failures++;
          if (failures < 5) console.error("disagree", JSON.stringify(schema), JSON.stringify(value), va, vc);
        }
      }
    }
    expect(compared).toBeGreaterThan(4000);
    expect(failures).toBe(0);
  }, 240_000); // 2,000 schema compilations: ~15 s of CPU, minutes on a loaded 2-core machine
});
