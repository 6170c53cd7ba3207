/**
 * Replay a parsed trace through the check (interfaces.md, CLI `replay`): each `session` event opens
 * a session, each turn is read, each call is checked, each outcome of a call the replay allowed is
 * reported — in trace order (the file's: runs written at once are replayed interleaved, each line in its own session), with the clock at each event's `at`, so that token expiry and
 * per-period limits answer as they would have live.
 *
 * The trace's call ids are mapped to the replayed session's step numbers: the step that was allowed
 * (after an approval, the step the token was presented at), else the step of the call's last check.
 * An approval comes with its call (`approved`) or later, as an `answer` event: the token is then
 * presented at the answer's time, where the live session presented it.
 * `undo_of` and `result:<id>.<path>` origins are rewritten with that number.
 * An outcome's result is reported as the gateway and the SDK record one (`recordable`): a lone
 * surrogate as U+FFFD, a number JSON cannot carry left out, rather than the line refused.
 */
import type { CallOptions, CheckResult } from "../../worker/portable/engine/index.js";
import type { Outcome } from "../../worker/portable/engine/index.js";
import { CatalogueError, StalwartError, defineOwn, recordable } from "../../worker/portable/engine/index.js";
import { TraceError, type Language, type Trace, type TraceCall, type TraceEvent, type TraceOutcome, type Verdict } from "./trace.js";

/** What replay needs of a session: the SDK's `ClientSession` (in-process or a worker's). */
export interface ReplaySession {
  read(text: string): Promise<unknown>;
  checkToolCall(tool: string, args: unknown, options?: CallOptions): Promise<CheckResult>;
  report(step: number, outcome: Outcome, result?: unknown): Promise<unknown>;
}

export interface SessionSpec {
  name: string;
  language?: Language;
  context?: Record<string, unknown>;
  agent?: string;
  /** the trace's session was the gateway's (`gateway: true`) */
  gateway?: boolean;
}

/** The injected clock: replay sets it to each event's time before the SDK reads it. */
export class ReplayClock {
  ms = 0;
  readonly now = (): Date => new Date(this.ms);
}

export interface ReplayedCall {
  id: string;
  session: string;
  tool: string;
  line: number;
  /** the answer to the call as proposed */
  check: CheckResult;
  /** the answer when the approval's token was presented (`approved: true` on a confirm) */
  afterApproval?: CheckResult;
  approved?: boolean;
  verdict?: Verdict;
  /** the step the replay allowed it at (it would have run), else null */
  allowedStep: number | null;
  /** the trace's outcomes of this call; `reported` false: the replay did not allow the call */
  outcomes: { outcome: TraceOutcome; line: number; reported: boolean }[];
}

export interface ReplayResult {
  trace: Trace;
  sessions: { name: string; language: Language | null; calls: number }[];
  calls: ReplayedCall[];
}

export interface ReplayOptions {
  open(spec: SessionSpec): ReplaySession;
  clock: ReplayClock;
  /** after each call: how many calls are done, of how many */
  onProgress?(done: number, total: number): void;
  /** the language a session that names none is checked in (the catalogue's): the report says it (outside audit 26, F2) */
  defaultLanguage?: Language;
}

/** What replay keeps of a session it has opened. */
interface Open {
  session: ReplaySession;
  name: string;
  byId: Map<string, ReplayedCall>;
  /** a confirmed call's check again with its token, for an `answer` event that approves it */
  presents: Map<string, (token: string) => Promise<CheckResult>>;
  calls: ReplayedCall[];
  summary: ReplayResult["sessions"][number];
}

