/**
 * Bad input never crashes the loader (issue 2, "Bad input"): random mutations of valid catalogues
 * — deleted and duplicated lines, swapped characters, random keys and values, wrong types — plus
 * absurd sizes (10k-deep nesting, 1 MB strings, alias bombs). `loadCatalogue` either returns a
 * catalogue or throws `CatalogueError`, never anything else, never an "internal error", and never
 * takes absurd time. Seeded: a failure names its seed and case, and reproduces.
 */
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { loadCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import type { SchemaCompiler } from "../../worker/portable/engine/catalogue/types.js";
import { CatalogueError } from "../../worker/portable/engine/errors.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { cfworkerCompiler } from "../../worker/portable/engine/schema/cfworker.js";
import { prng } from "../helpers/prng.js";

const SEED = Number(process.env.FUZZ_SEED ?? 4411);
const fixture = (name: string) => readFileSync(new URL(`../fixtures/catalogues/${name}`, import.meta.url), "utf8");
const bases = [fixture("store.yaml"), fixture("conditions.yaml"), fixture("bad-words.yaml"), fixture("bad-meaning.yaml")];

const WORDS = ["writes", "undo", "after", "not_after", "at_most", "checks", "filter", "spend", "currency", "outcome", "args", "returns", "sends_out", "trust", "confirm", "name", "tools", "http", "code", "tasks", "agents", "settings", "any", "from", "field", "between", "$ref", "properties", "items", "__proto__", "constructor", "each", "keep", "bind"];
const VALUES = ["true", "false", "null", "~", "0", "-1", "1e400", ".nan", ".inf", "[]", "{}", "[a, b]", "{from: x.y}", "'*'", "\"\\u0000\"", "!!binary aGk=", "&a [*a]", "*undefined", "2024-01-01", "0x1F", "'#/definitions/x'", "|\n  text", ">-", "? [a]\n  : b", "'a..b'", "USD", "GET", "'%'", "@", "`", "{{", "]]"];

type Outcome = "ok" | "error";

function runOne(text: string | object, compiler: SchemaCompiler, label: string): { outcome: Outcome } {
  let outcome: Outcome = "ok";
  try {
    loadCatalogue(text, { file: "fuzz.yaml", schemaCompiler: compiler });
  } catch (err) {
    if (!(err instanceof CatalogueError)) throw new Error(`${label}: threw ${(err as Error)?.constructor?.name}: ${(err as Error)?.message}\n${typeof text === "string" ? text.slice(0, 2000) : ""}`);
    const internal = err.problems.find((p) => /internal error/.test(p.message));
    if (internal) throw new Error(`${label}: ${internal.message}\n${typeof text === "string" ? text.slice(0, 2000) : ""}`);
    for (const p of err.problems) {
      if (!(p.line >= 1 && p.column >= 1 && typeof p.message === "string" && p.message.length > 0)) throw new Error(`${label}: malformed problem ${JSON.stringify(p)}`);
    }
    outcome = "error";
  }
  return { outcome };
}

function mutate(rnd: () => number, base: string): string {
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  let lines = base.split("\n");
  const n = 1 + Math.floor(rnd() * 4);
  for (let k = 0; k < n; k++) {
    const i = Math.floor(rnd() * lines.length);
    const line = lines[i] ?? "";
    switch (Math.floor(rnd() * 9)) {
      case 0: // delete a line
        lines.splice(i, 1);
        break;
      case 1: // duplicate a line
        lines.splice(i, 0, line);
        break;
      case 2: {
        // swap two characters
        if (line.length > 1) {
          const a = Math.floor(rnd() * line.length);
          const b = Math.floor(rnd() * line.length);
          const cs = [...line];
          [cs[a], cs[b]] = [cs[b]!, cs[a]!];
          lines[i] = cs.join("");
        }
        break;
      }
      case 3: // a random key with a random value, at the line's indentation
        lines.splice(i, 0, `${line.match(/^\s*(- )?/)?.[0]?.replace("- ", "  ") ?? ""}${pick(WORDS)}: ${pick(VALUES)}`);
        break;
      case 4: // replace a value with a value of another type
        lines[i] = line.replace(/:\s+.*$/, `: ${pick(VALUES)}`);
        break;
      case 5: // delete a random character
        if (line.length) {
          const a = Math.floor(rnd() * line.length);
          lines[i] = line.slice(0, a) + line.slice(a + 1);
        }
        break;
      case 6: // insert a random byte
        {
          const a = Math.floor(rnd() * (line.length + 1));
          lines[i] = line.slice(0, a) + pick(["{", "}", "[", "]", ":", "-", "'", '"', "\t", "#", "&", "*", "!", "|", ">", "%", "@", "\u0000", "\ufeff", "é", "😀", " "]) + line.slice(a);
        }
        break;
      case 7: // rename a known word to a near miss
        lines[i] = line.replace(/([a-z_]{3,}):/, (_m, w: string) => `${w.slice(0, -1)}${pick(["s", "x", ""])}:`);
        break;
      default: // shuffle indentation
        lines[i] = " ".repeat(Math.floor(rnd() * 8)) + line.trimStart();
    }
  }
  if (rnd() < 0.05) lines = lines.reverse();
  return lines.join("\n");
}

/** Random JSON-ish values for object mutations. */
function randomValue(rnd: () => number, depth = 0): unknown {
  const r = rnd();
  if (depth > 3 || r < 0.4) return [true, false, null, 0, -1, 1.5, "", "x", "writes", "a.b", "*", "USD"][Math.floor(rnd() * 12)];
  if (r < 0.7) return Array.from({ length: Math.floor(rnd() * 3) }, () => randomValue(rnd, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(rnd() * 3); i > 0; i--) o[WORDS[Math.floor(rnd() * WORDS.length)]!] = randomValue(rnd, depth + 1);
  return o;
}

function mutateObject(rnd: () => number, value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return value.map((v) => (rnd() < 0.1 ? randomValue(rnd) : mutateObject(rnd, v, depth + 1)));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (rnd() < 0.05) continue;
      out[rnd() < 0.03 ? WORDS[Math.floor(rnd() * WORDS.length)]! : k] = rnd() < 0.08 ? randomValue(rnd) : mutateObject(rnd, v, depth + 1);
    }
    return out;
  }
  return rnd() < 0.1 ? randomValue(rnd) : value;
}

