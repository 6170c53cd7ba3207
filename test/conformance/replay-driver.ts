/**
 * The conformance corpus through `stalwart replay`'s reading of a trace (cli/replay): a case's
 * steps are written as trace lines (docs/trace-format.md) as they come, and each check is answered
 * by replaying the whole trace so far in a fresh home, as `stalwart replay` does — parsed from its
 * text by `parseTrace`, checked by `replayTrace` with the case's catalogue and rulebook. So replay
 * is held to the same answers as the live check, step for step.
 *
 * What a trace cannot say is not replayed, and `notReplayable` names why: a trace is what happened
 * in one session at a time, so no edited history, no resume or fork, no concurrent calls, no
 * sessions interleaved; a confirmation token is not in a trace — an approved call is written once
 * with `approved: true`, so only a token presented right after its confirm, for the same call,
 * reads the same; an input refused as an error has no line to answer it.
 */
import { Client } from "../../cli/sdk/index.js";
import { parseTrace } from "../../cli/replay/trace.js";
import { ReplayClock, replayTrace, type ReplayedCall } from "../../cli/replay/replay.js";
import { licensedHome } from "../helpers/licensed-home.js";
import type { Case, Driver, DriverSession } from "./runner.js";

/** Why a case cannot be written as a trace, or null when it can. */
export function notReplayable(c: Case): string | null {
  if (c.sessions && Object.keys(c.sessions).length > 1) return "several sessions interleaved: a trace holds one session's events at a time";
  if (c.session?.taintModelAfterUntrusted) return "the trace format has no `taint_model_after_untrusted` session option";
  const saved = new Map<string, { index: number; key: string }>();
  const used = new Set<string>();
  for (const [i, s] of c.steps.entries()) {
    for (const k of ["history", "resume", "snapshot", "resume_snapshot"] as const) if (k in s) return `a \`${k}\` step: a trace is what happened, not a saved history to edit, resume or fork`;
    if ("together" in s) return "checks asked at once: a trace is in the order things happened";
    if ("expect_error" in s) return "an input refused as an error: replay reports it as a bad trace line, with no answer to compare";
    if ("advance" in s && s.advance.startsWith("-")) return "a clock set back: a trace is in the order things happened, and replay refuses time that goes backwards";
    if (!("check" in s)) continue;
    const k = s.check;
    if (k.explain) return "`explain` is an option of a live check, not a trace field";
    const key = JSON.stringify([k.tool, k.args ?? {}, k.origins ?? {}, k.labels ?? {}, k.agent ?? null, k.facts ?? null, k.undoOf ?? null]);
    if (s.save) saved.set(s.save, { index: i, key });
    if (k.confirmation === undefined) continue;
    const name = /^\$([^.]+)(?:\.confirmation)?$/.exec(k.confirmation)?.[1];
    const asked = name === undefined ? undefined : saved.get(name);
    if (!asked || used.has(name!)) return "a confirmation token presented other than once, for the call it was minted for: a trace says only that the person approved";
    if (asked.index !== i - 1 && !c.steps.slice(asked.index + 1, i).every((x) => "advance" in x)) return "a token presented after other steps: replay presents it right after the confirm";
    if (asked.key !== key) return "a token presented for another call than the one it was minted for: a trace writes the call once";
    used.add(name!);
  }
  return null;
}

type Line = Record<string, unknown>;

/** One case's session, written as a trace and answered by replaying it. */
class TraceSession implements DriverSession {
  private readonly lines: Line[];
  private calls = 0;
  /** the replayed step each call id was checked or allowed at, from the last replay */
  private ids = new Map<number, string>();
  /** the call id each token the driver handed out belongs to */
  private readonly tokens = new Map<string, string>();

  constructor(
    name: string,
    private readonly opts: Record<string, unknown>,
    private readonly now: () => Date,
  ) {
    const { language, context, agent } = opts as { language?: string; context?: Record<string, unknown>; agent?: string };
    this.lines = [{ v: 1, type: "session", name, ...(language ? { language } : {}), ...(context ? { context } : {}), ...(agent ? { agent } : {}), at: this.at() }];
  }

