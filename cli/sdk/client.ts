/**
 * The SDK's `Client` (interfaces.md, "SDK"). In-process it runs the WASM check core inside Node;
 * with `{ url }` it speaks to a check worker with the same API (issue 4). Every method is async
 * so the two modes are interchangeable.
 */
import { Engine, MemoryStateStore, checkedClock } from "../../worker/portable/engine/index.js";
import { Session, type ReadAnswer, type SavedSession } from "../../worker/portable/engine/index.js";
import type { CompiledCatalogue, Language } from "../../worker/portable/engine/index.js";
import type { CallOptions, CheckResult } from "../../worker/portable/engine/index.js";
import type { Entry, Outcome } from "../../worker/portable/engine/index.js";
import { InputError } from "../../worker/portable/engine/index.js";
import { nodeCore } from "./wasm-node.js";
import { resolveHome } from "./home.js";
import { LoadedKey } from "./loaded-key.js";
import { bindKey } from "./state/key-bind.js";
import { nodeState } from "./state/index.js";
import { loadRulebookNode } from "./rulebook-node.js";
import type { CompiledRulebook } from "../../worker/portable/engine/index.js";
import { catalogueFrom, sourceTextOf } from "./catalogue-input.js";
import { CatalogueCache } from "./catalogue-cache.js";
import { checkClientOptions, checkResumeOptions, checkSessionOptions } from "./options.js";
import { canonicalize, loadCatalogue } from "../../worker/portable/engine/index.js";
import { ajvCompiler } from "./ajv-compiler.js";
import { Http, RemoteSession, Unavailable, ensureCatalogue, ensureRulebook } from "./remote.js";
import { SerialSession, type FollowPlan, type Judged, type SessionApi, type SessionCore, type UndoPlan } from "../../worker/portable/engine/index.js";
import { ClientLicence, pinBundles, type LicenceOption } from "./licence-gate.js";
import { describeSession, type SessionInfo } from "./session-info.js";
import { approvalPort } from "../approvals/port-node.js";
import { keyMac } from "../approvals/mac.js";
import { remoteApprovals } from "../approvals/remote.js";
import type { SignedReceipt } from "../../worker/portable/engine/index.js";

export interface ClientOptions {
  /** licence + state folder; default $STALWART_HOME or ~/.stalwart */
  home?: string;
  /** injectable clock */
  now?: () => Date;
  /** a check worker's base URL; absent = in-process */
  url?: string;
  key?: string;
  /** fail closed past this many milliseconds (worker mode) */
  timeoutMs?: number;
  /**
   * The licence in-process checks run under (licensing.md; ignored with `url`: a check worker
   * holds its own). Default: the installation in `home`, opened on the first session operation.
   * - an opened licence (`await openLicence(…)` from cli/licence, or anything with its
   *   `view()`, `count()` and `answered()`): shared as it is, never closed by this client;
   * - `{ home?, now?, serviceUrl?, fetch?, renew? }`: open the licence of another home — absent
   *   `home` means $STALWART_HOME, else ~/.stalwart — while the history key and the counters stay
   *   in this client's `home`. `stalwart replay` uses `{ now: () => new Date() }`: the user's
   *   licence on the real clock, a temporary state home on the trace's clock.
   */
  licence?: LicenceOption;
}

export interface SessionOptions {
  /** path to agent.yaml, its YAML text, or the parsed object */
  catalogue: string | object;
  rulebook?: string | object;
  language?: Language;
  context?: Record<string, unknown>;
  agent?: string;
  /** `model` arguments written after anything untrusted was read carry its label */
  taintModelAfterUntrusted?: boolean;
}

/**
 * How the gateway makes its client (cli/gateway/index.ts); not a `ClientOptions` key, because a
 * session whose kept state lives in one process must never be continued anywhere else.
 */
export interface ClientInternals {
  /**
   * The sessions' kept state (heads, spent names, tallies) in this process's memory instead of the
   * home's store; counters stay in the home's store, shared by every process. For sessions that
   * never leave the process that made them, as the gateway's: it holds the only copy of its history,
   * so there is no saved copy to come back old or twice, and the head the durable store would keep
   * is never read by anyone else. `resume` is refused on such a client.
   */
  sessionsInProcess?: boolean;
}

