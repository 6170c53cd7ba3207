/**
 * What a schema expects at a failing place, in words, for step 3's `detail.failures`: the caller
 * who sent `amount: "40"` reads "a number", not only the keyword `type`. Read from the tool's own
 * `args` schema (properties, items, additionalProperties; `$ref` and combinators are not
 * followed: there the keyword alone is said). Own properties only: argument names are user input.
 */
import { own } from "../canonical/own.js";
import { splitPointer } from "./pointer.js";
import { didYouMean } from "./suggest.js";

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The subschema that judges the value at `pointer`, or undefined where it cannot be told. */
function schemaAt(root: unknown, pointer: string): Record<string, unknown> | undefined {
  let s: unknown = root;
  for (const seg of splitPointer(pointer)) {
    if (!isMap(s)) return undefined;
    const props = own(s, "properties");
    const items = own(s, "items");
    if (isMap(props) && Object.hasOwn(props, seg)) s = props[seg];
    else if (/^(0|[1-9][0-9]*)$/.test(seg) && (isMap(items) || Array.isArray(items))) s = Array.isArray(items) ? items[Number(seg)] : items;
    else if (isMap(own(s, "additionalProperties"))) s = own(s, "additionalProperties");
    else return undefined;
  }
  return isMap(s) ? s : undefined;
}

const TYPE_WORDS: Record<string, string> = { string: "a string", number: "a number", integer: "an integer", boolean: "true or false", object: "an object", array: "a list", null: "null" };
const show = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return `\`${text.length > 60 ? text.slice(0, 57) + "…" : text}\``;
};

const BOUNDS: readonly (readonly [string, string])[] = [
  ["minimum", "≥ N"], ["exclusiveMinimum", "> N"], ["maximum", "≤ N"], ["exclusiveMaximum", "< N"],
  ["minLength", "of at least N characters"], ["maxLength", "of at most N characters"],
  ["minItems", "with at least N items"], ["maxItems", "with at most N items"],
];

/** The schema's kind of value in words: `a string matching …`, `one of …`, `a number ≥ 0`. */
function describeSchema(s: Record<string, unknown>): string | undefined {
  const e = own(s, "enum");
  if (Array.isArray(e) && e.length > 0) return `one of ${e.slice(0, 8).map(show).join(", ")}${e.length > 8 ? ", …" : ""}`;
  if (Object.hasOwn(s, "const")) return show(s.const);
  const t = own(s, "type");
  const types = (Array.isArray(t) ? t : [t]).filter((x): x is string => typeof x === "string" && Object.hasOwn(TYPE_WORDS, x));
  if (types.length === 0) return undefined;
  const words = types.map((x) => TYPE_WORDS[x]!).join(" or ");
  const more: string[] = [];
  const pattern = own(s, "pattern");
  if (typeof pattern === "string") more.push(`matching \`${pattern.length > 60 ? pattern.slice(0, 57) + "…" : pattern}\``);
  const format = own(s, "format");
  if (typeof format === "string") more.push(`in \`${format}\` format`);
  for (const [k, template] of BOUNDS) {
    const v = own(s, k);
    if (typeof v === "number") more.push(template.replace("N", String(v)));
  }
  return more.length > 0 ? `${words} ${more.join(", ")}` : words;
}

/**
 * What the schema expected where `rule` failed at `pointer`, and a hint when one helps: a
 * missing argument's kind, an undeclared argument's likely spelling.
 */
export function expectedAt(root: unknown, pointer: string, rule: string): { expected?: string; hint?: string } {
  const segs = splitPointer(pointer);
  if (rule === "additionalProperties") {
    const parent = schemaAt(root, pointer.slice(0, pointer.lastIndexOf("/")));
    const props = parent ? own(parent, "properties") : undefined;
    // declared elsewhere (a `$ref`, `allOf`, …): which names is not said here, not "none"
    if (parent && !isMap(props) && Object.keys(parent).some((k) => k !== "type" && k !== "additionalProperties" && k !== "description" && k !== "title")) return {};
    const names = isMap(props) ? Object.keys(props) : [];
    const near = didYouMean(segs[segs.length - 1] ?? "", names);
    return { expected: names.length > 0 ? `only ${names.map((n) => `\`${n}\``).join(", ")}` : "no arguments", ...(near ? { hint: near } : {}) };
  }
  const at = schemaAt(root, pointer);
  const words = at ? describeSchema(at) : undefined;
  return words ? { expected: words } : {};
}

/** The kind of a JSON value, for "got …". */
export function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "number") return Number.isInteger(v) ? "the number " + String(v).slice(0, 30) : "a number";
  if (typeof v === "string") return v.length <= 30 ? `the string ${JSON.stringify(v)}` : "a string";
  if (typeof v === "boolean") return String(v);
  return typeof v === "object" ? "an object" : typeof v;
}
