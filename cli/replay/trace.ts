/**
 * The trace format of `stalwart replay` (docs/trace-format.md), version 1: JSON Lines, one event a
 * line — `session`, `turn`, `call`, `answer`, `outcome`. This module only reads text into plain data and
 * says, line by line, what is wrong; it does no I/O and runs nothing.
 *
 * Calls are named by the trace's own ids. Everything that points at a call (`outcome.call`, `answer.call`,
 * `call.undo_of`, a `result:<id>.<path>` origin) must name a call defined on an earlier line of the
 * same session, so that replay can map it to the replayed session's step number.
 *
 * Which session an event belongs to: the one of its `run`, when it names one (`stalwart gateway
 * --trace` writes its run on every line, so two gateways appending to one file at once stay
 * apart), else the latest `session` line. A run-less gateway trace (written before `run`) is held
 * to the run in its call ids (`<run>-<n>`): a call of one run under another run's session is an
 * error, never replayed as that other session's (audit 7, F1, F8).
 */
import { OUTCOMES, type Outcome } from "../../worker/portable/engine/index.js";
import { StalwartError } from "../../worker/portable/engine/index.js";
import { closest, defineOwn, duplicateKey } from "../../worker/portable/engine/index.js";
import { oneLine } from "../../worker/portable/approvals/visible.js";
import { describe, fail, iso, LineProblem, object, readAt, torn } from "./trace-values.js";

const TRACE_VERSION = 1;

export type Language = "en" | "pt-BR";
export type TraceOutcome = Outcome;
export type Verdict = "fine" | "harmful";

interface TraceSession {
  name: string;
  language?: Language;
  context?: Record<string, unknown>;
  agent?: string;
  /** written by `stalwart gateway --trace`: its reads from outside are calls of the entries it adds (outside.ts) */
  gateway?: boolean;
  /** the gateway run whose lines these are (`run` on each of them) */
  run?: string;
  at: number;
  line: number;
  events: TraceEvent[];
}

export type TraceEvent = TraceTurn | TraceCall | TraceAnswer | TraceOutcomeEvent;

interface TraceTurn {
  type: "turn";
  text: string;
  at: number;
  line: number;
}

/** An origin as the trace writes it: a word (`typed`, `model`, …) or a result of an earlier call. */
type TraceOrigin = { word: string } | { call: string; path: string };

export interface TraceCall {
  type: "call";
  id: string;
  tool: string;
  args: unknown;
  origins?: Record<string, TraceOrigin>;
  labels?: Record<string, string[]>;
  agent?: string | null;
  facts?: Record<string, unknown>;
  undoOf?: string;
  approved?: boolean;
  /** when the person answered (the token is presented then); default: `at` */
  approvedAt?: number;
  verdict?: Verdict;
  at: number;
  line: number;
}

/** The person's answer to a call put to them after it was written (a recorder that writes calls as they come). */
export interface TraceAnswer {
  type: "answer";
  call: string;
  approved: boolean;
  at: number;
  line: number;
}

interface TraceOutcomeEvent {
  type: "outcome";
  call: string;
  outcome: TraceOutcome;
  result?: unknown;
  at: number;
  line: number;
}

export interface Trace {
  file: string;
  sessions: TraceSession[];
  /** how many `call` events, for progress */
  calls: number;
}

/** One problem with a trace line, compiler-style (`file:line: error: message`, `hint:`). */
export interface TraceProblem {
  file: string;
  line: number;
  message: string;
  hint?: string;
}

export function formatTraceProblem(p: TraceProblem): string {
  // a message quotes the trace's own text (a field name, a value): on one line, hidden characters named (audit 7, F11)
  return `${oneLine(p.file)}:${p.line}: error: ${oneLine(p.message)}${p.hint ? `\n  hint: ${oneLine(p.hint)}` : ""}`;
}

const FIELDS: Record<string, readonly string[]> = {
  session: ["v", "type", "name", "language", "context", "agent", "gateway", "run", "at"],
  turn: ["v", "type", "run", "text", "at"],
  call: ["v", "type", "run", "id", "tool", "args", "origins", "labels", "agent", "facts", "undo_of", "approved", "approved_at", "verdict", "at"],
  answer: ["v", "type", "run", "call", "approved", "at"],
  outcome: ["v", "type", "run", "call", "outcome", "result", "at"],
};
const TYPES = Object.keys(FIELDS);
const LANGUAGES: readonly Language[] = ["en", "pt-BR"];
const VERDICTS: readonly Verdict[] = ["fine", "harmful"];
/** A call id: a word that never reads as a step number or a path (`c1`, `refund-2`, `t_17`). */
const ID = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
/** A run's name (the gateway's: `g` and 16 hex digits). */
const RUN = /^[A-Za-z0-9_-]{1,64}$/;
/** The run in a gateway's call id, `<run>-<n>` (a trace written before `run` is held to it). */
const GATEWAY_ID = /^(g[0-9a-f]{16})-[0-9]+$/;
/** Stop collecting after this many problems: the rest are usually echoes of the first. */
const MAX_PROBLEMS = 50;

