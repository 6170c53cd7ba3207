/**
 * The SDK against a running check worker (`new Client({ url, key })`): the same session API over
 * HTTP. The caller carries the session (remote-carried.ts: the worker is sent only what it does
 * not hold, and every answer's entries are added to the local copy). Past the
 * deadline (`timeoutMs`, default 2 s), or on any transport error, a check answers `refuse` with
 * `check_unavailable`: the caller never runs a tool because the gate did not answer.
 */
import { notUtf8, utf8Text } from "./utf8-text.js";
import { existsSync, readFileSync } from "node:fs";
import { stringify } from "yaml";
import type { ReadAnswer, SavedSession } from "../../worker/portable/engine/index.js";
import type { CallOptions, CheckResult } from "../../worker/portable/engine/index.js";
import type { Entry, Outcome } from "../../worker/portable/engine/index.js";
import { CallerHistory, CatalogueError, CheckTimeout, InputError, LicenceInvalid, LicenceRequired, StalwartError, errorFromWire, rulebookFormatOf, sha256Hex, wireOf } from "../../worker/portable/engine/index.js";
import { looksLikeRulebookPath, readRulebookInput } from "./rulebook-node.js";
import type { SessionCore } from "../../worker/portable/engine/index.js";
import type { FollowPlan, Judged, SignedReceipt, UndoPlan } from "../../worker/portable/engine/index.js";
import { CarriedSession } from "./remote-carried.js";
import { fetchFailure } from "./fetch-failure.js";

export interface RemoteOptions {
  url: string;
  key?: string;
  timeoutMs?: number;
  /** a test clock: sent as `x-stalwart-now`, honoured only by a worker run with STALWART_TEST_CLOCK=1 */
  now?: () => Date;
}

export class Unavailable extends StalwartError {
  constructor(message: string) {
    super("CheckUnavailable", message, { hint: "is the check worker running? (`npm run dev`)" });
  }
}

