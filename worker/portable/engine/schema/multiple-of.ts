/**
 * `multipleOf` in exact decimal arithmetic (0.3 is a multiple of 0.1), the way
 * @cfworker/json-schema decides it; the ajv adapter uses this same function instead of ajv's
 * floating-point `%`, so the two validators agree on every number.
 */
function decimalInteger(value: number): [bigint, number] {
  const [coefficient = "0", exponent = "0"] = Math.abs(value).toString().split("e");
  const point = coefficient.indexOf(".");
  const fractionLength = point === -1 ? 0 : coefficient.length - point - 1;
  return [BigInt(coefficient.replace(".", "")), Number(exponent) - fractionLength];
}

export function isMultipleOf(instance: number, divisor: number): boolean {
  if (!Number.isFinite(instance) || !Number.isFinite(divisor) || divisor <= 0) return false;
  const [ic, ie] = decimalInteger(instance);
  const [dc, de] = decimalInteger(divisor);
  const diff = ie - de;
  if (diff >= 0) return (ic * 10n ** BigInt(diff)) % dc === 0n;
  return ic % (dc * 10n ** BigInt(-diff)) === 0n;
}
