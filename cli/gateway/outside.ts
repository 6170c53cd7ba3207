/**
 * Resources and prompts (issue 11, item 7): forwarded read-only, and recorded in the session's
 * history as reads from outside, so that what they return labels what follows. A `resources/read`
 * is checked and reported as a call of the tool `resources_read`, a `prompts/get` as one of
 * `prompts_get`: both `reads_outside`, so a value a later write copies out of them is
 * `result:<step>.<path>` carrying `untrusted:resources_read` (or `untrusted:prompts_get`), and the
 * write is held `tainted_call` (checks.md step 9).
 *
 * The gateway adds the two entries to the catalogue it hands the check, unless the catalogue names
 * them itself (then its own words apply: a person may cap them with `at_most`, narrow `args`, or
 * say which agents reach them), as long as they stay `reads_outside` (outsideEntryProblems). They
 * are never offered or callable as tools. The listings (`resources/list`,
 * `resources/templates/list`, `prompts/list`) are forwarded and not recorded: they name things, and
 * what they name is read through `resources/read` / `prompts/get`.
 */
import { LineCounter, parseDocument } from "yaml";
import type { CatalogueProblem, CheckResult, CompiledCatalogue, InferredOrigin, Outcome } from "../../worker/portable/engine/index.js";
import { originsOf, recordable } from "../../worker/portable/engine/index.js";
import { faultCheck } from "./words.js";
import type { TraceFile } from "./trace-file.js";
import { reportOutcome } from "./result-value.js";

const RESOURCES_READ = "resources_read";
const PROMPTS_GET = "prompts_get";
export const OUTSIDE_TOOLS: ReadonlySet<string> = new Set([RESOURCES_READ, PROMPTS_GET]);

const text = { type: "string" };
const ENTRIES: Record<string, Record<string, unknown>> = {
  [RESOURCES_READ]: {
    name: RESOURCES_READ,
    description: "stalwart gateway: an MCP resources/read, recorded as a read from outside",
    reads_outside: true,
    // the URI names what is read (file:, https:, a server's own scheme): a key, not a destination
    lookup_args: ["uri"],
    args: { type: "object", properties: { uri: text }, required: ["uri"], additionalProperties: false },
    returns: {
      type: "object",
      properties: { contents: { type: "array", items: { type: "object", properties: { uri: text, mimeType: text, text } } } },
    },
  },
  [PROMPTS_GET]: {
    name: PROMPTS_GET,
    description: "stalwart gateway: an MCP prompts/get, recorded as a read from outside",
    reads_outside: true,
    // a prompt's name and arguments select what the server returns (often a URI): keys, not destinations
    lookup_args: ["name", "arguments"],
    args: {
      type: "object",
      properties: { name: text, arguments: { type: "object", additionalProperties: text } },
      required: ["name"],
      additionalProperties: false,
    },
    returns: {
      type: "object",
      properties: {
        description: text,
        // an embedded `resource` carries its text one level down: the model reads it as it reads a
        // text message, so it is kept and labels a copy alike (outside audit 13, F4)
        messages: {
          type: "array",
          items: { type: "object", properties: { role: text, content: { type: "object", properties: { type: text, text, resource: { type: "object", properties: { uri: text, mimeType: text, text } } } } } },
        },
      },
    },
  },
};

/**
 * The catalogue source with the two outside-read entries added where it does not name them. An
 * entry added here is also in every agent's reach: a catalogue with agents lists its own tools
 * for each, and without this every read from outside was `unknown_tool` for its agent. (A
 * catalogue that names an entry itself says which agents reach it.)
 */
export function withOutsideReads(source: Record<string, unknown>): Record<string, unknown> {
  const tools = Object.hasOwn(source, "tools") && Array.isArray(source.tools) ? (source.tools as unknown[]) : [];
  const named = new Set(tools.map((t) => (typeof t === "object" && t !== null && Object.hasOwn(t, "name") ? (t as { name: unknown }).name : undefined)));
  const added = Object.keys(ENTRIES).filter((n) => !named.has(n));
  const agents = Object.hasOwn(source, "agents") && Array.isArray(source.agents) ? { agents: (source.agents as unknown[]).map((a) => reaching(a, added)) } : {};
  return { ...source, ...agents, tools: [...tools, ...added.map((n) => ENTRIES[n]!)] };
}

/**
 * A catalogue entry named `resources_read` or `prompts_get` that is not `reads_outside: true`:
 * it would replace the gateway's own entry, and what resources and prompts return would no longer
 * be labelled untrusted — `not_after: [untrusted]` and `taint_policy` would stop holding after
 * them. Such an entry came from a tool server whose tool had that name (outside audit 13, F1), or
 * from a person who did not know the name is taken; either way the gateway does not start on it.
 */
