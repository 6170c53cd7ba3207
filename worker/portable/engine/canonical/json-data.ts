/**
 * A value as JSON data: what `JSON.stringify` writes, read back. Not `structuredClone` on purpose:
 * a history holds what its serialised form holds, so `undefined` members go, `-0` becomes `0` and
 * `toJSON` is applied, exactly as a saved session would have them. Throws where JSON cannot hold
 * the value (a cycle, a BigInt, `undefined` itself); callers turn that into their own answer.
 */
export function jsonData(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v)) as unknown;
}
