/**
 * `stalwart gateway init -- CMD`: a starter agent.yaml from what the tool server says of its
 * tools. The class of each tool is a guess from its MCP annotations — hints, which the spec says a
 * client must not trust from an untrusted server — so every guess carries a `# review:` comment
 * for the person to confirm (checks.md: a tool's class is declared, not inferred):
 *   readOnlyHint: true                 → a read (openWorldHint: true → reads_outside)
 *   readOnlyHint false or absent       → writes (no hint at all is a write: fail toward asking)
 *   destructiveHint: true on a write   → irreversible (nothing declared undoes it)
 *   readOnlyHint and destructiveHint   → a contradiction: an irreversible write, said so
 *   openWorldHint: true on a write     → noted: declare `sends_out` with the allowed destinations
 * `args` is the tool's `inputSchema`, `returns` its `outputSchema` (what `result:` origins and
 * `{from}` conditions may read). String arguments named or described as file paths are
 * `lookup_args` (reviewed): a file called `README.md` would otherwise read as a host. The file is linted before it is written: what init writes passes
 * `stalwart check`. Every tool is pinned (`pin:`, the digest of the whole tool as the server lists it).
 */
import { existsSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { CatalogueError, cutText, loadCatalogue, formatProblem, InputError, MAX_CATALOGUE_VALUES } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "../sdk/ajv-compiler.js";
import { Upstream, type ListedTool, type UpstreamSpec } from "./upstream.js";
import { definitionDigest } from "./pins.js";
import { OUTSIDE_TOOLS } from "./outside.js";

type McpTool = {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; openWorldHint?: boolean; idempotentHint?: boolean; title?: string };
};

async function listAllTools(spec: UpstreamSpec): Promise<{ tools: ListedTool[]; server?: { name: string; version: string } }> {
  // The capabilities the serving gateway declares (it relays sampling, elicitation and roots): a
  // server that offers, or describes, some tools only to such clients lists them as it will when
  // served, so none is left out and every pin matches. Nobody is there to answer a request.
  const up = await new Upstream(spec, {
    request: async (method) => {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `stalwart gateway init: ${method} not answered (init only lists the tools; no client is connected)`);
    },
  }).start();
  try {
    // raw: one tool that is not valid MCP is left out with its reason, not the whole listing lost
    // whole: a listing cut short (a cursor that loops, too many pages) is said, not written short
    const listed = await up.listTools(60_000, { raw: true, whole: true });
    // each valid tool as the serving gateway will read it, so that its pin is what it compares
    const tools = listed.map((t) => up.asListed(t) ?? t);
    const server = up.serverInfo();
    return { tools, ...(server ? { server } : {}) };
  } finally {
    await up.close();
  }
}

/** Keywords through which a draft-07 schema may name properties besides its own `properties`. */
const NAMING_ELSEWHERE = ["allOf", "anyOf", "oneOf", "$ref", "if", "then", "else", "dependencies", "patternProperties"];

/** A catalogue's tool name (catalogue schema); MCP also allows `.` and `/`, which a catalogue cannot name. */
const CATALOGUE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;

/** A tool init did not write, and why (its `# not written:` line says the same). */
export type LeftOut = { name: string; why: string };

