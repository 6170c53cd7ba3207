/**
 * Outside audit 14, F1: YAML is read in time linear in its keys. `yaml`'s own unique-key check
 * compares each key of a map with every earlier one (a 250 KB map took 38 s); source.ts finds a
 * key given twice with one lookup instead.
 */
import { describe, expect, it } from "vitest";
import { readYaml } from "../../worker/portable/engine/catalogue/source.js";

describe("a wide map (outside audit 14, F1)", () => {
  it("40,000 keys in one map are read in seconds, not minutes", { timeout: 60_000 }, () => {
    const yaml = "tools:\n  - name: a\n" + Array.from({ length: 40_000 }, (_, i) => `    w${String(i).padStart(5, "0")}: 1\n`).join("");
    const t = performance.now();
    const source = readYaml(yaml, "wide.yaml");
    const ms = performance.now() - t;
    expect(source.problems).toEqual([]);
    expect(Object.keys((source.data as { tools: object[] }).tools[0]!)).toHaveLength(40_001);
    expect(ms).toBeLessThan(15_000);
  });

  it("a key given twice is found all the same, at the second, beside a syntax error too", () => {
    const problem = { file: "twice.yaml", line: 5, column: 5, pointer: "", message: "key `w1` appears twice in this map", hint: "each word may appear once per map; remove or merge the repeated one" };
    expect(readYaml("tools:\n  - name: a\n    w1: 1\n    w2: 2\n    w1: 3\n", "twice.yaml").problems).toEqual([problem]);
    expect(readYaml("tools:\n  - name: a\n    w1: 1\n    w2: 2\n    w1: 3\n  - {name: b\n", "twice.yaml").problems).toContainEqual(problem);
  });

  it("20,000 keys given twice: the first 1,000 are problems", { timeout: 60_000 }, () => {
    const yaml = "tools:\n  - name: a\n" + "    w: 1\n".repeat(20_001);
    expect(readYaml(yaml, "twice.yaml").problems).toHaveLength(1000);
  });
});
