/** Words for messages: which entry a pointer is in, what its word is, what a value is. */
import { splitPointer } from "../schema/pointer.js";

const KINDS: Record<string, string> = { tools: "tool", http: "http entry", code: "code entry", agents: "agent", tasks: "task" };

/** `tool \`refund_card\`: ` for a pointer inside a tool entry, etc.; "" at the top. */
export function contextOf(data: unknown, pointer: string): string {
  const segs = splitPointer(pointer);
  const kind = KINDS[segs[0] ?? ""];
  if (!kind || segs.length < 2 || !/^\d+$/.test(segs[1]!)) return segs[0] === "settings" && segs.length > 1 ? "settings: " : "";
  const list = (data as Record<string, unknown> | null)?.[segs[0]!];
  const entry = Array.isArray(list) ? list[Number(segs[1])] : undefined;
  const name = entry && typeof entry === "object" && !Array.isArray(entry) ? (entry as Record<string, unknown>).name : undefined;
  if (segs.length === 2 && typeof name !== "string") return "";
  return typeof name === "string" && name.length <= 80 ? `${kind} \`${name}\`: ` : `${segs[0]}[${segs[1]}]: `;
}

/** The word a pointer ends at, as the user wrote it: `writes`, `after[1]`, `tools[2]`. */
export function wordOf(pointer: string): string {
  const segs = splitPointer(pointer);
  let i = segs.length - 1;
  let suffix = "";
  while (i >= 0 && /^\d+$/.test(segs[i]!)) {
    suffix = `[${segs[i]}]` + suffix;
    i--;
  }
  const base = i >= 0 ? segs[i]! : "catalogue";
  return clip(base) + suffix;
}

function clip(s: string, n = 60): string {
  const one = s.replace(/\s+/g, " ");
  return one.length > n ? one.slice(0, n) + "…" : one;
}

/** "a string `yes`", "a list", "a number `3`" */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  switch (typeof v) {
    case "string":
      return `a string \`${clip(v, 40)}\``;
    case "number":
      return `a number \`${v}\``;
    case "boolean":
      return `\`${v}\``;
    case "object":
      return "a map";
    default:
      return typeof v;
  }
}

export function expectedFromType(type: unknown): string {
  const one = (t: string) =>
    ({ string: "a string", number: "a number", integer: "a whole number", boolean: "true or false", object: "a map", array: "a list", null: "null" })[t] ?? t;
  if (Array.isArray(type)) return type.map((t) => one(String(t))).join(" or ");
  return one(String(type));
}
