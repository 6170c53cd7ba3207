/**
 * `stalwart gateway --trace FILE`: the calls the gateway checks, appended to FILE as a trace that
 * `stalwart replay` reads (docs/trace-format.md), so that a catalogue changed later can be tried on
 * what the agent really did. One `session` line as the gateway starts (`gateway: true`: replay adds
 * the entries for reads from outside, as the gateway does); then, in the order they happen:
 *
 *   - a `call` line for each call the check sees as the client proposed it (not the round that
 *     brings the person's answer, nor a held call's resumption), with the origins the gateway
 *     worked out, `result:<step>` written as `result:<the call's id>`;
 *   - an `answer` line when the person answers one (elicitation, or the approval store: an approval
 *     as its re-send comes, which is then no call of its own; a denial there as the same call
 *     comes again, or as the gateway stops — `proposed`, `decided`); an edit
 *     is not an approval of the call as proposed, so it is `approved: false`, and the edited call
 *     a `call` of its own;
 *   - an `outcome` line when the gateway reports what became of a call it forwarded;
 *   - the reads from outside (`resources/read`, `prompts/get`) as the calls of `resources_read`
 *     and `prompts_get` the check sees, so that what a later call copies from them is traced to them.
 *
 * Calls are named `<run>-<n>`, the run a random word of this process, so that the traces of
 * several runs appended to one file never share an id; and every line names its `run`, so that two
 * gateways appending to one file at once (two editor windows) stay apart: replay files each line
 * under its run's session, never under the other run's (audit 7, F1). A file whose last line was
 * cut (a crash mid-write) is continued on a new line, so the cut line stays one line of its own
 * and the next run's `session` line whole (F8). Times come from the gateway's clock and
 * never go backwards. The file holds arguments and results: it is created readable by its owner
 * only. Writing it is bookkeeping: a write that fails is said once on the log and tracing stops;
 * no call is refused for it.
 */