export class Client {
  readonly home: string;
  private readonly options: ClientOptions;
  private readonly internals: ClientInternals;
  private engineCache?: Engine;
  /** the history key the engine signs under, as loaded at its start: still the home's at every use */
  private loadedKey?: LoadedKey;
  private readonly http?: Http;
  private readonly licence: ClientLicence;
  /** catalogues and rulebooks this client loaded, by digest: what `resume(saved)` needs no options for */
  private readonly catalogues: CatalogueCache;
  private readonly rulebooks = new Map<string, CompiledRulebook>();

  constructor(options: ClientOptions = {}, internals: ClientInternals = {}) {
    checkClientOptions(options);
    // the clock checked once, for every reader: one that throws or gives no Date is ClockUnreadable
    this.options = options.now ? { ...options, now: checkedClock(options.now) } : options;
    options = this.options;
    this.internals = internals;
    this.home = resolveHome(options.home);
    this.catalogues = new CatalogueCache(this.home);
    this.licence = new ClientLicence(options.licence, this.home, options.now);
    if (options.url !== undefined) this.http = new Http({ url: options.url, ...(options.key ? { key: options.key } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.now ? { now: options.now } : {}) });
  }

  /** A new conversation's session. */
  session(name: string, options: SessionOptions): ClientSession {
    checkSessionOptions(name, options);
    if (this.http) {
      const http = this.http;
      // one deadline for making the session: its PUTs and POST together, not `timeoutMs` each
      const deadline = AbortSignal.timeout(http.timeoutMs);
      const created = ensureCatalogue(http, options.catalogue, deadline).then(async (catalogue) => {
        const rulebook = options.rulebook !== undefined ? await ensureRulebook(http, options.rulebook, deadline) : undefined;
        const r = await http.send("POST", "/v1/sessions", {
          catalogue, name,
          ...(rulebook ? { rulebook } : {}),
          ...(options.language ? { language: options.language } : {}),
          ...(options.context ? { context: options.context } : {}),
          ...(options.agent ? { agent: options.agent } : {}),
          ...(options.taintModelAfterUntrusted ? { taint_model_after_untrusted: true } : {}),
        }, undefined, undefined, deadline);
        // an answer without a session is no answer (the worker made none): the check refuses
        if (typeof r?.session !== "object" || r.session === null || Array.isArray(r.session)) throw new Unavailable("the check worker answered without the new session");
        return r.session as SavedSession;
      });
      const remote = new SerialSession(new RemoteSession(http, created, this.options.now), remoteApprovals(http));
      return describeSession(remote, this.infoOf(options.catalogue, options.language, options.context));
    }
    const catalogue = this.catalogue(options.catalogue);
    const rulebook = options.rulebook !== undefined ? this.rulebookFor(options.rulebook, catalogue) : undefined;
    const s = new Session(this.engine(), name, catalogue, {
      ...(rulebook ? { rulebook } : {}),
      ...(options.taintModelAfterUntrusted ? { taintModelAfterUntrusted: true } : {}),
      ...(options.language ? { language: options.language } : {}),
      ...(options.context ? { context: options.context } : {}),
      ...(options.agent ? { agent: options.agent } : {}),
    });
    return this.inProcess(s, catalogue);
  }

  /**
   * Continue a session saved with `toJSON()`, in this process or another. Without options the
   * catalogue (and rulebook) are the ones the saved session names by digest: loaded before by
   * this client, or kept under its home (catalogue-cache.ts); a worker finds them by digest.
   */
  resume(saved: SavedSession | string, options?: { catalogue?: string | object; rulebook?: string | object }): ClientSession {
    checkResumeOptions(options);
    const given = options ?? {};
    if (this.http) {
      const data = (typeof saved === "string" ? parseJson(saved) : saved) as SavedSession;
      // the worker checks the rest (`session_invalid`); what is not even an object is the caller's mistake
      if (typeof data !== "object" || data === null || Array.isArray(data)) throw new InputError("a saved session must be what `toJSON()` returned", "/");
      const http = this.http;
      const deadline = AbortSignal.timeout(http.timeoutMs);
      const ready = (given.catalogue !== undefined ? ensureCatalogue(http, given.catalogue, deadline) : Promise.resolve("")).then(async () => {
        if (given.rulebook !== undefined) await ensureRulebook(http, given.rulebook, deadline);
        return data;
      });
      const info = given.catalogue !== undefined ? this.infoOf(given.catalogue, data.language, data.context) : { catalogue: () => this.savedCatalogue(data), language: data.language, context: data.context ?? {} };
      return describeSession(new SerialSession(new RemoteSession(http, ready, this.options.now), remoteApprovals(http)), info);
    }
    if (this.internals.sessionsInProcess) {
      throw new InputError("this client keeps its sessions' state in its own process (the gateway's): a saved session is never continued here, where its forks could not be told apart", "/saved");
    }
    const data = typeof saved === "string" ? parseJson(saved) : saved;
    const catalogue = given.catalogue !== undefined ? this.catalogue(given.catalogue) : this.savedCatalogue(data);
    const rulebook = given.rulebook !== undefined ? this.rulebookFor(given.rulebook, catalogue) : this.savedRulebook(data);
    const s = Session.resume(this.engine(), catalogue, data, rulebook ? { rulebook } : {});
    return this.inProcess(s, catalogue);
  }

