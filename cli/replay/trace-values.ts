/**
 * The values of a trace line, read or refused (trace.ts): each problem is a LineProblem, which
 * parseTrace reports with its line.
 */

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

export class LineProblem extends Error {
  constructor(message: string, readonly hint?: string) {
    super(message);
  }
}

export function fail(message: string, hint?: string): never {
  throw new LineProblem(message, hint);
}

export function readAt(ev: Record<string, unknown>, required: boolean, field = "at"): number | undefined {
  if (ev.at === undefined || ev.at === null) {
    if (required) fail("a `session` event needs its time `at`", "e.g. \"at\":\"2026-11-29T12:00:00Z\" (RFC 3339, with a time zone); later events without `at` happen at the previous event's time");
    return undefined;
  }
  const t = typeof ev.at === "string" && TIMESTAMP.test(ev.at) && dayExists(ev.at) ? Date.parse(ev.at) : NaN;
  if (!Number.isFinite(t)) fail(`\`${field}\` must be an RFC 3339 time with a time zone, not ${describe(ev.at)}`, "e.g. \"2026-11-29T12:00:00Z\" or \"2026-11-29T09:00:00-03:00\"");
  return t;
}

/** `Date.parse` reads 2027-02-29 as March 1st: a day past its month's last is no date. */
function dayExists(at: string): boolean {
  const [y, m, d] = [Number(at.slice(0, 4)), Number(at.slice(5, 7)), Number(at.slice(8, 10))];
  const last = new Date(0);
  last.setUTCFullYear(y, m, 0); // not Date.UTC, which reads years 0-99 as 1900-1999
  return d <= last.getUTCDate();
}

export function object(v: unknown, field: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) fail(`\`${field}\` must be an object, not ${describe(v)}`);
  return v as Record<string, unknown>;
}

export function describe(v: unknown): string {
  if (v === undefined) return "missing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "string") return `a string \`${v.length > 40 ? `${v.slice(0, 40)}…` : v}\``;
  if (typeof v === "object") return "an object";
  return `${typeof v} \`${String(v)}\``;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * A line a writer stopped in the middle of (a crash, a full disk) says so, and how to mend it. A
 * gateway before this version appended its next run's `session` right after such a line: that is
 * named too, or deleting the line would move the next run's calls into the cut run's session.
 */
export function torn(raw: string, message: string): void {
  const glued = raw.indexOf('{"v":1,"type":"session"', 1);
  if (glued > 0 && parses(raw.slice(glued))) {
    fail(`not JSON: the line is cut short, and a \`session\` line is glued to it at column ${glued + 1}: a writer stopped mid-line (a crash), and the next run was appended after it`, "split the line before that column: delete the cut part, and keep the `session` line on a line of its own (what the cut line recorded is lost)");
  }
  const at = /at position (\d+)/.exec(message);
  if (/end of JSON input|Unterminated string/.test(message) || (at && Number(at[1]) >= raw.trimEnd().length)) {
    fail(`not JSON: ${message}: the line ends before its JSON does (cut short, as a writer stopped mid-line leaves it?)`, "each line of a trace is one JSON object; a value may not span lines. A line cut short by a crash cannot be mended: delete it (what it recorded is lost; the lines after it replay as they are)");
  }
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
