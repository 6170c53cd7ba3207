/**
 * How long a backtracking catalogue pattern takes to answer, on the linear-time engine both
 * schema adapters use (issue 9) and, for scale, on the built-in backtracking engine:
 *
 *   node --import tsx bench/patterns.ts
 *
 * Prints milliseconds; nothing is asserted (speed lives here, not in tests). The built-in engine
 * is run only up to 24 characters: every 2 more characters take about 4 times as long.
 */
import { ajvCompiler } from "../cli/sdk/ajv-compiler.js";
import { cfworkerCompiler } from "../worker/portable/engine/schema/cfworker.js";

const PATTERN = "^([a-z0-9]+[-.]?)*[a-z0-9]+$";
const schema = { type: "object", properties: { host: { type: "string", pattern: PATTERN } } };
const ms = (f: () => unknown) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};

const ajv = ajvCompiler(schema);
const cfworker = cfworkerCompiler(schema);
for (const n of [16, 20, 24, 28, 1000, 100_000]) {
  const value = { host: "a".repeat(n) + "!" };
  const native = n <= 24 ? `${ms(() => new RegExp(PATTERN, "u").test(value.host)).toFixed(1)} ms` : "(not run)";
  console.log(`${String(n).padStart(6)} × "a" + "!": ajv ${ms(() => ajv(value)).toFixed(2)} ms, cfworker ${ms(() => cfworker(value)).toFixed(2)} ms, built-in RegExp ${native}`);
}
