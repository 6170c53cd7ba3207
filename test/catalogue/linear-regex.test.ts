/**
 * Issue 9: catalogue patterns run on one linear-time engine (worker/portable/engine/schema/
 * linear-regex.ts, re2js) in both schema adapters. The translation from ECMAScript `u` patterns
 * is checked against the built-in engine on generated patterns and inputs (small enough that
 * backtracking stays cheap); what RE2 cannot run is refused with the character it starts at; and
 * a pattern that backtracks for seconds in a built-in engine is answered, by ajv (Node) and by
 * cfworker (workerd's adapter) alike. A timing of that answer is in bench/ (`npm run bench`).
 */
import { describe, expect, it } from "vitest";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { cfworkerCompiler } from "../../worker/portable/engine/schema/cfworker.js";
import { linearRegExp, patternProblem } from "../../worker/portable/engine/schema/linear-regex.js";
import { loadCatalogue, lintCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import { prng } from "../helpers/prng.js";

const EVIL = "^([a-z0-9]+[-.]?)*[a-z0-9]+$";
const EVIL_INPUT = "a".repeat(28) + "!";

describe("linear-time patterns", () => {
  it("the issue's pattern: answered (no match) by both adapters, and through a catalogue", () => {
    expect(linearRegExp(EVIL).test(EVIL_INPUT)).toBe(false);
    expect(linearRegExp(EVIL).test("a-b.c")).toBe(true);
    for (const compile of [ajvCompiler, cfworkerCompiler]) {
      const check = compile({ type: "object", properties: { host: { type: "string", pattern: EVIL } } });
      expect(check({ host: EVIL_INPUT })).toMatchObject({ ok: false, pointer: "/host", rule: "pattern" });
      expect(check({ host: "a".repeat(5000) + "!" })).toMatchObject({ ok: false, rule: "pattern" });
      expect(check({ host: "shop-1.example" })).toEqual({ ok: true });
      const keys = compile({ type: "object", patternProperties: { [EVIL]: { type: "number" } }, additionalProperties: false });
      expect(keys({ [EVIL_INPUT]: 1 })).toMatchObject({ ok: false, pointer: `/${EVIL_INPUT}`, rule: "additionalProperties" });
      expect(keys({ abc: "x" })).toMatchObject({ ok: false, pointer: "/abc", rule: "type" });
      expect(keys({ abc: 1 })).toEqual({ ok: true });
    }
    const cat = loadCatalogue(`tools:\n  - name: lookup\n    args: {type: object, properties: {host: {type: string, pattern: '${EVIL}'}}}\n`, { schemaCompiler: ajvCompiler });
    expect(cat.tools.get("lookup")!.validateArgs({ host: EVIL_INPUT })).toMatchObject({ ok: false, rule: "pattern" });
  });

  it("leaves the global RegExp as it found it, even when validation throws", () => {
    const before = globalThis.RegExp;
    const check = cfworkerCompiler({ type: "string", pattern: "^a+$" });
    expect(check("aaa")).toEqual({ ok: true });
    expect(globalThis.RegExp).toBe(before);
    expect(/x/ instanceof RegExp).toBe(true);
  });

  it("refuses what RE2 cannot run, at lint time, naming the place", () => {
    const refused: [string, string, number][] = [
      ["^(?=a)b", "lookahead", 1],
      ["a(?!b)", "lookahead", 1],
      ["(?<=x)y", "lookbehind", 0],
      ["(?<!x)y", "lookbehind", 0],
      ["(a)\\1", "backreference", 3],
      ["(?<n>a)\\k<n>", "named backreference", 7],
      ["a{1001}", "over 1000", 1],
    ];
    for (const [p, word, offset] of refused) {
      const problem = patternProblem(p);
      expect(problem?.message, p).toContain(word);
      expect(problem?.offset, p).toBe(offset);
    }
    expect(patternProblem("(")?.message).toMatch(/^is not a valid regular expression/);
    expect(patternProblem("a?".repeat(3000))?.message).toBe("is 6000 characters long; patterns of at most 4096 characters are compiled");
    expect(patternProblem(EVIL)).toBeUndefined();
    const problems = lintCatalogue("tools:\n  - name: a\n    args: {type: object, properties: {a: {type: string, pattern: '^(?=x)'}}}\n", { file: "t.yaml", schemaCompiler: ajvCompiler });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 3, message: expect.stringContaining("cannot be matched in linear time: a lookahead"), hint: expect.stringContaining("linear time") });
    const keyProblem = lintCatalogue("tools:\n  - name: a\n    args: {type: object, patternProperties: {'(a)\\1': {}}}\n", { file: "t.yaml", schemaCompiler: cfworkerCompiler });
    expect(keyProblem[0]?.message).toContain("backreference");
  });

  it("means what the built-in engine means: \\s, \\S and . over every BMP character", () => {
    for (const p of ["\\s", "\\S", ".", "[\\s]", "[\\S]", "[^\\s]", "[^\\S]", "\\w", "\\d", "\\W", "[\\s\\d]"]) {
      const linear = linearRegExp(`^${p}$`);
      const native = new RegExp(`^${p}$`, "u");
      for (let cp = 0; cp <= 0xffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        const c = String.fromCharCode(cp);
        if (linear.test(c) !== native.test(c)) expect({ p, cp: cp.toString(16), linear: linear.test(c) }).toEqual({ p, cp: cp.toString(16), linear: native.test(c) });
      }
    }
  });

  it("agrees with the built-in engine on 2,000 generated patterns × 12 inputs", () => {
    const r = prng(20260902);
    const pick = <T,>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
    const ATOMS = ["a", "b", "c", "-", "\\.", ".", " ", "é", "😀", "\\d", "\\w", "\\s", "\\S", "\\D", "\\W", "\\t", "\\n", "\\u00e9", "\\u{1F600}", "\\x41", "\\/", "\\-", "[ab]", "[^a-c]", "[a-z-9]", "[\\s\\d]", "[\\S]", "[^\\s]", "[.]", "[-a]", "[a-]", "[\\-a]", "[\\]]", "[\\\\]", "[\\b]", "[é-ü]", "[😀-😃]", "[^]", "[]", "[\\w-]", "[:a]", "\\p{L}", "\\P{L}", "\\p{Lu}", "[\\p{N}a]", "\\p{Script=Greek}", "\\p{Letter}", "\\b", "\\B", "\\0", "\\cJ", "ab", "A"];
    const QUANT = ["", "", "", "*", "+", "?", "{2}", "{1,3}", "{2,}", "*?", "+?", "??", "{0,2}?"];
    const gen = (depth: number): string => {
      const n = 1 + Math.floor(r() * 3);
      let out = "";
      for (let i = 0; i < n; i++) {
        const k = r();
        let atom: string;
        if (k < 0.15 && depth < 2) atom = `${pick(["(", "(?:", "(?<g" + depth + i + ">"])}${gen(depth + 1)}${r() < 0.3 ? "|" + gen(depth + 1) : ""})`;
        else atom = pick(ATOMS);
        out += atom + (/^\\[bB]$/.test(atom) ? "" : pick(QUANT));
      }
      return (r() < 0.3 ? "^" : "") + out + (r() < 0.3 ? "$" : "");
    };
    const CHARS = [..."abcABé😀😃-. \t\n\r\u00a0\u2028\ufeff1_ü/]\\:ΩΣ"];
    let compared = 0;
    for (let i = 0; i < 2000; i++) {
      const p = gen(0);
      let native: RegExp;
      try {
        native = new RegExp(p, "u");
      } catch {
        expect(patternProblem(p)?.message, p).toMatch(/^is not a valid regular expression/);
        continue;
      }
      const linear = linearRegExp(p);
      for (let j = 0; j < 12; j++) {
        const input = Array.from({ length: Math.floor(r() * 8) }, () => pick(CHARS)).join("");
        const want = native.test(input);
        if (linear.test(input) !== want) expect({ p, input, got: !want }).toEqual({ p, input, got: want });
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(15_000);
  });
});