/** A trace that does not read: every problem found (up to MAX_PROBLEMS), in line order. */
export class TraceError extends StalwartError {
  constructor(readonly problems: readonly TraceProblem[], readonly more = 0) {
    super("TraceInvalid", problems.map(formatTraceProblem).join("\n"));
  }
}


/**
 * Read a trace. Throws TraceError with every problem (bad JSON, unknown types and fields, wrong
 * values, references to calls no earlier line defines, time going backwards).
 */
export function parseTrace(text: string | readonly string[], file: string): Trace {
  const problems: TraceProblem[] = [];
  let more = 0;
  const sessions: TraceSession[] = [];
  /** id → the session it belongs to (index), for references */
  const ids = new Map<string, number>();
  /** run → its session (index); a run-less gateway session's run, from its call ids → its session */
  const runs = new Map<string, number>();
  const idRuns = { session: new Map<string, number>(), run: new Map<number, string>() };
  /** each session's latest time: a run's lines are in its own clock's order, whatever another run wrote between them */
  const last = new Map<number, number>();
  let current: TraceSession | undefined;
  let clock: number | undefined;
  let calls = 0;
  /** calls the person answered (`approved` on the call, or an `answer` event): once each */
  const answered = new Set<string>();

  // lines as read-trace.ts reads them (line by line), or a text split here
  const lines = typeof text === "string" ? text.split("\n") : [...text];
  if (typeof text === "string" && lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let raw = lines[i]!;
    if (raw.endsWith("\r")) raw = raw.slice(0, -1);
    if (i === 0 && raw.startsWith("\uFEFF")) raw = raw.slice(1);
    if (raw.trim() === "") continue;
    try {
      const ev = readLine(raw);
      const type = ev.type as string;
      if (type === "session") {
        const s = readSession(ev, lineNo);
        // a run's session starts on its own gateway's clock (another run may have written a later time just before)
        if (s.run === undefined && clock !== undefined && s.at < clock) fail(`time goes backwards: \`at\` is ${iso(s.at)}, before the previous event's ${iso(clock)}`, "events are written in the order they happened");
        if (s.run !== undefined && runs.has(s.run)) fail(`run \`${s.run}\` has a \`session\` line already (line ${sessions[runs.get(s.run)!]!.line})`, "each run of a gateway writes one `session` line; give every run its own `run`");
        clock = Math.max(clock ?? s.at, s.at);
        sessions.push(s);
        if (s.run !== undefined) runs.set(s.run, sessions.length - 1);
        last.set(sessions.length - 1, s.at);
        current = s;
        continue;
      }
      const here = sessionOf(ev, type, current, sessions.length - 1, runs);
      const session = sessions[here]!;
      const before = session.run !== undefined ? last.get(here)! : clock!;
      const at = readAt(ev, false) ?? before;
      if (at < before) fail(`time goes backwards: \`at\` is ${iso(at)}, before the previous event's ${iso(before)}`, "events are written in the order they happened");
      last.set(here, at);
      clock = Math.max(clock!, at);
      const ref = (id: unknown, field: string): string => {
        if (typeof id !== "string" || !ID.test(id)) fail(`\`${field}\` must be a call id (a string like \`c1\`), not ${describe(id)}`);
        const where = ids.get(id as string);
        if (where === undefined) fail(`\`${field}\` names call \`${id as string}\`, which no earlier line defines`, "a call is referred to after its `call` event, by its `id`");
        if (where !== here) fail(`\`${field}\` names call \`${id as string}\` of the session on line ${sessions[where!]!.line}, not of this one (\`${session.name}\`, line ${session.line})`, "calls are referred to within their own session; if two gateways wrote this file at once, a trace written before `run` cannot be told apart");
        return id as string;
      };
      if (type === "turn") {
        if (typeof ev.text !== "string") fail(`a turn's \`text\` must be a string, not ${describe(ev.text)}`);
        session.events.push({ type: "turn", text: ev.text as string, at, line: lineNo });
      } else if (type === "call") {
        const call = readCall(ev, at, lineNo, ref);
        if (ids.has(call.id)) fail(`call id \`${call.id}\` is used twice`, "give every call of the trace its own id");
        gatewayRun(call.id, here, session, idRuns);
        if (call.approvedAt !== undefined) {
          last.set(here, call.approvedAt);
          clock = Math.max(clock!, call.approvedAt);
        }
        ids.set(call.id, here);
        if (call.approved !== undefined) answered.add(call.id);
        session.events.push(call);
        calls++;
      } else if (type === "answer") {
        const callId = ref(ev.call, "call");
        if (typeof ev.approved !== "boolean") fail(`an answer's \`approved\` must be true or false, not ${describe(ev.approved)}`);
        if (answered.has(callId)) fail(`call \`${callId}\` was answered already`, "a call is put to the person once: one `approved` on its `call` event, or one `answer` event");
        answered.add(callId);
        session.events.push({ type: "answer", call: callId, approved: ev.approved as boolean, at, line: lineNo });
      } else {
        const callId = ref(ev.call, "call");
        if (typeof ev.outcome !== "string" || !OUTCOMES.includes(ev.outcome as TraceOutcome)) {
          const near = typeof ev.outcome === "string" ? closest(ev.outcome, OUTCOMES) : undefined;
          fail(`\`outcome\` must be one of ${OUTCOMES.map((o) => `\`${o}\``).join(", ")}, not ${describe(ev.outcome)}`, near ? `did you mean \`${near}\`?` : undefined);
        }
        session.events.push({ type: "outcome", call: callId, outcome: ev.outcome as TraceOutcome, ...("result" in ev ? { result: ev.result } : {}), at, line: lineNo });
      }
    } catch (err) {
      if (!(err instanceof LineProblem)) throw err;
      if (problems.length < MAX_PROBLEMS) problems.push({ file, line: lineNo, message: err.message, ...(err.hint ? { hint: err.hint } : {}) });
      else more++;
    }
  }
  if (problems.length === 0 && sessions.length === 0) {
    problems.push({ file, line: 1, message: "the trace has no events", hint: `a trace starts with {"v":${TRACE_VERSION},"type":"session","name":"…","at":"…"}, one JSON object a line` });
  }
  if (problems.length > 0) throw new TraceError(problems, more);
  return { file, sessions, calls };
}

