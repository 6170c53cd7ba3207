/**
 * The SDK's `Client` (interfaces.md, "SDK"). In-process it runs the WASM check core inside Node;
 * with `{ url }` it speaks to a check worker with the same API (issue 4). Every method is async
 * so the two modes are interchangeable.
 */
import { Engine } from "../worker/engine/engine.js";
import { Session, type SavedSession } from "../worker/engine/session.js";
import type { CompiledCatalogue, Language } from "../worker/engine/catalogue/types.js";
import type { CallOptions, CheckResult } from "../worker/engine/check/types.js";
import type { Entry, Outcome } from "../worker/engine/history/entry.js";
import { InputError } from "../worker/engine/errors.js";
import { nodeCore } from "./wasm-node.js";
import { installationKey, resolveHome } from "./home.js";
import { localCounters } from "./counters-node.js";
import { loadRulebookNode } from "./rulebook-node.js";
import type { CompiledRulebook } from "../worker/engine/rulebook/types.js";
import { catalogueFrom } from "./catalogue-input.js";
import { ajvCompiler } from "../worker/engine/schema/ajv.js";
import { Http, RemoteSession, ensureCatalogue, ensureRulebook } from "./remote.js";
import { GuardedSteps, type Impl, type RollbackStep, type RunOptions, type RunResult } from "../worker/engine/guarded.js";

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

export class Client {
  readonly home: string;
  private readonly options: ClientOptions;
  private engineCache?: Engine;
  private readonly http?: Http;

  constructor(options: ClientOptions = {}) {
    if (typeof options !== "object" || options === null) throw new InputError("Client options must be an object");
    this.options = options;
    this.home = resolveHome(options.home);
    if (options.url !== undefined) this.http = new Http({ url: options.url, ...(options.key ? { key: options.key } : {}), ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(options.now ? { now: options.now } : {}) });
  }

  /** A new conversation's session. */
  session(name: string, options: SessionOptions): ClientSession {
    if (this.http) {
      const http = this.http;
      const created = ensureCatalogue(http, options.catalogue).then(async (catalogue) => {
        const rulebook = options.rulebook !== undefined ? await ensureRulebook(http, options.rulebook) : undefined;
        const r = await http.send("POST", "/v1/sessions", {
          catalogue, name,
          ...(rulebook ? { rulebook } : {}),
          ...(options.language ? { language: options.language } : {}),
          ...(options.context ? { context: options.context } : {}),
          ...(options.agent ? { agent: options.agent } : {}),
          ...(options.taintModelAfterUntrusted ? { taint_model_after_untrusted: true } : {}),
        });
        return r.session as SavedSession;
      });
      return new RemoteSession(http, created, this.options.now) as unknown as ClientSession;
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
    return new ClientSession(s);
  }

  /** Continue a session saved with `toJSON()`, in this process or another. */
  resume(saved: SavedSession | string, options: { catalogue: string | object; rulebook?: string | object }): ClientSession {
    if (this.http) {
      const data = (typeof saved === "string" ? parseJson(saved) : saved) as SavedSession;
      const http = this.http;
      const ready = ensureCatalogue(http, options.catalogue).then(async () => {
        if (options.rulebook !== undefined) await ensureRulebook(http, options.rulebook);
        return data;
      });
      return new RemoteSession(http, ready, this.options.now) as unknown as ClientSession;
    }
    const data = typeof saved === "string" ? parseJson(saved) : saved;
    const catalogue = this.catalogue(options.catalogue);
    const rulebook = options.rulebook !== undefined ? this.rulebookFor(options.rulebook, catalogue) : undefined;
    return new ClientSession(Session.resume(this.engine(), catalogue, data, undefined, rulebook ? { rulebook } : undefined));
  }

  /** `with Client() as client` in the seed's Python; here a no-op kept for symmetry. */
  close(): void {}

  private catalogue(input: string | object): CompiledCatalogue {
    const core = this.engine().core;
    return catalogueFrom(input, { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
  }

  private rulebookFor(input: string | object, catalogue: CompiledCatalogue): CompiledRulebook {
    const core = this.engine().core;
    return loadRulebookNode(input, { catalogue, sha256: (b) => core.sha256(b) });
  }

  private engine(): Engine {
    if (!this.engineCache) {
      this.engineCache = new Engine({
        core: nodeCore(),
        key: installationKey(this.home),
        schemaCompiler: ajvCompiler,
        counters: localCounters(this.home),
        ...(this.options.now ? { now: this.options.now } : {}),
      });
    }
    return this.engineCache;
  }
}

/** The session API of interfaces.md, async so that it is the same against a worker. */
export class ClientSession {
  private readonly guarded: GuardedSteps;

  constructor(private readonly inner: Session) {
    this.guarded = new GuardedSteps(inner);
  }

  /** The guarded step: check, run `impl` once on allow, report what happened. */
  run(tool: string, args: Record<string, unknown>, options: RunOptions, impl: Impl): Promise<RunResult> {
    return this.guarded.run(tool, args, options ?? {}, impl);
  }
  approve(step: number): Promise<RunResult> {
    return this.guarded.approve(step);
  }
  deny(step: number): Promise<RunResult> {
    return this.guarded.deny(step);
  }
  rollback(): Promise<RollbackStep[]> {
    return this.guarded.rollback();
  }
  /** The records a read's `filter` passes on. */
  async filter(step: number, result: unknown): Promise<unknown> {
    return (await this.inner.filter(step, result)).kept;
  }

  get id(): string {
    return this.inner.id;
  }
  get history(): { entries: Entry[] } {
    return this.inner.history;
  }
  read(text: string): Promise<{ step: number }> {
    this.guarded.newRun();
    return this.inner.read(text);
  }
  checkToolCall(tool: string, args: unknown, options?: CallOptions): Promise<CheckResult> {
    return this.inner.checkToolCall(tool, args, options);
  }
  report(step: number, outcome: Outcome, result?: unknown): Promise<{ step: number }> {
    return this.inner.report(step, outcome, result);
  }
  toJSON(): SavedSession {
    return this.inner.toJSON();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`a saved session is not JSON: ${(err as Error).message}`);
  }
}