import { closeSync, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { approvalIdOf, InputError, tokenClaims, type ApprovalStore, type CheckResult, type InferredOrigin } from "../../worker/portable/engine/index.js";

export interface TraceSessionInfo {
  name: string;
  language: string;
  context: Record<string, unknown>;
  agent?: string;
}

/** How many calls' ids are remembered for origins and outcomes: the newest; an older one's origin is left out. */
const REMEMBERED = 100_000;

export class TraceFile {
  private fd: number | undefined;
  private lastMs = -Infinity;
  private n = 0;
  // 64 bits: a file appended to by thousands of runs still never holds two alike (replay refuses it)
  private readonly run = `g${randomBytes(8).toString("hex")}`;
  /** the step a call was allowed at → its id (its result's origins, its outcome) */
  private readonly byStep = new Map<number, string>();
  /** a confirm's token → the call it asked about (the person's answer) */
  private readonly byToken = new Map<string, string>();
  /** the tokens of asked calls not yet answered, by the call they cover (tool, argument digest) */
  private readonly waiting = new Map<string, Set<string>>();

  constructor(readonly file: string, private readonly now: () => Date, private readonly log: (line: string) => void) {}

  /** Open FILE for appending (made if missing, owner only) and write the session line; a FILE that cannot be opened is an InputError. */
  open(s: TraceSessionInfo): this {
    try {
      // read too, to see whether its last line was cut; a file we may only write is appended to all the same
      this.fd = openOr(this.file, "a+") ?? openSync(this.file, "a", 0o600);
    } catch (err) {
      throw new InputError(`--trace \`${this.file}\` cannot be opened for appending (${(err as Error).message})`, "/trace");
    }
    this.write({ v: 1, type: "session", name: s.name, at: this.at(), language: s.language, ...(Object.keys(s.context).length ? { context: s.context } : {}), ...(s.agent ? { agent: s.agent } : {}), gateway: true, run: this.run }, this.cutShort());
    return this;
  }

  /** The file does not end in a line break: its last line was cut (a crash mid-write), and ours must not be glued to it. */
  private cutShort(): boolean {
    try {
      const size = fstatSync(this.fd!).size;
      if (size === 0) return false;
      const last = Buffer.alloc(1);
      readSync(this.fd!, last, 0, 1, size - 1);
      return last[0] !== 0x0a;
    } catch {
      return false; // not readable (a device, a pipe): nothing of ours to be glued to
    }
  }

  /**
   * A call as the client sent it, after the gateway looked in the approval store: the re-send of a
   * call a person approved there (`approvedToken`) is that call, answered, not a call of its own;
   * and a "no" given there to an earlier ask of the same call is written before the call asked
   * again, so replay answers each as live did (audit 7, F9).
   */
  async proposed(tool: string, args: Record<string, unknown>, origins: Record<string, InferredOrigin>, check: CheckResult, store: ApprovalStore, approvedToken?: string): Promise<void> {
    if (this.fd === undefined || (approvedToken !== undefined && this.byToken.has(approvedToken))) return;
    if (check.confirmation) await this.decided(store, keyOf(check.confirmation));
    this.call(tool, args, origins, check);
  }

  /** A denial or edit in the store of a call this trace asked about (of the call `key`, else any), written as the person's answer. */
  async decided(store: ApprovalStore, key?: string): Promise<void> {
    const tokens = key === undefined ? [...this.waiting.values()].flatMap((t) => [...t]) : [...(this.waiting.get(key) ?? [])];
    for (const token of tokens) {
      // unreadable now: left unanswered, as the trace knows nothing of a decision
      const a = await Promise.resolve(store.get(approvalIdOf(token))).catch(() => undefined);
      if (a?.receipt && a.receipt.decision !== "approve") this.answer(token, false);
    }
  }

  /** A call as proposed, with the check's answer to it. */
  call(tool: string, args: Record<string, unknown>, origins: Record<string, InferredOrigin>, check: CheckResult): void {
    if (this.fd === undefined) return;
    const id = `${this.run}-${++this.n}`;
    const written: Record<string, string> = {};
    for (const k of Object.keys(origins)) {
      const o = this.originOf(origins[k]!.origin);
      if (o !== undefined) Object.defineProperty(written, k, { value: o, enumerable: true, writable: true, configurable: true }); // `__proto__` too
    }
    this.write({ type: "call", run: this.run, id, tool, args, ...(Object.keys(written).length ? { origins: written } : {}), at: this.at() });
    if (check.confirmation) {
      this.remember(this.byToken, check.confirmation, id);
      const key = keyOf(check.confirmation);
      if (key !== undefined) this.waiting.set(key, (this.waiting.get(key) ?? new Set()).add(check.confirmation));
    }
    if (check.decision === "allow") this.remember(this.byStep, check.step, id);
  }

  /** The person answered the call that `token` asked about; `check`, the call checked again with it. */
  answer(token: string, approved: boolean, check?: CheckResult): void {
    const id = this.byToken.get(token);
    if (this.fd === undefined || id === undefined) return;
    this.byToken.delete(token);
    const key = keyOf(token);
    const w = key === undefined ? undefined : this.waiting.get(key);
    w?.delete(token);
    if (w?.size === 0) this.waiting.delete(key!);
    this.write({ type: "answer", run: this.run, call: id, approved, at: this.at() });
    if (check?.decision === "allow") this.remember(this.byStep, check.step, id);
  }

  /** What became of the call allowed at `step`. */
  outcome(step: number, outcome: string, result?: unknown): void {
    const id = this.byStep.get(step);
    if (this.fd === undefined || id === undefined) return;
    this.write({ type: "outcome", run: this.run, call: id, outcome, ...(result !== undefined ? { result } : {}), at: this.at() });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** `result:<step>…` as the call's id; a word as it is; a step this trace has no call for (one older than REMEMBERED), left out. */
  private originOf(origin: string): string | undefined {
    const m = /^result:(\d+)(\..*)?$/.exec(origin);
    if (!m) return origin;
    const id = this.byStep.get(Number(m[1]));
    return id === undefined ? undefined : `result:${id}${m[2] ?? ""}`;
  }

  private at(): string {
    this.lastMs = Math.max(this.lastMs, this.now().getTime());
    return new Date(this.lastMs).toISOString();
  }

  private remember<K>(map: Map<K, string>, key: K, id: string): void {
    map.set(key, id);
    if (map.size > REMEMBERED) map.delete(map.keys().next().value as K);
  }

  /** One line, in one write: O_APPEND puts it whole after whatever another gateway wrote. */
  private write(event: Record<string, unknown>, newLineFirst = false): void {
    try {
      writeSync(this.fd!, (newLineFirst ? "\n" : "") + JSON.stringify(event) + "\n");
    } catch (err) {
      this.log(`trace: \`${this.file}\` could not be written (${(err as Error).message}); tracing stops, calls go on`);
      this.close();
    }
  }
}

function openOr(file: string, flags: string): number | undefined {
  try {
    return openSync(file, flags, 0o600);
  } catch {
    return undefined;
  }
}

/** The call a token covers: its tool and argument digest. */
function keyOf(token: string): string | undefined {
  const c = tokenClaims(token);
  return c ? `${c.tool}\u0000${c.digest}` : undefined;
}
