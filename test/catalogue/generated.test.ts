/**
 * The catalogue's validator is generated ahead of time (ajv standalone) so that workerd, which
 * forbids code generation from strings, can run it. Regenerating must give the committed file:
 * a schema change without `node --import tsx scripts/gen-catalogue-validator.mjs` fails here.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error — a plain .mjs script without type declarations
import { generateValidatorSource, OUTPUT } from "../../scripts/gen-catalogue-validator.mjs";

describe("generated catalogue validator", () => {
  it("is up to date with schema.ts", () => {
    const committed = readFileSync(OUTPUT as string, "utf8");
    expect((generateValidatorSource as () => string)() === committed, "run: node --import tsx scripts/gen-catalogue-validator.mjs").toBe(true);
  });

  it("needs nothing at run time: no imports, no require, no eval", () => {
    const code = readFileSync(OUTPUT as string, "utf8");
    expect(code).not.toMatch(/^\s*import\s/m);
    expect(code).not.toMatch(/\brequire\(/);
    expect(code).not.toMatch(/\bnew Function\b|\beval\(/);
  });
});