  get history(): { entries: unknown[] } {
    throw new Error("the replay driver keeps no signed history (notReplayable should have skipped this case)");
  }

  toJSON(): unknown {
    return this.history;
  }

  async read(text: string): Promise<unknown> {
    this.lines.push({ type: "turn", text, at: this.at() });
    return undefined;
  }

  async report(step: number, outcome: string, result?: unknown): Promise<unknown> {
    const id = this.ids.get(step);
    if (id === undefined) throw new Error(`report of step ${step}: no replayed call was allowed at it`);
    this.lines.push({ type: "outcome", call: id, outcome, ...(result !== undefined ? { result } : {}), at: this.at() });
    return undefined;
  }

  async checkToolCall(tool: string, args: unknown, options: Record<string, unknown> = {}) {
    const token = options.confirmation;
    if (typeof token === "string") {
      const id = this.tokens.get(token);
      const last = this.lines.at(-1);
      if (id === undefined || last?.type !== "call" || last.id !== id) throw new Error("a token presented other than right after its confirm (notReplayable should have skipped this case)");
      last.approved = true;
      last.approved_at = this.at();
      const rec = await this.replay(id);
      if (!rec.afterApproval) throw new Error(`call ${id} was approved, and replay presented no token: it answered ${rec.check.decision}`);
      return rec.afterApproval;
    }
    const id = `c${++this.calls}`;
    const line: Line = { type: "call", id, tool, args, at: this.at() };
    if (options.origins) line.origins = this.tracedOrigins(options.origins as Record<string, string>);
    if (options.labels) line.labels = options.labels;
    if (options.agent !== undefined) line.agent = options.agent;
    if (options.facts !== undefined) line.facts = options.facts;
    if (options.undoOf !== undefined) line.undo_of = this.idOf(options.undoOf as number);
    this.lines.push(line);
    const rec = await this.replay(id);
    if (rec.check.confirmation) this.tokens.set(rec.check.confirmation, id);
    return rec.check;
  }

  /** `result:<step>…` as a trace writes it, `result:<call id>…`; other origins as they are. */
  private tracedOrigins(origins: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [arg, o] of Object.entries(origins)) {
      const m = /^result:(\d+)(\..*)?$/.exec(o);
      out[arg] = m ? `result:${this.idOf(Number(m[1]))}${m[2] ?? ""}` : o;
    }
    return out;
  }

  private idOf(step: number): string {
    const id = this.ids.get(step);
    if (id === undefined) throw new Error(`step ${step} is no call the replay checked`);
    return id;
  }

  /** The trace so far, as text, replayed from the start in a fresh home: the call `id`'s answers. */
  private async replay(id: string): Promise<ReplayedCall> {
    const text = this.lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
    const trace = parseTrace(text, "conformance.jsonl");
    const clock = new ReplayClock();
    const client = new Client({ home: licensedHome("conf-replay"), now: clock.now });
    const { catalogue, rulebook } = this.opts as { catalogue: string | object; rulebook?: string };
    try {
      const r = await replayTrace(trace, {
        clock,
        open: (spec) => client.session(spec.name, { catalogue, ...(rulebook ? { rulebook } : {}), ...(spec.language ? { language: spec.language } : {}), ...(spec.context ? { context: spec.context } : {}), ...(spec.agent ? { agent: spec.agent } : {}) } as never),
      });
      this.ids = new Map();
      for (const c of r.calls) {
        this.ids.set(c.check.step, c.id);
        if (c.afterApproval) this.ids.set(c.afterApproval.step, c.id);
      }
      const rec = r.calls.find((c) => c.id === id);
      if (!rec) throw new Error(`replay answered nothing for call ${id}`);
      return rec;
    } finally {
      client.close();
    }
  }

  private at(): string {
    return this.now().toISOString();
  }
}

export const replayDriver: Driver = {
  name: "replay",
  session: (name, opts, now) => new TraceSession(name, opts, now),
  resume: () => {
    throw new Error("a trace is not resumed (notReplayable should have skipped this case)");
  },
};