describe(`catalogue loader fuzz (seed ${SEED}, set FUZZ_SEED to vary)`, () => {
  it("2,000 mutated YAML documents: only CatalogueError", () => {
    const rnd = prng(SEED);
    const counts = { ok: 0, error: 0 };
    for (let i = 0; i < 2000; i++) {
      const text = mutate(rnd, bases[i % bases.length]!);
      // ajv compiles each `args` schema (slow-ish): every tenth case; the rest use cfworker
      const { outcome } = runOne(text, i % 10 === 0 ? ajvCompiler : cfworkerCompiler, `seed ${SEED} case ${i}`);
      counts[outcome]++;
    }
    expect(counts.ok + counts.error).toBe(2000);
    // the mutations do reach both sides
    expect(counts.error).toBeGreaterThan(500);
    expect(counts.ok).toBeGreaterThan(20);
  }, 240_000); // 2,000 catalogue loads: ~20 s of CPU, over a minute on a loaded 2-core machine

  it("500 mutated objects: only CatalogueError", () => {
    const rnd = prng(SEED + 1);
    const base = parse(bases[0]!) as object;
    const base2 = parse(bases[1]!) as object;
    for (let i = 0; i < 500; i++) runOne(mutateObject(rnd, i % 2 ? base : base2) as object, cfworkerCompiler, `seed ${SEED} object case ${i}`);
  });

  const absurd: [string, () => string | object][] = [
    ["10k-deep flow lists", () => `tools: [{name: a, args: ${"[".repeat(10_000)}${"]".repeat(10_000)}}]`],
    ["10k-deep flow maps", () => `tools: [{name: a, returns: ${"{a: ".repeat(10_000)}1${"}".repeat(10_000)}}]`],
    ["10k-deep block lists", () => "tools:\n" + Array.from({ length: 10_000 }, (_, i) => " ".repeat(i + 2) + "- ").join("\n") + "x"],
    ["10k-deep block maps", () => Array.from({ length: 10_000 }, (_, i) => " ".repeat(i) + "a:").join("\n") + " 1"],
    ["10k-deep object", () => {
      let o: unknown = { name: "a" };
      for (let i = 0; i < 10_000; i++) o = { args: o };
      return { tools: [o] };
    }],
    ["10k-deep args schema", () => {
      let s: unknown = { type: "string" };
      for (let i = 0; i < 10_000; i++) s = { type: "object", properties: { a: s } };
      return { tools: [{ name: "a", args: s }] };
    }],
    ["1 MB description", () => `tools:\n  - name: a\n    description: "${"x".repeat(1_000_000)}"\n`],
    ["1 MB key", () => `tools:\n  - name: a\n    ${"k".repeat(1_000_000)}: 1\n`],
    ["1 MB tool name", () => `tools:\n  - name: ${"a".repeat(1_000_000)}\n`],
    ["1 MB pattern", () => `tools:\n  - name: a\n    args: {type: object, properties: {x: {type: string, pattern: "${"a?".repeat(500_000)}"}}}\n`],
    ["1 MB sends_out entry", () => `tools:\n  - name: a\n    sends_out: ["${"a.".repeat(500_000)}com"]\n`],
    ["1 MB of one line of garbage", () => "{[".repeat(500_000)],
    ["alias bomb", () => {
      const lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
      for (let i = 1; i < 12; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(", ")}]`);
      return lines.join("\n") + "\ntools: [{name: t}]\n";
    }],
    ["100k tools", () => "tools:\n" + Array.from({ length: 100_000 }, (_, i) => `  - {name: t${i}}`).join("\n")],
    ["20 MB text", () => "#" + "x".repeat(20 * 1024 * 1024)],
    ["binary bytes", () => String.fromCharCode(...Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))],
    ["lone surrogates", () => "tools: [{name: \"\ud800\", description: \"\udc00\"}]"],
  ];
  for (const [what, make] of absurd) {
    // No timing assertion (speed lives in bench/): the test's own timeout is the guard against a hang.
    it(`absurd input: ${what}`, () => {
      runOne(make(), ajvCompiler, what);
    }, 120_000);
  }
});
