/**
 * Issue 9, "Open argument sets": an argument that no branch of the `args` schema declares is
 * refused at step 3 (`argument_schema`, pointer naming it), whatever the combinators; a schema
 * that opens the set on purpose is left open, and a write with it is confirmed `schema_partial`.
 * Generated combinator schemas, through both schema adapters and through a check.
 */
import { describe, expect, it } from "vitest";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { cfworkerCompiler } from "../../worker/portable/engine/schema/cfworker.js";
import { closeArgs, declaredArguments } from "../../worker/portable/engine/catalogue/arguments.js";
import { loadCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import { Engine, Session } from "../../worker/portable/engine/index.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { prng } from "../helpers/prng.js";

const NAMES = ["order_id", "email", "amount", "note", "constructor", "__proto__"];
const UNDECLARED = ["shell", "cmd", "toString", "hasOwnProperty", "x", "order_id2"];

function sessionFor(catalogue: object) {
  const core = nodeCore();
  const engine = new Engine({ core, key: new Uint8Array(32).fill(7), schemaCompiler: ajvCompiler, now: () => new Date("2026-11-29T12:00:00Z") });
  return new Session(engine, "args", loadCatalogue(catalogue, { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) }));
}

describe("argument sets with combinators", () => {
  const issue = { type: "object", properties: { order_id: { type: "string" }, email: { type: "string" } }, anyOf: [{ required: ["order_id"] }, { required: ["email"] }] };

  it("the issue's read: an argument no branch declares is refused at step 3, naming it", async () => {
    const s = sessionFor({ tools: [{ name: "find_order", args: issue }] });
    expect(await s.checkToolCall("find_order", { order_id: "1", shell: "rm -rf /" })).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: "/shell", rule: "additionalProperties" } });
    expect(await s.checkToolCall("find_order", { order_id: "1" })).toMatchObject({ decision: "allow" });
    expect(await s.checkToolCall("find_order", { email: "ana" })).toMatchObject({ decision: "allow" });
    expect(await s.checkToolCall("find_order", {})).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { rule: "anyOf" } });
  });

  it("declared in a branch only (allOf, oneOf, if/then/else, dependencies, $ref): accepted; anything else refused", async () => {
    const schemas = [
      { type: "object", allOf: [{ properties: { order_id: { type: "string" } } }, { properties: { email: { type: "string" } } }] },
      { type: "object", oneOf: [{ properties: { order_id: { type: "string" }, email: { type: "string" } }, required: ["order_id", "email"] }, { properties: { order_id: { type: "number" } } }] },
      { type: "object", if: { properties: { order_id: { const: "1" } } }, then: { properties: { email: { type: "string" } } }, else: { required: ["order_id"] } },
      { type: "object", properties: { order_id: { type: "string" } }, dependencies: { order_id: { properties: { email: { type: "string" } } } } },
      { $ref: "#/definitions/args", definitions: { args: { type: "object", properties: { order_id: { type: "string" }, email: { type: "string" } } } } },
      { type: "object", propertyNames: { enum: ["order_id", "email"] } },
      { type: "object", anyOf: [{ patternProperties: { "^order_": {} } }, { properties: { email: {} } }] },
    ];
    for (const [i, schema] of schemas.entries()) {
      const s = sessionFor({ tools: [{ name: "find", args: schema }] });
      const ok = await s.checkToolCall("find", { order_id: "1", email: "ana" });
      expect(ok.decision, `schema ${i}: ${JSON.stringify(ok)}`).toBe("allow");
      const bad = await s.checkToolCall("find", { order_id: "1", email: "ana", shell: "rm -rf /" });
      expect(bad, `schema ${i}`).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer: "/shell" } });
    }
  });

  it("a schema open on purpose stays open: a read lets it through, a write is `schema_partial`", async () => {
    const open = { type: "object", properties: { order_id: { type: "string" } }, anyOf: [{ required: ["order_id"] }, { additionalProperties: { type: "string" } }] };
    const s = sessionFor({ tools: [{ name: "find", args: open }, { name: "tag", writes: true, args: open }] });
    expect(await s.checkToolCall("find", { order_id: "1", label: "x" })).toMatchObject({ decision: "allow" });
    expect(await s.checkToolCall("tag", { order_id: "1", label: "x" }, { origins: { order_id: "context", label: "context" } })).toMatchObject({ decision: "confirm", reasons: expect.arrayContaining(["schema_partial"]) });
    const closed = sessionFor({ tools: [{ name: "tag", writes: true, args: issue }] });
    const r = await closed.checkToolCall("tag", { order_id: "1" }, { origins: { order_id: "context" } });
    expect(r.reasons).not.toContain("schema_partial");
  });

  it("names a pattern matches are not named: `patternProperties` keeps a write's set open (`\"\"` matches every name), even beside `additionalProperties: false`", async () => {
    for (const args of [
      { type: "object", properties: { order_id: { type: "string" } }, patternProperties: { "": {} }, additionalProperties: false },
      { type: "object", properties: { order_id: { type: "string" } }, patternProperties: { "^x-": { type: "string" } } },
      { type: "object", allOf: [{ properties: { order_id: { type: "string" } } }, { patternProperties: { "^x-": {} } }] },
    ]) {
      const s = sessionFor({ tools: [{ name: "tag", writes: true, confirm: "when_held", args }] });
      const r = await s.checkToolCall("tag", { order_id: "1", "x-delete": "all" }, { origins: { order_id: "context", "x-delete": "context" } });
      expect(r, JSON.stringify(args)).toMatchObject({ decision: "confirm", reasons: ["schema_partial"] });
    }
  });

  it("generated combinator schemas: closing refuses exactly the undeclared names, and changes no other verdict", () => {
    const r = prng(20260903);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
    const some = () => NAMES.filter(() => r() < 0.35);
    const prop = () => pick([{ type: "string" }, { type: "number" }, true, { const: "1" }, { minLength: 2 }]);
    const branch = (depth: number): Record<string, unknown> => {
      const b: Record<string, unknown> = {};
      const names = some();
      if (names.length && r() < 0.7) b.properties = Object.fromEntries(names.map((n) => [n, prop()]));
      if (r() < 0.4) b.required = some().slice(0, 2);
      if (depth < 2 && r() < 0.5) b[pick(["allOf", "anyOf", "oneOf"])] = [branch(depth + 1), branch(depth + 1)];
      if (depth < 2 && r() < 0.2) Object.assign(b, { if: branch(depth + 1), then: branch(depth + 1) });
      if (depth < 2 && r() < 0.15) b.dependencies = { [pick(NAMES)]: r() < 0.5 ? [pick(NAMES)] : branch(depth + 1) };
      return b;
    };
    let refusedUndeclared = 0;
    let compared = 0;
    for (let i = 0; i < 200; i++) {
      const schema = { type: "object", ...branch(0) };
      const declared = declaredArguments(schema);
      if (declared.open) continue;
      const closed = closeArgs(schema);
      for (const compile of [ajvCompiler, cfworkerCompiler]) {
        const original = compile(schema);
        const strict = compile(closed);
        for (let j = 0; j < 6; j++) {
          const args: Record<string, unknown> = {};
          for (const n of [...declared.names].filter(() => r() < 0.6)) Object.defineProperty(args, n, { value: pick(["1", "ab", 5, "x"]), enumerable: true, writable: true, configurable: true });
          // declared names only: the verdict is the schema's own
          expect(strict(args).ok, `${JSON.stringify(schema)} ${JSON.stringify(args)}`).toBe(original(args).ok);
          compared++;
          const extra = pick(UNDECLARED);
          if (declared.names.has(extra)) continue;
          Object.defineProperty(args, extra, { value: "rm -rf /", enumerable: true, writable: true, configurable: true });
          const v = strict(args);
          expect(v.ok, `${JSON.stringify(schema)} + ${extra}`).toBe(false);
          if (!v.ok && v.rule === "additionalProperties") {
            expect(v.pointer).toBe(`/${extra}`);
            refusedUndeclared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(refusedUndeclared).toBeGreaterThan(500);
  });
});

describe("lint warnings for joins", () => {
  it("`{from}` with no `same` when both tools take an argument of one name: a warning naming it; `same` silences it", async () => {
    const { lintCatalogueWarnings } = await import("../../worker/portable/engine/catalogue/index.js");
    const catalogue = (join: string) =>
      `tools:\n  - name: check_stock\n    args: {type: object, properties: {sku: {type: string}}}\n    returns: {type: object, properties: {in_stock: {type: number}}}\n  - name: create_order\n    writes: true\n    args: {type: object, properties: {sku: {type: string}, quantity: {type: number}}}\n    checks: [{field: quantity, at_most: {from: check_stock.in_stock${join}}}]\n`;
    const plain = lintCatalogueWarnings(catalogue(""), { file: "t.yaml", schemaCompiler: ajvCompiler });
    expect(plain.problems).toEqual([]);
    expect(plain.warnings).toHaveLength(1);
    expect(plain.warnings[0]).toMatchObject({ line: 8, message: expect.stringContaining("reads the last result of `check_stock` whatever its `sku`"), hint: expect.stringContaining("`{from: check_stock.in_stock, same: sku}`") });
    const joined = lintCatalogueWarnings(catalogue(", same: sku"), { file: "t.yaml", schemaCompiler: cfworkerCompiler });
    expect(joined).toEqual({ problems: [], warnings: [] });
    const compiled = loadCatalogue(catalogue(", same: sku"), { schemaCompiler: ajvCompiler });
    expect(compiled.tools.get("check_stock")!.keepValues).toBe(true);
    expect(compiled.tools.get("create_order")!.keepValues).toBe(false);
  });
});
