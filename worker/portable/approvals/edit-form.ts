/**
 * The approvals page's "Edit the arguments" form: which arguments it offers, and what an answer
 * means. An argument the person did not touch must come back exactly, or not at all: a value the
 * browser rewrote on the way would differ from the call's, so it would count as the person's
 * (origin `reply`) and could run at once — a value nobody saw or typed.
 */
import { duplicateKey, inexactInteger } from "../engine/index.js";
import { visible } from "./visible.js";

/** The text an argument's field holds: a string as it is, anything else as JSON. */
export function formText(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/**
 * Why the form cannot offer `v` (so an edit keeps it as it is), or undefined when it can. A
 * one-line field drops CR and LF; the HTML parser reads U+0000 as U+FFFD; a lone surrogate cannot
 * be sent as UTF-8 and arrives as U+FFFD. JSON escapes all of them, so only a string is ever fixed.
 */
export function fixedInForm(v: unknown): string | undefined {
  if (typeof v !== "string") return undefined;
  if (/[\r\n]/.test(v)) return "holds a line break, which this form cannot carry";
  const rewritten = new Set(v.match(/[\0\p{Cs}]/gu) ?? []);
  return rewritten.size > 0 ? `holds ${[...rewritten].map(visible).join(", ")}, which a browser changes in this form` : undefined;
}

/**
 * The edited call from the form's answer (`arg:<name>` fields). An argument keeps its exact value
 * when the form did not offer it, when the answer leaves it out (the page sends only the fields
 * the person changed), or when the answer is the text the form was given: the server does not
 * count on the page's script for any of this.
 */
export function editedArgs(args: Record<string, unknown>, body: Record<string, unknown>): { edited: Record<string, unknown> } | { problem: string } {
  // each key defined, not assigned: an argument named `__proto__` stays an argument, not the
  // object's prototype (a plain object still: the Durable Object's RPC refuses a null prototype)
  const edited: Record<string, unknown> = {};
  const set = (k: string, v: unknown) => Object.defineProperty(edited, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const k of Object.keys(args)) {
    const field = `arg:${k}`;
    const text = Object.hasOwn(body, field) ? body[field] : undefined;
    const was = args[k];
    if (typeof text !== "string" || fixedInForm(was) !== undefined || text === formText(was)) {
      set(k, was);
      continue;
    }
    if (typeof was === "string") {
      set(k, text);
      continue;
    }
    try {
      set(k, JSON.parse(text));
    } catch {
      return { problem: `\`${k}\` must be JSON (it was ${JSON.stringify(was)})` };
    }
    // a key given twice is read as the last by JSON.parse, and as the first by other readers: the
    // receipt would sign one value where the person may have meant the other (audit 8, F2)
    const twice = duplicateKey(text);
    if (twice) return { problem: `\`${k}\`: the key ${JSON.stringify(twice.key)} is given twice (at \`${twice.pointer}\`); give it once` };
    // the person's number, not the one it rounds to: a receipt signs what the person typed or nothing
    const inexact = inexactInteger(text);
    if (inexact) return { problem: `\`${k}\`: ${inexact.written} cannot be kept exactly (it would be ${BigInt(inexact.read)}); a number is exact only within ±(2^53 − 1)` };
  }
  return { edited };
}