/**
 * The session an event belongs to (its index): its `run`'s, else the latest. A run-less event
 * after a run's session was not written by that run: which session it belongs to is unknown.
 */
function sessionOf(ev: Record<string, unknown>, type: string, current: TraceSession | undefined, latest: number, runs: ReadonlyMap<string, number>): number {
  if (ev.run !== undefined) {
    if (typeof ev.run !== "string" || !RUN.test(ev.run)) fail(`\`run\` must be the name of a run, not ${describe(ev.run)}`);
    const where = runs.get(ev.run as string);
    if (where === undefined) fail(`this \`${type}\` event names run \`${ev.run as string}\`, which no earlier \`session\` line opens`, "a run's `session` line comes before its other lines: was it cut (a crash) or deleted? Its lines cannot be replayed as another session's");
    return where!;
  }
  if (!current) fail(`the trace starts with a \`${type}\` event, before any \`session\``, `begin the trace with {"v":${TRACE_VERSION},"type":"session","name":"…","at":"…"}`);
  if (current!.run !== undefined) fail(`this \`${type}\` event names no \`run\`, but the session it follows (line ${current!.line}) is run \`${current!.run}\`'s`, "a gateway writes its `run` on every line: a line without one was written by something else, and replay cannot tell which session it belongs to");
  return latest;
}

/**
 * A gateway's call ids are `<run>-<n>`: in a gateway session, every call is of one run, and a run's
 * calls are in one session. Otherwise two gateways appended to the file at once (or a `session`
 * line was cut or deleted), and a call would be replayed in a session it was not made in.
 */
