/**
 * The SDK against a running check worker (`new Client({ url, key })`): the same session API over
 * HTTP. The caller carries the session, so every answer replaces the local copy. Past the
 * deadline (`timeoutMs`, default 2 s), or on any transport error, a check answers `refuse` with
 * `check_unavailable`: the caller never runs a tool because the gate did not answer.
 */
import { existsSync, readFileSync } from "node:fs";
import { stringify } from "yaml";
import type { SavedSession } from "../../worker/portable/engine/index.js";
import type { CallOptions, CheckResult } from "../../worker/portable/engine/index.js";
import type { Entry, Outcome } from "../../worker/portable/engine/index.js";
import { CatalogueError, CheckTimeout, InputError, LicenceRequired, StalwartError, sha256Hex } from "../../worker/portable/engine/index.js";
import { looksLikeRulebookPath, readRulebookInput } from "./rulebook-node.js";
import type { SessionCore } from "../../worker/portable/engine/index.js";
import type { FollowPlan, Judged, UndoPlan } from "../../worker/portable/engine/index.js";

export interface RemoteOptions {
  url: string;
  key?: string;
  timeoutMs?: number;
  /** a test clock: sent as `x-stalwart-now`, honoured only by a worker run with STALWART_TEST_CLOCK=1 */
  now?: () => Date;
}

class Unavailable extends StalwartError {
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

  async send(method: string, path: string, body: unknown, contentType = "application/json"): Promise<any> {
    const timeout = this.o.timeoutMs ?? 2000;
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
        signal: AbortSignal.timeout(timeout),
      });
    } catch (err) {
      const name = (err as Error)?.name;
      // A deadline that passed is its own error; a check turns either into `check_unavailable`.
      if (name === "TimeoutError" || name === "AbortError") throw new CheckTimeout(timeout);
      throw new Unavailable(`the check worker could not be reached (${(err as Error).message})`);
    }
    let data: any;
    try {
      data = await res.json();
    } catch {
      throw new Unavailable(`the check worker answered ${res.status} without JSON`);
    }
    // The worker runs under its own licence (worker/workerd/check/LICENCE.md): without one it answers
    // nothing, and says so with a code — the SDK's `LicenceRequired`, as in-process.
    if (data?.error?.code === "licence_required" || data?.error?.code === "licence_invalid") {
      throw new LicenceRequired(`the check worker has no valid licence: ${String(data.error.message ?? data.error.code)}`, "give the worker its licence (STALWART_LICENCE, see worker/workerd/check/LICENCE.md); locally `npm run dev` activates one with `stalwart licence activate` against the dev licence service");
    }
    if (res.status >= 500) throw new Unavailable(`the check worker failed (${res.status} ${data?.error?.code ?? ""})`);
    if (!res.ok) {
      const e = data?.error ?? {};
      if (e.code === "catalogue_invalid" && Array.isArray(e.problems)) throw new CatalogueError(e.problems);
      throw new StalwartError(String(e.code ?? `http_${res.status}`), String(e.message ?? `the check worker answered ${res.status}`));
    }
    return data;
  }
}

/** Register a catalogue given as a path, YAML text or object; a bare name is one already registered. */
export async function ensureCatalogue(http: Http, input: string | object): Promise<string> {
  let text: string;
  if (typeof input === "object" && input !== null) text = stringify(input);
  else if (typeof input === "string" && !input.includes("\n") && !/\.(ya?ml|json)$/i.test(input)) return input;
  else if (typeof input === "string" && !input.includes("\n")) {
    if (!existsSync(input)) throw new CatalogueError([{ file: input, line: 1, column: 1, pointer: "", message: `catalogue file \`${input}\` does not exist` }]);
    text = readFileSync(input, "utf8");
  } else text = String(input);
  const name = `sdk-${sha256Hex(text).slice(0, 24)}`;
  await http.send("PUT", `/v1/catalogues/${name}`, text, "application/yaml");
  return name;
}

/**
 * Register a rulebook given as a path (.yaml/.yml/.csv, a registry folder or its registry.json),
 * its text, registry JSON or an object; a bare name is one already registered. Returns the name.
 */
export async function ensureRulebook(http: Http, input: string | object): Promise<string> {
  if (typeof input === "string" && !input.includes("\n") && !looksLikeRulebookPath(input) && !input.trimStart().startsWith("{")) return input;
  const r = readRulebookInput(input);
  const text = r.kind === "object" ? (r.registry ? JSON.stringify(r.value) : stringify(r.value)) : r.text;
  const type = r.kind === "registry" || (r.kind === "object" && r.registry) ? "application/json" : /^\ufeff?"?name"?\s*,/i.test(text) ? "text/csv" : "application/yaml";
  const name = `sdk-${sha256Hex(text).slice(0, 24)}`;
  await http.send("PUT", `/v1/rulebooks/${name}`, text, type);
  return name;
}

/**
 * The session's operations against a check worker (a `SessionCore`: `SerialSession` sends one
 * request at a time, each carrying the state the previous answer returned).
 */
export class RemoteSession implements SessionCore {
  private state: Promise<SavedSession>;
  private current?: SavedSession;

  constructor(private readonly http: Http, state: Promise<SavedSession>, private readonly clock: () => Date = () => new Date()) {
    this.state = state.then((s) => (this.current = s));
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
    const session = await this.state;
    const r = await this.http.send("POST", "/v1/filter", { session, step, result });
    return r.kept;
  }

  private async plan(body: Record<string, unknown>): Promise<unknown> {
    const session = await this.state;
    const r = await this.http.send("POST", "/v1/plan", { session, ...body });
    return r.plan;
  }

  get id(): string {
    return this.current?.id ?? "";
  }

  /** The entries this client carries: plain objects; an edit is detected by the worker at the next check. */
  get history(): { entries: Entry[] } {
    const self = this;
    return {
      get entries() {
        return self.current?.entries ?? [];
      },
      set entries(v: Entry[]) {
        if (self.current) self.current.entries = v;
      },
    };
  }

  async read(text: string): Promise<{ step: number }> {
    const session = await this.state;
    const r = await this.http.send("POST", "/v1/sessions/read", { session, text });
    this.current = r.session;
    this.state = Promise.resolve(r.session);
    return { step: r.step };
  }

  async checkToolCall(tool: string, args: unknown, options: CallOptions = {}): Promise<CheckResult> {
    let session: SavedSession;
    try {
      session = await this.state;
    } catch (err) {
      if (err instanceof LicenceRequired) throw err;
      return unavailable(err);
    }
    try {
      const r = await this.http.send("POST", "/v1/check", { session, tool, args, options });
      this.current = r.session;
      this.state = Promise.resolve(r.session);
      return r.check as CheckResult;
    } catch (err) {
      if (err instanceof Unavailable || err instanceof CheckTimeout) return unavailable(err);
      throw err;
    }
  }

  async report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    const session = await this.state;
    const r = await this.http.send("POST", "/v1/report", { session, step, outcome, ...(result !== undefined ? { result } : {}) });
    this.current = r.session;
    this.state = Promise.resolve(r.session);
    return { step: r.step };
  }

  toJSON(): SavedSession {
    if (!this.current) throw new StalwartError("SessionNotReady", "the session has not been created on the worker yet; await a call first");
    return structuredClone(this.current);
  }
}

function unavailable(err: unknown): CheckResult {
  return { decision: "refuse", reasons: ["check_unavailable"], detail: { message: (err as Error)?.message ?? String(err) }, step: -1 };
}
