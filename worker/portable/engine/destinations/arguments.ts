/**
 * Step 4 over a call's arguments (checks.md, step 4): every string, at any depth, through the one
 * scanner (scan.ts).
 */
import { Found } from "./found.js";
import { Scanner } from "./scan.js";

/**
 * Every destination in `text`, deduplicated, in order of appearance, each as found in the text
 * (the whole URL for a URL).
 */
export function findDestinations(text: string): string[] {
  const found = (scanner.found = new Found());
  scanner.scanString(text);
  return found.list;
}

const scanner = new Scanner();

/**
 * Every destination inside the arguments of a call (checks.md step 4): in every string value at
 * any depth, and in every object key (a free-form map's keys are as much data as its values),
 * skipping the top-level arguments named in `skipArgs` (the tool's `lookup_args`), key and value.
 * Numbers and booleans hold no destination. Deduplicated, in order of appearance (arguments in
 * their key order, depth first).
 */
export function scanDestinations(args: unknown, skipArgs: ReadonlySet<string>): string[] {
  const found = (scanner.found = new Found());
  const stack: unknown[] = [];
  // Containers already read (made on the first nested one; reaching the top again reads it once
  // more, lookup arguments included: more is scanned, never less).
  let seen: Set<object> | undefined;
  if (args !== null && typeof args === "object" && !Array.isArray(args)) {
    pushEntries(stack, args as Record<string, unknown>, skipArgs);
  } else {
    stack.push(args);
  }
  while (stack.length > 0 && !found.full) {
    const v = stack.pop();
    if (typeof v === "string") {
      scanner.scanString(v);
    } else if (v !== null && typeof v === "object") {
      seen ??= new Set();
      if (seen.has(v)) continue;
      seen.add(v);
      if (Array.isArray(v)) {
        for (let k = v.length - 1; k >= 0; k--) stack.push(v[k]);
      } else {
        pushEntries(stack, v as Record<string, unknown>, undefined);
      }
    }
  }
  return found.list;
}

/** Pushes an object's entries so that they pop in key order, each key before its value. */
function pushEntries(stack: unknown[], o: Record<string, unknown>, skip: ReadonlySet<string> | undefined): void {
  const keys = Object.keys(o);
  for (let k = keys.length - 1; k >= 0; k--) {
    const key = keys[k]!;
    if (skip?.has(key)) continue;
    stack.push(o[key], key);
  }
}
