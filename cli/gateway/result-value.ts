/**
 * What the gateway's report of an allowed call records of the tool server's result (calls.ts,
 * `forward`): the session keeps only what the tool's `returns` schema declares of it.
 */
/** How a JSON text can begin (RFC 8259: a value after optional whitespace). */
const LOOKS_LIKE_JSON = /^[ \t\n\r]*(?:[[{"\-0-9]|true|false|null)/;

/**
 * What the session records of a result: `structuredContent` when the tool gives one, else one text
 * block that is JSON, else nothing (the `returns` schema keeps only what it declares).
 */
export function resultValue(result: Record<string, unknown>): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const content = result.content;
  if (Array.isArray(content) && content.length === 1) {
    const c = content[0] as { type?: unknown; text?: unknown };
    // most text is not JSON: a failed JSON.parse throws, and a throw per call is not free
    if (c.type === "text" && typeof c.text === "string" && LOOKS_LIKE_JSON.test(c.text)) {
      try {
        return JSON.parse(c.text);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
