/**
 * Canonical JSON for what is signed (RFC 8785, JCS): object keys sorted by UTF-16 code units, no
 * whitespace, numbers in their shortest ECMAScript form, strings escaped as JSON.stringify does.
 * Anything JSON cannot carry exactly (undefined in arrays, NaN, Infinity, functions, bigint,
 * lone surrogates are left as JSON.stringify escapes them) is refused rather than guessed.
 */
export function canonicalJson(value: unknown): string {
  return write(value, "");
}

function write(value: unknown, pointer: string): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`canonical json: non-finite number at \`${pointer || "/"}\``);
      // ECMAScript Number-to-String is the serialisation RFC 8785 prescribes; -0 becomes 0.
      return JSON.stringify(value);
    case "string":
      return JSON.stringify(value);
    case "object": {
      if (Array.isArray(value)) {
        return `[${value.map((v, i) => write(v, `${pointer}/${i}`)).join(",")}]`;
      }
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort(compareUtf16);
      return `{${keys.map((k) => `${JSON.stringify(k)}:${write(obj[k], `${pointer}/${k}`)}`).join(",")}}`;
    }
    default:
      throw new TypeError(`canonical json: cannot encode a ${typeof value} at \`${pointer || "/"}\``);
  }
}

function compareUtf16(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0; // JS string comparison is by UTF-16 code units, as JCS asks
}