function gatewayRun(id: string, here: number, session: TraceSession, idRuns: { session: Map<string, number>; run: Map<number, string> }): void {
  const run = session.gateway ? GATEWAY_ID.exec(id)?.[1] : undefined;
  if (run === undefined) return;
  const where = idRuns.session.get(run);
  const mine = session.run ?? idRuns.run.get(here);
  if ((where !== undefined && where !== here) || (mine !== undefined && mine !== run)) {
    fail(`call \`${id}\` is of gateway run \`${run}\`, but the session it would belong to (line ${session.line}) is ${mine !== undefined ? `run \`${mine}\`'s` : "another run's"}`, "two gateways appended to this file at once, or a `session` line was cut or deleted: replay cannot tell which session each line belongs to. A gateway of this version writes `run` on every line, so runs appended at once stay apart");
  }
  idRuns.session.set(run, here);
  idRuns.run.set(here, run);
}

/** JSON, an object, a known type, known fields only. */
function readLine(raw: string): Record<string, unknown> {
  let ev: unknown;
  try {
    ev = JSON.parse(raw);
  } catch (err) {
    torn(raw, (err as Error).message);
    fail(`not JSON: ${(err as Error).message}`, "each line of a trace is one JSON object; a value may not span lines");
  }
  if (typeof ev !== "object" || ev === null || Array.isArray(ev)) fail(`an event must be a JSON object, not ${describe(ev)}`, "each line of a trace is one JSON object");
  // JSON.parse keeps the last of a key given twice, where grep and most viewers show the first:
  // a line that reads two ways is refused, as unknown fields are (audit 7, F5)
  const twice = duplicateKey(raw);
  if (twice) fail(`the key \`${twice.key}\` is given twice in one object (at \`${twice.pointer || "/"}\`)`, "give each key once: JSON.parse would read the last, most readers show the first");
  const o = ev as Record<string, unknown>;
  if (!("type" in o)) fail("the event has no `type`", `\`type\` is one of ${TYPES.map((t) => `\`${t}\``).join(", ")}`);
  if (typeof o.type !== "string" || !TYPES.includes(o.type)) {
    const near = typeof o.type === "string" ? closest(o.type, TYPES) : undefined;
    fail(`unknown event type ${typeof o.type === "string" ? `\`${o.type}\`` : describe(o.type)}`, `${near ? `did you mean \`${near}\`? ` : ""}event types are ${TYPES.map((t) => `\`${t}\``).join(", ")}`);
  }
  const known = FIELDS[o.type as string]!;
  for (const k of Object.keys(o)) {
    if (!known.includes(k)) {
      const near = closest(k, known);
      fail(`unknown field \`${k}\` in a \`${o.type as string}\` event`, `${near ? `did you mean \`${near}\`? ` : ""}a \`${o.type as string}\` event has ${known.map((f) => `\`${f}\``).join(", ")}`);
    }
  }
  if ("v" in o && o.type !== "session" && o.v !== TRACE_VERSION) fail(`\`v\` must be ${TRACE_VERSION} (or left out) on a \`${o.type as string}\` event, not ${describe(o.v)}`);
  return o;
}

function readSession(ev: Record<string, unknown>, line: number): TraceSession {
  if (!("v" in ev)) fail("a `session` event needs the trace version `v`", `write "v":${TRACE_VERSION}`);
  if (ev.v !== TRACE_VERSION) fail(`trace version ${JSON.stringify(ev.v) ?? "?"} is not one this stalwart reads`, `this stalwart reads trace version ${TRACE_VERSION}; record the trace again or upgrade stalwart`);
  if (typeof ev.name !== "string" || ev.name.length === 0 || ev.name.length > 200) fail(`a session's \`name\` must be a string of 1–200 characters, not ${describe(ev.name)}`);
  const s: TraceSession = { name: ev.name as string, at: readAt(ev, true)!, line, events: [] };
  if (ev.language !== undefined && ev.language !== null) {
    if (!LANGUAGES.includes(ev.language as Language)) {
      const near = typeof ev.language === "string" ? closest(ev.language, LANGUAGES) : undefined;
      fail(`\`language\` must be \`en\` or \`pt-BR\`, not ${describe(ev.language)}`, near ? `did you mean \`${near}\`?` : "the language is chosen, never guessed; leave it out to use the catalogue's");
    }
    s.language = ev.language as Language;
  }
  if (ev.context !== undefined && ev.context !== null) s.context = object(ev.context, "context");
  if (ev.agent !== undefined && ev.agent !== null) {
    if (typeof ev.agent !== "string") fail(`a session's \`agent\` must be a string or null, not ${describe(ev.agent)}`);
    s.agent = ev.agent as string;
  }
  if (ev.run !== undefined) {
    if (typeof ev.run !== "string" || !RUN.test(ev.run)) fail(`a session's \`run\` must be a word of letters, digits, \`_\` and \`-\`, not ${describe(ev.run)}`, "`stalwart gateway --trace` writes it; leave it out otherwise");
    s.run = ev.run as string;
  }
  if (ev.gateway !== undefined && ev.gateway !== false) {
    if (ev.gateway !== true) fail(`a session's \`gateway\` must be true or false, not ${describe(ev.gateway)}`, "`stalwart gateway --trace` writes it; leave it out otherwise");
    s.gateway = true;
  }
  return s;
}