export function starterCatalogue(tools: readonly ListedTool[], source: string): { text: string; written: number; guesses: number; skipped: string[]; left: LeftOut[] } {
  let guesses = 0;
  let written = 0;
  const blocks: string[] = [];
  const left: LeftOut[] = [];
  const leaveOut = (name: string, why: string, then = "the gateway does not offer it, and refuses its calls") => {
    left.push({ name, why });
    blocks.push(`  # not written: ${shownName(name)} (${oneLine(why)}): ${then}`);
  };
  const listed = new Map<string, number>();
  for (const t of tools) listed.set(t.name, (listed.get(t.name) ?? 0) + 1);
  const said = new Set<string>();
  // A server too large for one catalogue is said before each tool is linted (half a minute for
  // 10,000 tools), not as init's own file failing the lint, "a bug" (outside audit 13, F8). Each
  // entry holds its name, its pin and its schemas at least; a tool the lint will leave out is
  // counted too, the cost of not linting first.
  let values = 4; // the file's map, `settings`, `language`, the `tools` list
  const least = (t: ListedTool) => (CATALOGUE_NAME.test(t.name) && listed.get(t.name) === 1 && !OUTSIDE_TOOLS.has(t.name) && !listingProblem(t) ? 3 + countValues(cleanSchema(t.inputSchema as Record<string, unknown>)) + countValues(cleanSchema(t.outputSchema as Record<string, unknown> | undefined)) : 0);
  if (tools.reduce((n, t) => n + least(t), values) > MAX_CATALOGUE_VALUES) throw tooLarge(tools.length);
  for (const raw of tools) {
    // One tool the catalogue cannot hold is left out and said so, not the whole file: it is not
    // offered and its calls are refused (`unknown_tool`), as for any tool the catalogue does not name.
    // A name listed more than once is left out whole, once: which copy the server runs is unknown
    // (the first copy was written, where the docs said none is: outside audit 13, F9).
    const times = listed.get(raw.name) ?? 1;
    if (!CATALOGUE_NAME.test(raw.name) || times > 1) {
      if (said.has(raw.name)) continue;
      said.add(raw.name);
      leaveOut(raw.name, times > 1 ? `the server lists this name ${times} times, so which of them it runs is unknown` : "a catalogue's tool name is letters, digits, `_` and `-`, at most 128 characters");
      continue;
    }
    // The gateway's own entry of this name records resources/read or prompts/get as a read from
    // outside (outside.ts); written as the server's tool, it would replace that entry and stop
    // labelling what resources and prompts return (outside audit 13, F1).
    if (OUTSIDE_TOOLS.has(raw.name)) {
      leaveOut(raw.name, `the gateway keeps this name for its own \`${raw.name === "resources_read" ? "resources/read" : "prompts/get"}\` entry, a read from outside whose results are labelled untrusted`, "the gateway does not offer the server's tool of this name, and refuses its calls");
      continue;
    }
    const unfit = listingProblem(raw);
    if (unfit) {
      leaveOut(raw.name, unfit);
      continue;
    }
    const t = raw as McpTool;
    const a = t.annotations ?? {};
    const entry: Record<string, unknown> = { name: t.name };
    const notes: string[] = [];
    // Both hints at once contradict each other (MCP: destructiveHint is for tools that are not
    // read-only): taken as the more dangerous, a write nothing undoes (outside audit 13, F6).
    const contradicts = a.readOnlyHint === true && a.destructiveHint === true;
    if (a.readOnlyHint === true && !contradicts) {
      if (a.openWorldHint === true) {
        entry.reads_outside = true;
        notes.push("readOnlyHint + openWorldHint → reads_outside: what it returns is labelled untrusted");
      } else {
        notes.push(`readOnlyHint → a read${a.openWorldHint === false ? " of this server's own data" : " (no openWorldHint: if it reads the web or others' messages, add `reads_outside: true`)"}`);
      }
    } else {
      entry.writes = true;
      if (contradicts) notes.push("the hints contradict: readOnlyHint and destructiveHint are both true → taken as the more dangerous, a write nothing undoes (it is confirmed); make it a read only if you know it deletes nothing");
      else notes.push(a.readOnlyHint === false ? "readOnlyHint: false → writes" : "no readOnlyHint → assumed to write (it is confirmed); remove `writes` if it only reads");
      if (a.destructiveHint === true) {
        entry.irreversible = true;
        notes.push("destructiveHint → irreversible; if another tool undoes it, declare `undo:` instead");
      }
      if (a.openWorldHint === true) notes.push("openWorldHint → it may reach others: declare `sends_out: [allowed destinations]`, or every destination in its arguments is refused");
    }
    // The definition as the server gives it now: the gateway refuses the tool if it changes (pins.ts).
    const pin = definitionDigest(t);
    if (pin) entry.pin = pin;
    const args = cleanSchema(t.inputSchema) ?? { type: "object", properties: {} };
    // The server names its arguments; anything else is refused (step 3), not held as schema_partial.
    // Only where the schema names them itself: beside a combinator or a $ref (draft-07), a closed
    // top level would refuse the very arguments those name, so it stays open and is said so.
    if (args.type === "object" && args.additionalProperties === undefined) {
      const through = NAMING_ELSEWHERE.filter((k) => Object.hasOwn(args, k));
      if (through.length === 0) args.additionalProperties = false;
      else notes.push(`the input schema names its arguments through ${through.map((k) => `\`${k}\``).join(", ")}: left open (arguments it does not name are held as schema_partial); add \`additionalProperties: false\` with every argument under \`properties\` to refuse others`);
    }
    entry.args = args;
    if (a.openWorldHint !== true) {
      const paths = pathArgs(args);
      if (paths.length > 0) {
        entry.lookup_args = paths;
        notes.push(`${paths.map((p) => `\`${p}\``).join(", ")} ${paths.length > 1 ? "look like file paths" : "looks like a file path"} → \`lookup_args\`: not scanned for destinations (a file named \`README.md\` or \`main.py\` reads as a host otherwise, and is refused); remove ${paths.length > 1 ? "one that" : "it if it"} can hold a URL or an address`);
      }
    }
    const returns = cleanSchema(t.outputSchema);
    if (returns) entry.returns = returns;
    else notes.push("no outputSchema: declare `returns` for the fields later calls may take from its result");
    const body = stringify([entry], { lineWidth: 0 }).trimEnd().split("\n").map((l) => `  ${l}`);
    // One tool whose schema a catalogue cannot take (a keyword outside draft-07, `type` not
    // `object`) is left out and said so, like a name it cannot hold: the rest is still written.
    const problem = toolProblem(body);
    if (problem) {
      leaveOut(t.name, `its schema is not one a catalogue takes: ${problem}`, "the gateway does not offer it, and refuses its calls; declare it by hand to offer it");
      continue;
    }
    guesses += notes.length;
    written++;
    values += countValues(entry);
    if (values > MAX_CATALOGUE_VALUES) throw tooLarge(tools.length);
    const head = [`# ${t.name}${typeof t.description === "string" && t.description ? `: ${firstLine(t.description)}` : ""}`, ...notes.map((n) => `# review: ${n}`)];
    blocks.push([...head.map((l) => `  ${l}`), ...body].join("\n"));
  }
  const text = [
    `# A starter catalogue written by \`stalwart gateway init\` from ${oneLine(source)}.`,
    "# Each tool's class below is a guess from the server's MCP annotations: review every `# review:` line,",
    "# then run `stalwart check` on this file. A tool the catalogue does not name is not offered at all.",
    "# Each `pin` is the digest of the whole tool (description, title, schemas, annotations, _meta) as the server gave it now:",
    "# if the server later describes a tool otherwise, the gateway stops offering it and refuses its calls.",
    "settings:",
    "  language: en",
    "tools:",
    ...(written > 0 ? blocks : [...blocks, "  []"]),
    "",
  ].join("\n");
  return { text, written, guesses, skipped: left.map((l) => l.name), left };
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"];
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What makes a listed tool invalid MCP where init reads it, or too deep to walk; undefined when
 * it reads as an McpTool. The SDK's schema threw on the whole page for such a tool, and init stopped with an
 * internal error, writing nothing (outside audit 13, F5). A schema MCP takes but a catalogue does
 * not (`type` other than `object`) is the lint's to say (toolProblem).
 */
