/**
 * The Node schema adapter keeps what it compiled, by the schema's canonical JSON (ajv-compiler.ts):
 * the same schema again is the same check, a different one never is, and what has no canonical
 * JSON is compiled each time. Loading one catalogue twice (the gateway does) compiles its schemas once.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { loadCatalogue } from "../../worker/portable/engine/index.js";

const verdict = (check: ReturnType<typeof ajvCompiler>, value: unknown) => {
  const r = check(value);
  return r.ok ? "ok" : `${r.pointer} ${r.rule}`;
};

describe("compiled schemas kept by their JSON", () => {
  it("the same schema, another object with its keys in another order: the same check", () => {
    const a = ajvCompiler({ type: "object", properties: { n: { type: "integer", maximum: 5 } }, required: ["n"], additionalProperties: false });
    const b = ajvCompiler({ additionalProperties: false, required: ["n"], properties: { n: { maximum: 5, type: "integer" } }, type: "object" });
    expect(b).toBe(a);
    expect(verdict(b, { n: 5 })).toBe("ok");
    expect(verdict(b, { n: 6 })).toBe("/n maximum");
    expect(verdict(b, { n: 1, x: 1 })).toBe("/x additionalProperties");
  });

  it("a schema one value apart is its own check", () => {
    const five = ajvCompiler({ type: "integer", maximum: 5 });
    const six = ajvCompiler({ type: "integer", maximum: 6 });
    const text = ajvCompiler({ type: "string", maxLength: 5 });
    expect(six).not.toBe(five);
    expect([verdict(five, 6), verdict(six, 6), verdict(text, "123456"), verdict(text, 6)]).toEqual([" maximum", "ok", " maxLength", " type"]);
  });

  it("a schema with no canonical JSON (a lone surrogate) is compiled each time, never taken for another", () => {
    const lone = { type: "string", not: { const: "a\ud800" } };
    const first = ajvCompiler(lone);
    const again = ajvCompiler({ ...lone });
    expect(again).not.toBe(first);
    expect([verdict(first, "a\ud800"), verdict(again, "b")]).toEqual([" not", "ok"]);
    // a non-finite number has none either: each is judged on its own (JSON.stringify would write both as null)
    expect(() => ajvCompiler({ type: "number", maximum: Number.POSITIVE_INFINITY })).toThrow(/maximum/);
    expect(() => ajvCompiler({ type: "number", maximum: null })).toThrow(/maximum/);
  });

  it("past the number kept: a schema compiled long ago still checks as it says", () => {
    const first = { type: "object", properties: { k: { const: "first" } }, required: ["k"] };
    expect(verdict(ajvCompiler(first), { k: "first" })).toBe("ok");
    for (let i = 0; i < 700; i++) ajvCompiler({ type: "object", properties: { k: { const: `v${i}` } } });
    const back = ajvCompiler(first);
    expect([verdict(back, { k: "first" }), verdict(back, { k: "v1" }), verdict(back, {})]).toEqual(["ok", "/k const", "/k required"]);
  });

  it("one catalogue loaded twice: each tool's argument check compiled once", () => {
    const text = `
settings: {language: en}
tools:
  - {name: read_file, args: {type: object, properties: {path: {type: string, pattern: "^/srv/"}}, required: [path], additionalProperties: false}}
  - {name: refund, writes: true, args: {type: object, properties: {amount: {type: number, exclusiveMinimum: 0}}, required: [amount], additionalProperties: false}}
`;
    const one = loadCatalogue(text, { schemaCompiler: ajvCompiler });
    const two = loadCatalogue(text, { schemaCompiler: ajvCompiler });
    for (const name of ["read_file", "refund"]) expect(two.tools.get(name)!.validateArgs).toBe(one.tools.get(name)!.validateArgs);
    expect(verdict(two.tools.get("read_file")!.validateArgs, { path: "/etc/passwd" })).toBe("/path pattern");
    expect(verdict(two.tools.get("refund")!.validateArgs, { amount: 0 })).toBe("/amount exclusiveMinimum");
  });

  it("what a process keeps does not grow with every schema it compiled (each Ajv instance is let go after 256)", () => {
    const out = execFileSync(process.execPath, ["--expose-gc", "--import", "tsx", join(import.meta.dirname, "fixtures/ajv-heap.ts")], { encoding: "utf8" });
    const { after1000, after4000 } = JSON.parse(out) as { after1000: number; after4000: number };
    // one long-lived instance kept ~3.3 KB a schema: ~10 MB more for these 3,000
    expect(after4000 - after1000).toBeLessThan(4);
  }, 60_000);
});