function readCall(ev: Record<string, unknown>, at: number, line: number, ref: (id: unknown, field: string) => string): TraceCall {
  if (typeof ev.id !== "string" || !ID.test(ev.id)) {
    fail(`a call's \`id\` must be a word of letters, digits, \`_\` and \`-\` starting with a letter, not ${describe(ev.id)}`, "e.g. \"id\":\"c1\"; ids never look like step numbers, so `result:c1.total` is unambiguous");
  }
  if (typeof ev.tool !== "string" || ev.tool.length === 0) fail(`a call's \`tool\` must be the tool's name, not ${describe(ev.tool)}`);
  if (!("args" in ev)) fail("a call needs its `args`", "write \"args\":{} for a call without arguments");
  const call: TraceCall = { type: "call", id: ev.id as string, tool: ev.tool as string, args: ev.args, at, line };
  if (ev.origins !== undefined && ev.origins !== null) {
    // argument names from the trace: set as own entries (`__proto__` is a name like any other)
    const origins = Object.create(null) as Record<string, TraceOrigin>;
    for (const [arg, o] of Object.entries(object(ev.origins, "origins"))) defineOwn(origins, arg, readOrigin(arg, o, ref));
    call.origins = origins;
  }
  if (ev.labels !== undefined && ev.labels !== null) {
    const labels = Object.create(null) as Record<string, string[]>;
    for (const [k, v] of Object.entries(object(ev.labels, "labels"))) {
      if (!Array.isArray(v) || v.some((l) => typeof l !== "string")) fail(`\`labels.${k}\` must be a list of label strings, not ${describe(v)}`, "e.g. \"labels\":{\"call\":[\"untrusted:read_inbox\"]}");
      defineOwn(labels, k, v as string[]);
    }
    call.labels = labels;
  }
  if (ev.agent !== undefined) {
    if (ev.agent !== null && typeof ev.agent !== "string") fail(`a call's \`agent\` must be a string or null, not ${describe(ev.agent)}`);
    call.agent = ev.agent as string | null;
  }
  if (ev.facts !== undefined && ev.facts !== null) call.facts = object(ev.facts, "facts");
  if (ev.undo_of !== undefined && ev.undo_of !== null) call.undoOf = ref(ev.undo_of, "undo_of");
  if (ev.approved !== undefined && ev.approved !== null) {
    if (typeof ev.approved !== "boolean") fail(`\`approved\` must be true or false, not ${describe(ev.approved)}`, "true: the person approved this call when asked; false: they declined");
    call.approved = ev.approved as boolean;
  }
  if (ev.approved_at !== undefined && ev.approved_at !== null) {
    if (call.approved !== true) fail("`approved_at` without `\"approved\": true`", "`approved_at` says when the person approved; leave it out unless they did");
    const t = readAt({ at: ev.approved_at }, true, "approved_at")!;
    if (t < at) fail(`\`approved_at\` ${iso(t)} is before the call's \`at\` ${iso(at)}`, "a person approves a call after it is asked");
    call.approvedAt = t;
  }
  if (ev.verdict !== undefined && ev.verdict !== null) {
    if (!VERDICTS.includes(ev.verdict as Verdict)) fail(`\`verdict\` must be \`fine\` or \`harmful\`, not ${describe(ev.verdict)}`, "the verdict is the person's judgement of the call, after the fact");
    call.verdict = ev.verdict as Verdict;
  }
  return call;
}

/** `typed`, `model`, … as they are; `result:<id>` / `result:<id>.<path>` names an earlier call. */
function readOrigin(arg: string, o: unknown, ref: (id: unknown, field: string) => string): TraceOrigin {
  if (typeof o !== "string" || o.length === 0) fail(`\`origins.${arg}\` must be an origin string, not ${describe(o)}`, "e.g. \"typed\", \"model\", \"context\", \"result:c1.total\"");
  const s = o as string;
  if (!s.startsWith("result:")) return { word: s };
  const m = /^result:([^.[\]]*)(?:\.(.+))?$/.exec(s);
  const id = m?.[1] ?? "";
  if (/^[0-9]+$/.test(id)) fail(`\`origins.${arg}\` names a step number (\`${s}\`); a trace names calls by id`, `write \`result:<id>${m?.[2] ? `.${m[2]}` : ""}\` with the id of the call whose result this is; replay maps it to its step`);
  if (!m || !ID.test(id)) fail(`\`origins.${arg}\` is not \`result:<call id>\` or \`result:<call id>.<path>\`: \`${s}\``, "e.g. \"result:c3.total\" or \"result:c2.orders[1].order_id\"");
  return { call: ref(id, `origins.${arg}`), path: m![2] ?? "" };
}