export function outsideEntryProblems(text: string, file: string, own: CompiledCatalogue): CatalogueProblem[] {
  const wrong = [...OUTSIDE_TOOLS].filter((n) => own.tools.get(n)?.readsOutside === false);
  if (wrong.length === 0) return [];
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const data: unknown = doc.toJS();
  const list = typeof data === "object" && data !== null && Object.hasOwn(data, "tools") && Array.isArray((data as { tools: unknown }).tools) ? (data as { tools: unknown[] }).tools : [];
  return wrong.map((name) => {
    const i = list.findIndex((t) => typeof t === "object" && t !== null && (t as { name?: unknown }).name === name);
    const node = i >= 0 ? doc.getIn(["tools", i, "name"], true) : undefined;
    const offset = (node as { range?: [number, number, number] } | undefined)?.range?.[0];
    const at = offset !== undefined ? lines.linePos(offset) : { line: 1, col: 1 };
    return {
      file, line: at.line, column: at.col, pointer: i >= 0 ? `/tools/${i}` : "/tools",
      message: `tool \`${name}\`: this name is the gateway's own ${name === RESOURCES_READ ? "`resources/read`" : "`prompts/get`"} entry, a read from outside, and must keep \`reads_outside: true\`; without it what ${name === RESOURCES_READ ? "resources" : "prompts"} return is not labelled untrusted`,
      hint: `add \`reads_outside: true\` to it, or remove the entry (the gateway then adds its own); a tool server's tool of this name is never offered through the gateway, so it needs no entry`,
    };
  });
}

/** An agent entry that also reaches `names` (anything not an agent with a list of tools is left for the lint to name). */
function reaching(agent: unknown, names: readonly string[]): unknown {
  if (typeof agent !== "object" || agent === null || !Object.hasOwn(agent, "tools")) return agent;
  const tools = (agent as { tools: unknown }).tools;
  if (!Array.isArray(tools)) return agent;
  return { ...agent, tools: [...tools, ...names.filter((n) => !tools.includes(n))] };
}

/** The arguments the check sees for a resources/read or prompts/get (only what the entry declares). */
function outsideArgs(method: "resources/read" | "prompts/get", params: Record<string, unknown> | undefined): { tool: string; args: Record<string, unknown> } {
  const p = params ?? {};
  if (method === "resources/read") return { tool: RESOURCES_READ, args: { uri: p.uri } };
  return { tool: PROMPTS_GET, args: { name: p.name, ...(p.arguments !== undefined ? { arguments: p.arguments } : {}) } };
}

export interface OutsideSession {
  checkToolCall(tool: string, args: unknown, options?: { origins?: Record<string, string> }): Promise<CheckResult>;
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }>;
}

/** Check, forward, report: fail closed, and a read the check does not allow never reaches the upstream. */
export async function readFromOutside(
  o: { session: OutsideSession; infer: (tool: string, args: Record<string, unknown>) => Record<string, InferredOrigin>; log: (line: string) => void; trace?: TraceFile | undefined },
  method: "resources/read" | "prompts/get",
  params: Record<string, unknown> | undefined,
  forward: () => Promise<Record<string, unknown>>,
): Promise<{ ok: true; result: Record<string, unknown> } | { ok: false; check: CheckResult }> {
  const { tool, args } = outsideArgs(method, params);
  let check: CheckResult;
  let inferred: Record<string, InferredOrigin> = {};
  try {
    inferred = o.infer(tool, args);
    check = await o.session.checkToolCall(tool, args, { origins: originsOf(inferred) });
  } catch (err) {
    check = faultCheck(err);
  }
  o.trace?.call(tool, args, inferred, check);
  if (check.decision !== "allow") {
    o.log(`${check.decision} ${method} ${check.reasons.join(",")}: not forwarded`);
    return { ok: false, check };
  }
  let result: Record<string, unknown>;
  try {
    result = await forward();
  } catch (err) {
    await report(o, check.step, "outcome_unknown");
    throw err;
  }
  // as data the history holds: a lone surrogate in a resource's text must not cost the report (result-value.ts)
  await report(o, check.step, "ran", recordable(result));
  o.log(`allow ${method}: read from outside, recorded as step ${check.step}`);
  return { ok: true, result };
}

async function report(o: { session: OutsideSession; log: (line: string) => void; trace?: TraceFile | undefined }, step: number, outcome: Outcome, result?: unknown): Promise<void> {
  // in the trace even when the history cannot take it: the read happened all the same
  o.trace?.outcome(step, outcome, result);
  await reportOutcome(o.session, step, outcome, result, o.log);
}
