/**
 * The options objects every entry point takes (`new Client(…)`, `session(…)`, `resume(…)`,
 * `checkToolCall(…, options)`, `run(…)`), checked the one way: an object, holding only the keys
 * that entry point knows. A misspelt key (`catalog`, `origin`) is an `InputError` at its pointer
 * with a did-you-mean, never silently ignored — an ignored `origin:` would ask about every
 * argument, an ignored `confirmation` would ask again, and the caller would not know why.
 */
import { InputError } from "./errors.js";
import { didYouMean } from "./schema/suggest.js";
import { escapeSegment } from "./schema/pointer.js";

/**
 * Throws unless `value` is an object (not an array) whose own keys are all in `known`. `what`
 * names the options in the message (`the session options`); `base` prefixes the pointer
 * (`/options` for a check's options over HTTP). Undefined passes when `optional`.
 */
export function checkOptionKeys(value: unknown, known: readonly string[], what: string, opts: { base?: string; optional?: boolean; example?: string } = {}): void {
  const base = opts.base ?? "";
  if (value === undefined && opts.optional !== false) return;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InputError(`${what} must be an object, not ${describe(value)}`, base, opts.example ? `e.g. ${opts.example}` : `its keys: ${list(known)}`);
  }
  let keys: string[];
  try {
    keys = Object.keys(value);
  } catch (err) {
    throw new InputError(`${what} could not be read: ${String((err as Error)?.message ?? err).slice(0, 200)}`, base);
  }
  for (const key of keys) {
    if (known.includes(key)) continue;
    const near = didYouMean(key, known);
    throw new InputError(`unknown option \`${key.slice(0, 100)}\` in ${what}`, `${base}/${escapeSegment(key.slice(0, 100))}`, near ?? `${what} are ${list(known)}`);
  }
}

const list = (words: readonly string[]) => words.map((w) => `\`${w}\``).join(", ");

/** A short description of a value for a message (never the value itself when it is large). */
function describe(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return v.length > 40 ? "a string" : `the string ${JSON.stringify(v)}`;
  return `${typeof v === "object" ? "an" : "a"} ${typeof v}`;
}