export class Http {
  readonly base: string;
  constructor(private readonly o: RemoteOptions) {
    if (typeof o.url !== "string" || !/^https?:\/\//.test(o.url)) throw new InputError("`url` must be an http(s) URL of a check worker", "/url");
    this.base = o.url.replace(/\/+$/, "");
  }

  get timeoutMs(): number {
    return this.o.timeoutMs ?? 2000;
  }

  /**
   * `answered`: filled with what the answer says of itself (the session forms the worker takes).
   * `signal`: a deadline shared with other requests of one operation; else this request's own.
   */
  async send(method: string, path: string, body: unknown, contentType = "application/json", answered?: { forms?: string | null }, signal?: AbortSignal): Promise<any> {
    const timeout = this.timeoutMs;
    let res: Response;
    try {
      res = await fetch(this.base + path, {
        method,
        headers: {
          "content-type": contentType,
          ...(this.o.key ? { authorization: `Bearer ${this.o.key}` } : {}),
          ...(this.o.now ? { "x-stalwart-now": String(this.o.now().getTime()) } : {}),
        },
        body: typeof body === "string" ? body : JSON.stringify(body),
        // A worker never redirects: one followed would send the carried session to another
        // address and take that address's answer as the check's (an allow included).
        redirect: "error",
        signal: signal ?? AbortSignal.timeout(timeout),
      });
    } catch (err) {
      const name = (err as Error)?.name;
      // A deadline that passed is its own error; a check turns either into `check_unavailable`.
      if (name === "TimeoutError" || name === "AbortError") throw new CheckTimeout(timeout);
      throw new Unavailable(`the check worker could not be reached (${fetchFailure(err)})`);
    }
    let data: any;
    try {
      data = await res.json();
    } catch {
      throw new Unavailable(`the check worker answered ${res.status} without JSON`);
    }
    if (!res.ok) throw answerError(res.status, data);
    if (answered) answered.forms = res.headers.get("stalwart-session-forms");
    return data;
  }
}

/**
 * A worker's error answer as the error the same call throws in process: the same class and `code`
 * (the engine's one registry, `errorFromWire`). The worker's licence errors are the SDK's
 * (worker/workerd/check/LICENCE.md); any other 5xx means the worker could not check: unavailable.
 */
function answerError(status: number, data: unknown): StalwartError {
  const error = typeof data === "object" && data !== null ? (data as { error?: unknown }).error : undefined;
  const err = errorFromWire(error, status);
  // A code the worker does not define (a proxy's 429 or 408, another service at the URL): not
  // the worker's answer, so no answer: a check refuses, anything else throws CheckUnavailable.
  if (err.code.startsWith("http_")) return new Unavailable(`the check worker's address answered ${status}, not in the worker's error form (${err.message.slice(0, 200)})`);
  if (isLicenceError(err) || status < 500) return err;
  return new Unavailable(`the check worker failed (${status} ${wireOf(err.code)})`);
}

const isLicenceError = (err: unknown): boolean => err instanceof LicenceRequired || err instanceof LicenceInvalid;

/** Register a catalogue given as a path, YAML text or object; a bare name is one already registered. */
export async function ensureCatalogue(http: Http, input: string | object, signal?: AbortSignal): Promise<string> {
  let text: string;
  if (typeof input === "object" && input !== null) text = stringify(input);
  else if (typeof input === "string" && !input.includes("\n") && !/\.(ya?ml|json)$/i.test(input)) return input;
  else if (typeof input === "string" && !input.includes("\n")) {
    if (!existsSync(input)) throw new CatalogueError([{ file: input, line: 1, column: 1, pointer: "", message: `catalogue file \`${input}\` does not exist` }]);
    const read = utf8Text(readFileSync(input));
    if (!read.ok) throw new CatalogueError([{ file: input, line: read.line, column: read.column, pointer: "", ...notUtf8("catalogue", read) }]);
    text = read.text;
  } else text = String(input);
  const name = `sdk-${sha256Hex(text).slice(0, 24)}`;
  await http.send("PUT", `/v1/catalogues/${name}`, text, "application/yaml", undefined, signal);
  return name;
}

/**
 * Register a rulebook given as a path (.yaml/.yml/.csv, a registry folder or its registry.json),
 * its text, registry JSON or an object; a bare name is one already registered. Returns the name.
 */
export async function ensureRulebook(http: Http, input: string | object, signal?: AbortSignal): Promise<string> {
  if (typeof input === "string" && !input.includes("\n") && !looksLikeRulebookPath(input) && !input.trimStart().startsWith("{")) return input;
  const r = readRulebookInput(input);
  const text = r.kind === "object" ? (r.registry ? JSON.stringify(r.value) : stringify(r.value)) : r.text;
  // a `.csv` file goes up as CSV whatever its first column, as it loads in process (the worker reads `text/csv` so)
  const csv = r.kind === "rulebook" && rulebookFormatOf(text, r.file ? { file: r.file } : {}) === "csv";
  const type = r.kind === "registry" || (r.kind === "object" && r.registry) ? "application/json" : csv ? "text/csv" : "application/yaml";
  const name = `sdk-${sha256Hex(text).slice(0, 24)}`;
  await http.send("PUT", `/v1/rulebooks/${name}`, text, type, undefined, signal);
  return name;
}

/**
 * The session's operations against a check worker (a `SessionCore`: `SerialSession` sends one
 * request at a time, each carrying the state the previous answer returned).
 */
export class RemoteSession implements SessionCore {
  private state: Promise<CarriedSession>;
  private current?: CarriedSession;

  constructor(private readonly http: Http, state: Promise<SavedSession>, private readonly clock: () => Date = () => new Date()) {
    this.state = state.then((s) => (this.current = new CarriedSession(s)));
    this.state.catch(() => {});
  }

  planUndo(tool: string, args: Record<string, unknown>, result: unknown): Promise<UndoPlan | null> {
    return this.plan({ kind: "undo", tool, args, result }) as Promise<UndoPlan | null>;
  }
  planFollow(tool: string, step: number, args: Record<string, unknown>, result: unknown): Promise<FollowPlan | null> {
    return this.plan({ kind: "follow", tool, step, args, result }) as Promise<FollowPlan | null>;
  }
  judgeOutcome(tool: string, result: unknown): Promise<Judged> {
    return this.plan({ kind: "judge", tool, result }) as Promise<Judged>;
  }
  now(): Date {
    return this.clock();
  }

  async filter(step: number, result: unknown): Promise<unknown> {
    const r = await this.send("/v1/filter", { step, result });
    return r.kept;
  }

  private async plan(body: Record<string, unknown>): Promise<unknown> {
    const r = await this.send("/v1/plan", body);
    return r.plan;
  }

