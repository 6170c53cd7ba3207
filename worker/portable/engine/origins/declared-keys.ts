/**
 * The object keys a tool's `args` schema declares for one argument: the `typed` origin takes these
 * keys of an object value as the catalogue's words, not the writer's (origins/typed.ts). Every
 * name under a `properties` of the argument's schema counts, at any depth, and those of the
 * schema's `$defs` / `definitions` when the argument's schema holds a `$ref`. Over-counting only
 * lets a declared name pass; a key nobody declared must have been typed.
 */
import { own } from "../canonical/own.js";

const NONE: ReadonlySet<string> = new Set();
/** per `args` schema: argument → its declared keys (only arguments the schema names are kept) */
const cache = new WeakMap<object, Map<string, ReadonlySet<string>>>();

export function declaredKeys(argsSchema: object | undefined, arg: string): ReadonlySet<string> {
  if (argsSchema === undefined) return NONE;
  const properties = own(argsSchema, "properties");
  const named = typeof properties === "object" && properties !== null && Object.hasOwn(properties, arg);
  if (!named) {
    // an argument the schema does not name: what `additionalProperties` says of it, uncached
    const extra = own(argsSchema, "additionalProperties");
    return typeof extra === "object" && extra !== null ? collect(extra, argsSchema) : NONE;
  }
  let byArg = cache.get(argsSchema);
  if (!byArg) cache.set(argsSchema, (byArg = new Map()));
  let keys = byArg.get(arg);
  if (!keys) byArg.set(arg, (keys = collect(own(properties, arg), argsSchema)));
  return keys;
}

function collect(schema: unknown, root: object): ReadonlySet<string> {
  const keys = new Set<string>();
  const seen = new Set<object>();
  const stack: unknown[] = [schema];
  let refs = false;
  const walk = () => {
    while (stack.length > 0) {
      const node = stack.pop();
      if (typeof node !== "object" || node === null || seen.has(node)) continue;
      seen.add(node);
      for (const k of Object.keys(node)) {
        const v = (node as Record<string, unknown>)[k];
        if (k === "properties" && typeof v === "object" && v !== null && !Array.isArray(v)) for (const name of Object.keys(v)) keys.add(name);
        if (k === "$ref") refs = true;
        stack.push(v);
      }
    }
  };
  walk();
  if (refs) {
    stack.push(own(root, "$defs"), own(root, "definitions"));
    walk();
  }
  return keys;
}
