/**
 * Counter amounts on their decimals (worker/portable/engine/state/amounts.ts), against exact
 * integer arithmetic on the same decimals: random amounts of up to 6 decimals, sums kept as the
 * module keeps them, compared with the BigInt sum of their digits.
 */
import { describe, expect, it } from "vitest";
import { addAmounts, overLimit, subtractAmount } from "../../worker/portable/engine/state/amounts.js";
import { prng } from "../helpers/prng.js";

const SCALE = 1_000_000n;
/** `x` (at most 6 decimals) in millionths, exactly, from its shortest form */
function micros(x: number): bigint {
  const [whole, frac = ""] = x.toFixed(6).split(".");
  expect(Number(`${whole}.${frac}`)).toBe(x);
  return BigInt(whole!) * SCALE + BigInt(frac.padEnd(6, "0"));
}

function ulp(x: number): number {
  const f = new Float64Array([x]);
  const u = new BigUint64Array(f.buffer);
  u[0]! += 1n;
  return f[0]! - x;
}

describe("counter amounts", () => {
  it("sums of random decimal amounts are exact where the binary sum drifts", () => {
    const next = prng(20261207);
    let drifted = 0;
    for (let run = 0; run < 200; run++) {
      const decimals = Math.floor(next() * 7);
      let kept = 0;
      let binary = 0;
      let exact = 0n;
      for (let i = 0; i < 60; i++) {
        const a = Math.round(next() * 10 ** (decimals + 3)) / 10 ** decimals;
        kept = addAmounts(kept, a);
        binary += a;
        exact += micros(a);
        expect(micros(kept), `run ${run}, amount ${i}`).toBe(exact);
      }
      if (binary !== kept) drifted++;
      // The total as a limit holds it exactly, and one millionth more is over.
      expect(overLimit(kept, 0, kept)).toBe(false);
      expect(overLimit(kept, 0.000001, kept)).toBe(true);
    }
    // The property would hold trivially if binary sums never drifted on these inputs.
    expect(drifted).toBeGreaterThan(50);
  });

  it("a difference is exact and never below zero", () => {
    const next = prng(7);
    for (let i = 0; i < 2000; i++) {
      const a = Math.round(next() * 1e7) / 100;
      const b = Math.round(next() * 1e7) / 100;
      const d = subtractAmount(a, b);
      const want = micros(a) - micros(b);
      expect(micros(d)).toBe(want > 0n ? want : 0n);
    }
  });

  it("a total a double cannot hold is kept at the next double up: never less than was counted", () => {
    const next = prng(99);
    for (let i = 0; i < 2000; i++) {
      const a = next() * 10 ** Math.floor(next() * 20);
      const b = next() * 10 ** -Math.floor(next() * 20);
      const kept = addAmounts(a, b);
      // read as decimals, kept ≥ a + b (the sum is not over kept as a limit), by at most one step
      expect(overLimit(a, b, kept), `${a} + ${b} kept as ${kept}`).toBe(false);
      expect(kept - (a + b)).toBeLessThanOrEqual(2 * Math.max(ulp(kept), Number.MIN_VALUE));
    }
    expect(addAmounts(1e6, 1e-11)).toBeGreaterThan(1e6);
    expect(addAmounts(Number.MAX_VALUE, Number.MAX_VALUE)).toBe(Number.MAX_VALUE);
  });

  it("whole numbers take the plain sum", () => {
    expect(addAmounts(2 ** 52, 3)).toBe(2 ** 52 + 3);
    expect(subtractAmount(3, 5)).toBe(0);
    expect(overLimit(3, 1, 4)).toBe(false);
    expect(overLimit(3, 2, 4)).toBe(true);
    // past 2^53 the decimals decide: 2^53 + 1 is over 2^53 though the binary sum is not
    expect(overLimit(2 ** 53, 1, 2 ** 53)).toBe(true);
  });
});