function listingProblem(t: ListedTool): string | undefined {
  const invalid = (why: string) => `the server's listing of it is not valid MCP: ${why}`;
  if (t.inputSchema === undefined) return invalid("it has no `inputSchema`, which MCP requires of every tool");
  if (!isMap(t.inputSchema)) return invalid("its `inputSchema` is not an object");
  if (t.description !== undefined && typeof t.description !== "string") return invalid("its `description` is not text");
  if (t.outputSchema !== undefined && !isMap(t.outputSchema)) return invalid("its `outputSchema` is not an object");
  // Read raw, a schema nested thousands of levels deep reaches init (the SDK's schema overflowed
  // on it first): it is more than a catalogue takes, and walking it would overflow here too.
  if (deeperThan(t.inputSchema, SCHEMA_DEPTH) || deeperThan(t.outputSchema, SCHEMA_DEPTH)) return `its schema is nested deeper than ${SCHEMA_DEPTH} levels, more than a catalogue takes`;
  if (t.annotations === undefined) return undefined;
  if (!isMap(t.annotations)) return invalid("its `annotations` is not an object");
  for (const h of HINTS) {
    const v = t.annotations[h];
    if (v !== undefined && typeof v !== "boolean") return invalid(`its annotation \`${h}\` is ${typeof v === "object" ? (v === null ? "null" : Array.isArray(v) ? "a list" : "an object") : cutText(oneLine(JSON.stringify(v) ?? String(v)), 40)}, not true or false, so its class cannot be guessed`);
  }
  return undefined;
}

/** The deepest schema init walks: a catalogue is read to 100 levels in all (source.ts), its entries' schemas start below that. */
const SCHEMA_DEPTH = 100;

/** Whether `v` nests deeper than `limit` maps or lists (never recursing past it). */
function deeperThan(v: unknown, limit: number): boolean {
  if (typeof v !== "object" || v === null) return false;
  if (limit === 0) return true;
  for (const c of Array.isArray(v) ? v : Object.values(v)) if (deeperThan(c, limit - 1)) return true;
  return false;
}

/** The values a catalogue holding `v` counts for it (source.ts: each map, list and scalar; keys are not). */
function countValues(v: unknown): number {
  if (v === undefined) return 0;
  if (typeof v !== "object" || v === null) return 1;
  let n = 1;
  for (const c of Array.isArray(v) ? v : Object.values(v)) n += countValues(c);
  return n;
}