export async function replayTrace(trace: Trace, opts: ReplayOptions): Promise<ReplayResult> {
  const { clock } = opts;
  const open: Open[] = [];
  let done = 0;
  // Every line in the file's order, whichever session it belongs to: two gateways' runs written
  // at once interleave, and what they share (the home's counters) is counted in the order it was live.
  const order: { i: number; line: number; ev?: TraceEvent }[] = [];
  trace.sessions.forEach((spec, i) => {
    order.push({ i, line: spec.line });
    for (const ev of spec.events) order.push({ i, line: ev.line, ev });
  });
  order.sort((a, b) => a.line - b.line);
  for (const { i, ev } of order) {
    const spec = trace.sessions[i]!;
    if (!ev) {
      clock.ms = spec.at;
      const session = sdk(trace, spec.line, () =>
        opts.open({
          name: spec.name,
          ...(spec.language ? { language: spec.language } : {}),
          ...(spec.context ? { context: spec.context } : {}),
          ...(spec.agent ? { agent: spec.agent } : {}),
          ...(spec.gateway ? { gateway: true } : {}),
        }),
      );
      open[i] = { session, name: spec.name, byId: new Map(), presents: new Map(), calls: [], summary: { name: spec.name, language: spec.language ?? opts.defaultLanguage ?? null, calls: 0 } };
      continue;
    }
    const o = open[i]!;
    const { session, byId, presents } = o;
    /** the replayed step a trace id stands for */
    const stepOf = (id: string): number => {
      const c = byId.get(id)!;
      return c.allowedStep ?? (c.afterApproval ?? c.check).step;
    };
    clock.ms = ev.at;
    if (ev.type === "turn") {
      await sdkAsync(trace, ev.line, () => session.read(ev.text));
    } else if (ev.type === "call") {
      const { rec, present } = await replayCall(trace, session, o.name, ev, stepOf, clock);
      byId.set(ev.id, rec);
      presents.set(ev.id, present);
      o.calls.push(rec);
      o.summary.calls++;
      opts.onProgress?.(++done, trace.calls);
    } else if (ev.type === "answer") {
      const rec = byId.get(ev.call)!;
      rec.approved = ev.approved;
      const token = rec.check.confirmation;
      if (ev.approved && rec.check.decision === "confirm" && token !== undefined) {
        rec.afterApproval = await sdkAsync(trace, ev.line, () => presents.get(ev.call)!(token));
        if (rec.afterApproval.decision === "allow") rec.allowedStep = rec.afterApproval.step;
      }
    } else {
      const rec = byId.get(ev.call)!;
      const reported = rec.allowedStep !== null;
      // a tool's result as it came (text cut inside an emoji, 1e400) is recorded as live, not refused
      if (reported) await sdkAsync(trace, ev.line, () => session.report(rec.allowedStep!, ev.outcome, ev.result === undefined ? undefined : recordable(ev.result)));
      rec.outcomes.push({ outcome: ev.outcome, line: ev.line, reported });
    }
  }
  // the report lists each session's calls together, sessions in the order they started
  return { trace, sessions: open.map((o) => o.summary), calls: open.flatMap((o) => o.calls) };
}

async function replayCall(trace: Trace, session: ReplaySession, sessionName: string, ev: TraceCall, stepOf: (id: string) => number, clock: ReplayClock): Promise<{ rec: ReplayedCall; present: (token: string) => Promise<CheckResult> }> {
  const options: CallOptions = {};
  if (ev.origins) {
    const origins = Object.create(null) as Record<string, string>;
    for (const [arg, o] of Object.entries(ev.origins)) {
      defineOwn(origins, arg, "word" in o ? o.word : `result:${stepOf(o.call)}${o.path ? `.${o.path}` : ""}`);
    }
    options.origins = origins;
  }
  if (ev.labels) options.labels = ev.labels;
  if (typeof ev.agent === "string") options.agent = ev.agent;
  if (ev.facts) options.facts = ev.facts;
  if (ev.undoOf !== undefined) options.undoOf = stepOf(ev.undoOf);

  const check = await sdkAsync(trace, ev.line, () => session.checkToolCall(ev.tool, ev.args, options));
  const present = (token: string) => session.checkToolCall(ev.tool, ev.args, { ...options, confirmation: token });
  const rec: ReplayedCall = {
    id: ev.id, session: sessionName, tool: ev.tool, line: ev.line, check, allowedStep: null, outcomes: [],
    ...(ev.approved !== undefined ? { approved: ev.approved } : {}),
    ...(ev.verdict ? { verdict: ev.verdict } : {}),
  };
  if (check.decision === "confirm" && ev.approved === true && check.confirmation !== undefined) {
    // The person approved when asked: the call comes back with the token, checked at step 10.
    clock.ms = ev.approvedAt ?? ev.at;
    const token = check.confirmation;
    rec.afterApproval = await sdkAsync(trace, ev.line, () => present(token));
  }
  const last = rec.afterApproval ?? check;
  if (last.decision === "allow") rec.allowedStep = last.step;
  return { rec, present };
}

/** An SDK error while replaying a line is that line's problem, not a crash. */
function sdk<T>(trace: Trace, line: number, f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw lineError(trace, line, err);
  }
}

async function sdkAsync<T>(trace: Trace, line: number, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    throw lineError(trace, line, err);
  }
}

function lineError(trace: Trace, line: number, err: unknown): unknown {
  if (!(err instanceof StalwartError) || err instanceof TraceError || err instanceof CatalogueError) return err;
  return new TraceError([{ file: trace.file, line, message: `the check could not replay this line: ${err.code}: ${err.message}`, ...(err.hint ? { hint: err.hint } : {}) }]);
}