  /**
   * POST `body` with the session; a worker that does not hold the entries the delta form left out
   * (409 `session_history_needed`: another isolate, a restart) is sent the session in full once,
   * within the same deadline.
   * The answer's session, if any, is taken into the local copy, and the next request is in the
   * delta form only if this answer said the worker takes it (an older worker does not: it would
   * answer the delta form `history_invalid`).
   */
  private async send(path: string, body: Record<string, unknown>): Promise<any> {
    const carried = await this.state;
    let r: any;
    const answered: { forms?: string | null } = {};
    // one deadline for the operation: a resend in full does not get a second `timeoutMs`
    const deadline = AbortSignal.timeout(this.http.timeoutMs);
    try {
      r = await this.http.send("POST", path, { session: carried.wire(), ...body }, undefined, answered, deadline);
    } catch (err) {
      if (!(err instanceof StalwartError) || err.code !== "session_history_needed") throw err;
      r = await this.http.send("POST", path, { session: carried.wire(true), ...body }, undefined, answered, deadline);
    }
    if (r && typeof r === "object" && "session" in r) {
      try {
        carried.take(r.session, /(^|,)\s*delta\s*(,|$)/.test(answered.forms ?? ""));
      } catch (err) {
        // a session this client cannot take is no answer: a check refuses, anything else throws
        throw new Unavailable(`the check worker's answer is not one this client can take (${(err as Error).message})`);
      }
    }
    return r;
  }

  get id(): string {
    return this.current?.id ?? "";
  }

  /** The entries this client carries: plain objects; an edit is detected by the worker at the next check. */
  get history(): { entries: Entry[] } {
    // a class made once, not a literal with accessors per read (engine history/caller-history.ts)
    return (this.historyView ??= new CallerHistory(() => this.current));
  }
  private historyView: CallerHistory | undefined;

  async read(text: string): Promise<ReadAnswer> {
    const r = await this.send("/v1/sessions/read", { text });
    const step = stepOf(r); // an answer that is not the worker's throws here, before it is read further
    const why = (r as { restarted?: { why?: unknown } | null }).restarted?.why;
    return typeof why === "string" ? { ...step, restarted: { why } } : step;
  }

  async checkToolCall(tool: string, args: unknown, options: CallOptions = {}): Promise<CheckResult> {
    // as for the check itself: only a worker that did not answer is a refusal; a bad catalogue, a
    // wrong key or a licence error while the session was made rejects with its typed error
    try {
      await this.state;
    } catch (err) {
      if (err instanceof Unavailable || err instanceof CheckTimeout) return unavailable(err);
      throw err;
    }
    try {
      const r = await this.send("/v1/check", { tool, args, options });
      // a 200 that is not a check (a proxy, another service at the URL) is no answer: never handed on
      if (!isCheck(r?.check)) return unavailable(new Unavailable("the check worker answered 200 without a check"));
      // the worker answers every check with the session that records it: a check recorded nowhere the client holds is no answer
      if (!("session" in r)) return unavailable(new Unavailable("the check worker answered a check without the session that records it"));
      return r.check;
    } catch (err) {
      if (err instanceof Unavailable || err instanceof CheckTimeout) return unavailable(err);
      throw err;
    }
  }

  async report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    return stepOf(await this.send("/v1/report", { step, outcome, ...(result !== undefined ? { result } : {}) }));
  }

  /** A person's signed decision, recorded in the history the worker seals (approvals, issue 12). */
  async receipt(signed: SignedReceipt): Promise<{ step: number }> {
    return stepOf(await this.send("/v1/receipts", { receipt: signed }));
  }

  toJSON(): SavedSession {
    if (!this.current) throw new StalwartError("SessionNotReady", "the session has not been created on the worker yet; await a call first");
    return this.current.saved();
  }
}

const DECISIONS: readonly unknown[] = ["allow", "confirm", "refuse"];
function isCheck(v: unknown): v is CheckResult {
  if (typeof v !== "object" || v === null) return false;
  const c = v as Record<string, unknown>;
  return DECISIONS.includes(c.decision) && Array.isArray(c.reasons) && c.reasons.every((x) => typeof x === "string") && Number.isInteger(c.step);
}

/**
 * The step a 200 answer names; an answer without one, or without the session that records it (the
 * worker answers every turn, report and receipt with it), is no answer (never `{ step: undefined }`).
 */
function stepOf(r: unknown): { step: number } {
  if (typeof r !== "object" || r === null || !("session" in r)) throw new Unavailable("the check worker answered without the session that records the step");
  const step = (r as { step?: unknown }).step;
  if (typeof step !== "number" || !Number.isSafeInteger(step) || step < 0) throw new Unavailable("the check worker answered 200 without the step it recorded");
  return { step };
}

function unavailable(err: unknown): CheckResult {
  return { decision: "refuse", reasons: ["check_unavailable"], detail: { message: (err as Error)?.message ?? String(err) }, step: -1 };
}