function tooLarge(tools: number): InputError {
  return new InputError(
    `the tool server's ${tools} tools, with their schemas, are more than one catalogue holds (${MAX_CATALOGUE_VALUES} values): nothing is written`,
    undefined,
    "write a catalogue by hand with only the tools this agent needs (docs/catalogue.md), or ask the tool server's authors for a server with fewer tools",
  );
}

/** An argument name a file system's tools use for a path (server-filesystem: path, paths, source, destination). */
const PATH_NAME = /^(path|paths|file|files|filename|filenames|filepath|file_path|source|destination|dir|directory|folder|root)$/i;

/** The top-level string (or list of strings) arguments named like paths, or described as one. */
function pathArgs(args: Record<string, unknown>): string[] {
  const props = args.properties;
  if (typeof props !== "object" || props === null || Array.isArray(props)) return [];
  const out: string[] = [];
  for (const [name, schema] of Object.entries(props as Record<string, unknown>)) {
    if (typeof schema !== "object" || schema === null) continue;
    const sch = schema as { type?: unknown; items?: { type?: unknown }; description?: unknown };
    const text = sch.type === "string" || (sch.type === "array" && sch.items?.type === "string");
    const described = typeof sch.description === "string" && /\b(file|directory|folder)?\s*path\b/i.test(sch.description) && !/\burl\b|\buri\b|https?:/i.test(sch.description);
    if (text && (PATH_NAME.test(name) || described)) out.push(name);
  }
  return out;
}

/** What the lint says of a catalogue holding this one tool's block (its first problem), or undefined. */
function toolProblem(body: string[]): string | undefined {
  try {
    loadCatalogue(["settings:", "  language: en", "tools:", ...body, ""].join("\n"), { file: "tool.yaml", schemaCompiler: ajvCompiler });
    return undefined;
  } catch (err) {
    if (err instanceof CatalogueError) {
      const p = err.problems[0];
      return p ? p.message.replace(/^tool `[^`]*`: /, "") : "it does not pass the lint";
    }
    return (err as Error).message;
  }
}

export async function writeStarter(spec: UpstreamSpec, out: string, o: { force: boolean }): Promise<{ tools: number; guesses: number; skipped: string[]; left: LeftOut[] }> {
  if (existsSync(out) && !o.force) throw new InputError(`\`${out}\` exists`, undefined, "pass `--force` to overwrite it, or `-o` another file");
  const { tools, server } = await listAllTools(spec);
  const source = server ? `${server.name} ${server.version}` : "url" in spec ? spec.url : [spec.command, ...spec.args].join(" ");
  const { text, written, guesses, skipped, left } = starterCatalogue(tools, source);
  // counted as written, not as listed less left out: a name listed twice is one line for two tools
  if (tools.length > 0 && written === 0) {
    const why = left.map((l) => `${shownName(l.name)} (${oneLine(l.why)})`);
    throw new InputError(`none of the tool server's ${tools.length} tools can be written to a catalogue:\n${why.join("\n")}`, undefined, "write the catalogue by hand (docs/catalogue.md), or ask the tool server's authors for draft-07 input schemas");
  }
  try {
    loadCatalogue(text, { file: out, schemaCompiler: ajvCompiler });
  } catch (err) {
    if (err instanceof CatalogueError) throw new InputError(`the starter catalogue does not pass the lint:\n${err.problems.map(formatProblem).join("\n")}`, undefined, "this is a bug in `stalwart gateway init`; please report it with the tool server's name");
    throw err;
  }
  try {
    writeFileSync(out, text);
  } catch (err) {
    // a folder that does not exist, or one this user may not write: the person's input, not a crash
    throw new InputError(`cannot write \`${out}\`: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, undefined, "check that its folder exists and can be written, or pass `-o` another file");
  }
  return { tools: written, guesses, skipped, left };
}

/** A JSON Schema as a catalogue takes it: `$schema` dropped (the catalogue fixes the dialect). */
function cleanSchema(s: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!s || typeof s !== "object") return undefined;
  const { $schema: _drop, ...rest } = s;
  return rest;
}

function firstLine(s: string): string {
  const line = oneLine(s.split("\n")[0]!).trim();
  return line.length > 120 ? `${cutText(line, 117)}…` : line;
}

/** A tool's name as a comment shows it: on one line, and a long one cut (the server chose its length). */
export function shownName(name: string): string {
  return name.length > 160 ? `${JSON.stringify(oneLine(name.slice(0, 120)))}… (${name.length} characters)` : JSON.stringify(oneLine(name));
}

/** The server's words inside a `#` comment: a line break (or another control character) would end the comment and become YAML. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ");
}
