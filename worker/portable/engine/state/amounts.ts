/**
 * Counter amounts added as the decimals they are written as. An amount arrives as a binary double,
 * and 19.99 is not 19.99 in binary: a hundred of them add up to 1999.0000000000007, over a ceiling
 * of 1999, and 0.1 + 0.2 is over 0.3. Here a double stands for its shortest decimal form (what
 * `JSON.stringify` writes, so what the caller wrote). Sums, differences and comparisons are exact
 * on those decimals. A result is kept as the nearest double, moved up one step when that double
 * reads less than the result, so a counter never holds less than was counted (fail closed).
 */

/** `m × 10^e`, exactly */
interface Decimal {
  m: bigint;
  e: number;
}

/** The shortest decimal form of a finite double (`String(x)`: "19.99", "1e+21", "1.5e-7"). */
function decimalOf(x: number): Decimal {
  const s = String(x);
  let digits = s;
  let e = 0;
  const k = s.indexOf("e");
  if (k >= 0) {
    digits = s.slice(0, k);
    e = Number(s.slice(k + 1));
  }
  const dot = digits.indexOf(".");
  if (dot >= 0) {
    e -= digits.length - dot - 1;
    digits = digits.slice(0, dot) + digits.slice(dot + 1);
  }
  return { m: BigInt(digits), e };
}

/** The two mantissas at the smaller exponent. */
function aligned(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const e = Math.min(a.e, b.e);
  return [a.m * 10n ** BigInt(a.e - e), b.m * 10n ** BigInt(b.e - e), e];
}

function compare(a: Decimal, b: Decimal): number {
  const [x, y] = aligned(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

const bits = new Float64Array(1);
const word = new BigUint64Array(bits.buffer);

/** The least double whose decimal form is ≥ `d` (d ≥ 0); the largest finite double past that range. */
function atLeast(d: Decimal): number {
  if (d.m <= 0n) return 0;
  const x = Number(`${d.m}e${d.e}`); // correctly rounded: the nearest double
  if (x === Infinity) return Number.MAX_VALUE;
  if (compare(decimalOf(x), d) >= 0) return x;
  bits[0] = x;
  word[0]! += 1n; // the next double up (x > 0)
  return bits[0]!;
}

/** `a + b` on their decimals (both finite and ≥ 0), kept as a double that is never less. */
export function addAmounts(a: number, b: number): number {
  const sum = a + b;
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b) && Number.isSafeInteger(sum)) return sum;
  const [x, y, e] = aligned(decimalOf(a), decimalOf(b));
  return atLeast({ m: x + y, e });
}

/** `a − b` on their decimals, at least 0, kept as a double that is never less. */
export function subtractAmount(a: number, b: number): number {
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) return Math.max(0, a - b);
  const [x, y, e] = aligned(decimalOf(a), decimalOf(b));
  return x <= y ? 0 : atLeast({ m: x - y, e });
}

/** Whether `used + amount` is over `limit`, on their decimals. */
export function overLimit(used: number, amount: number, limit: number): boolean {
  const sum = used + amount;
  if (Number.isSafeInteger(used) && Number.isSafeInteger(amount) && Number.isSafeInteger(sum) && Number.isSafeInteger(limit)) return sum > limit;
  const [x, y, e] = aligned(decimalOf(used), decimalOf(amount));
  return compare({ m: x + y, e }, decimalOf(limit)) > 0;
}