  /** An in-process session as users get it: under the licence and the loaded key, its approvals signed under that key. */
  private inProcess(s: Session, catalogue: CompiledCatalogue): ClientSession {
    const key = this.loadedKey!;
    const port = approvalPort(this.home, keyMac(key), catalogue, this.options.now, { counters: this.engine().counters, entries: () => s.history.entries });
    return describeSession(new SerialSession(new LicensedSession(s, this.licence, key), port), { catalogue: () => catalogue, language: s.language, context: s.context, inference: () => s.inferenceView() });
  }

  /** A remote session's catalogue, compiled here only when an adapter asks for it. */
  private infoOf(input: string | object, language: Language | undefined, context: Record<string, unknown> | undefined): SessionInfo {
    return new RemoteInfo(input, language, context ?? {});
  }

  /** `with Client() as client` in the seed's Python: writes the licence's counts now. */
  close(): void {
    this.licence.flush();
  }

  private catalogue(input: string | object): CompiledCatalogue {
    const core = this.engine().core;
    const compiled = catalogueFrom(input, { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
    this.catalogues.remember(compiled, input, () => sourceTextOf(compiled) ?? canonicalize(input));
    return compiled;
  }

  private rulebookFor(input: string | object, catalogue: CompiledCatalogue): CompiledRulebook {
    const core = this.engine().core;
    const compiled = loadRulebookNode(input, { catalogue, sha256: (b) => core.sha256(b) });
    this.rulebooks.set(compiled.digest, compiled);
    return compiled;
  }

  /** The catalogue a saved session names, when this client or its home has it; else how to pass it. */
  private savedCatalogue(saved: unknown): CompiledCatalogue {
    const digest = digestOf(saved, "catalogue");
    if (digest === undefined) throw new InputError("a saved session must be what `toJSON()` returned: it names no catalogue", "/catalogue");
    const sha256 = (b: Uint8Array) => nodeCore().sha256(b);
    const found = this.catalogues.recall(digest, (text, file) => loadCatalogue(text, { schemaCompiler: ajvCompiler, sha256, file }));
    if (found) return found;
    throw new InputError(
      `this client has not loaded the catalogue the saved session was checked against (${digest.slice(0, 12)}…), and \`${this.home}\` keeps no copy of it`,
      "/catalogue",
      `pass it: client.resume(saved, { catalogue: "agent.yaml" }) — the same catalogue the session started with`,
    );
  }

  /** The rulebook a saved session names (none: undefined), when this client loaded it; else how to pass it. */
  private savedRulebook(saved: unknown): CompiledRulebook | undefined {
    const digest = digestOf(saved, "rulebook");
    if (digest === undefined) return undefined;
    const found = this.rulebooks.get(digest);
    if (found) return found;
    throw new InputError(
      `the saved session was checked with a rulebook (${digest.slice(0, 12)}…) this client has not loaded`,
      "/rulebook",
      `pass it: client.resume(saved, { rulebook: "rules/" }) — the same rulebook the session started with`,
    );
  }

  private engine(): Engine {
    // a new session after `stalwart key reset` elsewhere: KeyChanged, as the running ones get (loaded-key.ts)
    if (this.engineCache) this.loadedKey!.check();
    else {
      const now = this.options.now;
      // One store under the home holds the counters and the session state (cli/sdk/state/STORAGE.md).
      // The key first: a fresh home makes it before any state, so state without a key is a lost key (home.ts).
      const key = new LoadedKey(this.home);
      const state = nodeState(this.home, now ? { now: () => now().getTime() } : {});
      bindKey(state.file, key.id, key.file);
      this.loadedKey = key;
      this.engineCache = new Engine({
        core: nodeCore(),
        key: key.key,
        schemaCompiler: ajvCompiler,
        counters: state,
        state: this.internals.sessionsInProcess ? new MemoryStateStore(now ? { now: () => now().getTime() } : {}) : state,
        licence: () => this.licence.gate(),
        ...(now ? { now } : {}),
      });
    }
    return this.engineCache;
  }
}

/** What users get from `session()` / `resume()`: the same API in both modes (serial-session.ts). */
export type ClientSession = SessionApi;

/**
 * The in-process session under the client's licence (cli/sdk/licence-gate.ts): every operation
 * waits for the licence first; a check counts the `tool_checks` meter and carries the bundles
 * pinned at the start. `SerialSession` puts its operations in one queue.
 */
class LicensedSession implements SessionCore {
  private licensed: Promise<void> | undefined;
  private bundles: Readonly<Record<string, string>> | undefined;

  constructor(private readonly inner: Session, private readonly licence: ClientLicence, private readonly key: LoadedKey) {}

  /**
   * Runs `work` once the licence is open, and while the home's key is still the one the session
   * signs under (KeyChanged otherwise); a failed open is retried by the next operation.
   */
  private whenLicensed<T>(work: () => Promise<T> | T): Promise<T> {
    if (!this.licensed) {
      const opened = this.licence.open().then(() => {
        this.bundles ??= pinBundles(this.licence.view());
      });
      opened.catch(() => {
        if (this.licensed === opened) this.licensed = undefined;
      });
      this.licensed = opened;
    }
    return this.licensed.then(() => {
      this.key.check();
      return work();
    });
  }

  get id(): string {
    return this.inner.id;
  }
  get history(): { entries: Entry[] } {
    return this.inner.history;
  }
  /** A person's turn — read during a lapse under `reads_only`, refused (`LicenceLapsed`) under `refuse` (licensing.md). */
  read(text: string): Promise<ReadAnswer> {
    return this.whenLicensed(() => {
      this.licence.answered();
      return this.inner.read(text);
    });
  }
  checkToolCall(tool: string, args: unknown, options?: CallOptions): Promise<CheckResult> {
    return this.whenLicensed(async () => {
      const refused = this.licence.count();
      if (refused) return refused;
      const r = await this.inner.checkToolCall(tool, args, options);
      // what the decision was made with, when asked (`explain`): the bundle digests pinned at the start
      if (this.bundles && options?.explain === true) r.detail.bundles = this.bundles;
      return r;
    });
  }
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    return this.whenLicensed(() => this.inner.report(step, outcome, result));
  }
  receipt(signed: SignedReceipt): Promise<{ step: number }> {
    return this.whenLicensed(() => this.inner.receipt(signed));
  }
  filter(step: number, result: unknown): Promise<unknown> {
    return this.whenLicensed(async () => (await this.inner.filter(step, result)).kept);
  }
  planUndo(tool: string, args: Record<string, unknown>, result: unknown): UndoPlan | null {
    return this.inner.planUndo(tool, args, result);
  }
  planFollow(tool: string, step: number, args: Record<string, unknown>, result: unknown): FollowPlan | null {
    return this.inner.planFollow(tool, step, args, result);
  }
  judgeOutcome(tool: string, followResult: unknown): Judged {
    return this.inner.judgeOutcome(tool, followResult);
  }
  now(): Date {
    return this.inner.now();
  }
  toJSON(): SavedSession {
    // the saved session is sealed under the key
    this.key.check();
    return this.inner.toJSON();
  }
}

/** A saved session's `catalogue` / `rulebook` digest, read without trusting its shape. */
function digestOf(saved: unknown, key: "catalogue" | "rulebook"): string | undefined {
  if (typeof saved !== "object" || saved === null || !Object.hasOwn(saved, key)) return undefined;
  const v = (saved as Record<string, unknown>)[key];
  return typeof v === "string" ? v : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`a saved session is not JSON: ${(err as Error).message}`);
  }
}

/**
 * A remote session's `SessionInfo`: its catalogue compiled here only when an adapter asks for it.
 * A class rather than a literal with `get language()` (engine history/caller-history.ts says why).
 */
class RemoteInfo implements SessionInfo {
  private compiled: CompiledCatalogue | undefined;
  constructor(private readonly input: string | object, private readonly given: Language | undefined, readonly context: Readonly<Record<string, unknown>>) {}

  catalogue(): CompiledCatalogue {
    return (this.compiled ??= catalogueFrom(this.input, { schemaCompiler: ajvCompiler, sha256: (b) => nodeCore().sha256(b) }));
  }

  get language(): Language {
    return this.given ?? this.catalogue().settings.language ?? "en";
  }
}
