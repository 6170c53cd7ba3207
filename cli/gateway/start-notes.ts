/**
 * What the gateway says at its start about the tool server's tools, from one listing, against the
 * catalogue (docs/gateway.md). Each of these leaves a tool out of `tools/list` without a word,
 * and a person would otherwise learn of it only as a tool missing from their client:
 *
 *   - a pinned tool the server now describes otherwise, or no longer lists (pins.ts: not offered,
 *     its calls refused `tool_definition_changed`) — the "rug pull", or a server's new version;
 *   - a tool the catalogue names that the server does not list, when the server lists one of a
 *     near name that the catalogue does not name: a misspelt name offers nothing. A catalogue may
 *     name the tools of several servers (a gateway for each), so a name with no near one is not
 *     said;
 *   - a catalogue none of whose tools the server lists (the catalogue of another server);
 *   - a tool the catalogue names that the server lists in a form that is not valid MCP.
 *
 * And, once, pins of the older form (`sha256:`): they still hold, but cover only a tool's
 * description and input schema, so a rewritten title, annotation, output schema or `_meta` passes.
 */
import { closest, type CompiledRulebook, type Condition } from "../../worker/portable/engine/index.js";
import { matchesPin, pinForm, type ToolDefinition } from "./pins.js";
import { quotedName } from "./words.js";

export interface StartNotesInput {
  /** every tool the server lists now */
  listed: readonly ToolDefinition[];
  /** the tools of the person's catalogue the gateway may offer (its agent's reach, no outside-read entries) */
  named: readonly string[];
  /** the catalogue's pins, by tool */
  pins: ReadonlyMap<string, string>;
  /** tools the server lists in a form that is not valid MCP (left out of `listed`) */
  unreadable?: readonly string[];
}

export function startNotes({ listed, named, pins, unreadable = [] }: StartNotesInput): string[] {
  const notes: string[] = [];
  const bad = new Set(unreadable);
  for (const name of named) {
    if (bad.has(name)) notes.push(`the tool server lists ${nameOf(name)} in a form that is not valid MCP (its input schema, annotations or another field): it is not offered; the server's other tools are`);
  }
  const byName = new Map<string, ToolDefinition[]>();
  for (const t of listed) {
    if (typeof t.name !== "string") continue;
    const copies = byName.get(t.name);
    if (copies) copies.push(t);
    else byName.set(t.name, [t]);
  }
  // the catalogue of another server: nothing at all is offered, and that is the one thing to say
  if (named.length > 0 && byName.size > 0 && !named.some((n) => byName.has(n) || bad.has(n))) {
    const which = named.length === 1 ? `the one tool the catalogue names, ${nameOf(named[0]!)}, is not one` : `none of the ${named.length} tools the catalogue names is one`;
    return [`${which} the tool server lists (it lists ${listOf([...byName.keys()])}): no tool is offered; is it the catalogue for this server?`];
  }
  const namedSet = new Set(named);
  const unnamed = [...byName.keys()].filter((n) => !namedSet.has(n));
  for (const name of named) {
    if (bad.has(name)) continue; // said above
    const copies = byName.get(name);
    const pin = pins.get(name);
    if (pin !== undefined) {
      if (!copies) {
        const near = closest(name, unnamed);
        const also = near === undefined ? "" : `; it lists ${nameOf(near)}, which the catalogue does not name (a misspelt name?)`;
        notes.push(`\`${name}\` is pinned in the catalogue, and the tool server does not list it: its calls are refused \`tool_definition_changed\`${also}`);
      } else if (copies.some((t) => !matchesPin(t, pin))) {
        notes.push(`the tool server describes \`${name}\` otherwise than its pin in the catalogue: it is not offered, and its calls are refused \`tool_definition_changed\` (read the new description; if you accept it, write the catalogue again with \`stalwart gateway init\`)`);
      }
      continue;
    }
    if (copies) continue;
    const near = closest(name, unnamed);
    if (near !== undefined) notes.push(`the catalogue names \`${name}\`, which the tool server does not list; it lists ${nameOf(near)}, which the catalogue does not name: neither is offered (a misspelt name?)`);
  }
  const older = named.filter((n) => pins.has(n) && pinForm(pins.get(n)!) === "description");
  if (older.length > 0) notes.push(`${older.length === 1 ? `the pin of \`${older[0]}\` is` : `${older.length} pins in the catalogue are`} of the older form (\`sha256:\`), which covers only a tool's description and input schema: a changed title, annotations, output schema or \`_meta\` is not caught; write the catalogue again with \`stalwart gateway init\` to pin the whole tool (\`v2:sha256:\`)`);
  return notes;
}

/** A name the tool server chose, on one line: a line break in it could write a log line of its own. */
function nameOf(n: string): string {
  return /^[\w.:/-]{1,100}$/.test(n) ? `\`${n}\`` : quotedName(n);
}

/** Up to five names, then how many more. */
function listOf(names: readonly string[]): string {
  const shown = names.slice(0, 5).map(nameOf).join(", ");
  return names.length > 5 ? `${shown} and ${names.length - 5} more` : shown;
}

/**
 * A rule that reads `facts.…`: MCP carries no facts, so through the gateway it never reads a value,
 * and a rule that cannot read its value fails closed on every call it gates (docs/gateway.md).
 */
export function rulebookNotes(rulebook: CompiledRulebook): string[] {
  const notes: string[] = [];
  for (const rule of rulebook.rules) {
    const facts = [...new Set(rule.when.flatMap(factPaths))];
    if (facts.length === 0) continue;
    const on = rule.tools ? rule.tools.map((t) => `\`${t}\``).join(", ") : "every tool";
    notes.push(`rule \`${rule.name}\` (${on}) reads ${facts.map((f) => `\`${f}\``).join(", ")}, which no call through the gateway carries (MCP has no facts); a rule that cannot read a value fails closed, so it ${rule.then === "refuse" ? "refuses" : "asks about"} the calls it looks at: write it on \`args.…\` to use it here`);
  }
  return notes;
}

function factPaths(c: Condition): string[] {
  if (c.kind === "any") return c.conditions.flatMap(factPaths);
  return c.subject.path === "facts" || c.subject.path.startsWith("facts.") ? [c.subject.path] : [];
}
