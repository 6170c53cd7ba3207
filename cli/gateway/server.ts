/**
 * The MCP server the person's client talks to: one low-level SDK `Server` per downstream
 * connection (stdio) or request (2026-07-28 over HTTP), built by `serverFactory`, all sharing one
 * `Calls` (one stalwart session) and one upstream. The gateway owns dispatch, so it is built on
 * `Server`, not `McpServer`: `tools/list` answers with the upstream's own tool objects (only those
 * the catalogue names, `outputSchema` and `_meta` verbatim, page by page with the upstream's
 * cursor, less any pinned tool whose definition changed: pins.ts), and `tools/call` goes through
 * the check (calls.ts). Resources and prompts, when the upstream has them, are forwarded read-only:
 * listings as they are, and each `resources/read` / `prompts/get` checked and recorded as a read from
 * outside (outside.ts).
 */
import { CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode, Server, type JSONRPCRequest, type McpServerFactory, type ServerContext } from "@modelcontextprotocol/server";
import { cutText, type CompiledCatalogue } from "../../worker/portable/engine/index.js";
import type { Calls } from "./calls.js";
import { notAnswered, type Upstream } from "./upstream.js";
import { errorResult, type ToolResult } from "./words.js";
import { FORM_KEY } from "./form.js";
import type { Pins } from "./pins.js";
import { offered, type TaskTools } from "./task-tools.js";
import { readFromOutside } from "./outside.js";
import type { TraceFile } from "./trace-file.js";
import type { Relay } from "./relay.js";

export interface ServeOptions {
  catalogue: CompiledCatalogue;
  upstream: Upstream;
  calls: Calls;
  /** the way back: the tool server's requests, log messages and resource updates (relay.ts) */
  relay: Relay;
  /** how long the SDK waits for a person's answer to a pushed elicitation (2025-era clients) */
  askTimeoutMs: number;
  callTimeoutMs: number;
  pins: Pins;
  tasks: TaskTools;
  /** catalogue entries the gateway added itself (outside.ts), never offered as tools */
  hidden: ReadonlySet<string>;
  /** the tools the gateway's agent reaches (agent.ts); absent: every tool the catalogue names */
  reach?: ReadonlySet<string>;
  log: (line: string) => void;
  /** `--trace FILE`: the reads from outside go in it too (outside.ts) */
  trace?: TraceFile;
}

/** Servers of 2025-era connections that are open, for `list_changed` (2026-07-28 ones listen through the entry). */
export class LiveServers {
  private readonly servers = new Set<Server>();
  get size(): number {
    return this.servers.size;
  }
  add(s: Server): void {
    this.servers.add(s);
    const prev = s.onclose;
    s.onclose = () => {
      this.servers.delete(s);
      prev?.();
    };
  }
  toolsChanged(): void {
    for (const s of this.servers) void s.sendToolListChanged().catch(() => undefined);
  }
  resourcesChanged(): void {
    for (const s of this.servers) void s.sendResourceListChanged().catch(() => undefined);
  }
  promptsChanged(): void {
    for (const s of this.servers) void s.sendPromptListChanged().catch(() => undefined);
  }
}

export function serverFactory(o: ServeOptions, live: LiveServers): McpServerFactory {
  return () => {
    const server = buildServer(o);
    live.add(server);
    const closed = o.relay.add(server);
    const prev = server.onclose;
    server.onclose = () => {
      // its subscriptions end with it; the upstream is told of those no other connection holds
      for (const uri of closed()) void o.upstream.request("resources/unsubscribe", { uri }, { timeoutMs: o.callTimeoutMs }).catch(() => undefined);
      prev?.();
    };
    return server;
  };
}

/**
 * The SDK's Server, with a client's malformed params answered as Invalid params (-32602). The SDK
 * (2.4) checks a request's params before the handler runs and throws a plain Error when they do not
 * parse, which its dispatcher answers -32603 (internal error) with zod's issue list as the message:
 * a client's mistake reported as the gateway's. That check throws synchronously, before any of our
 * handlers (all async) run, so a synchronous throw here is exactly the params check. tools/call's
 * is made in the SDK's wrapper around the handler, already -32602: only its wording is ours.
 */
class GatewayServer extends Server {
  /** What each tools/call's handler answered first (the SDK hands every round the same request object). */
  private readonly first = new WeakMap<object, unknown>();
  /** Each tools/call's arguments as the client sent them, by its context (argumentsSent). */
  private readonly sent = new WeakMap<object, Record<string, unknown>>();

  /**
   * The arguments of the tools/call whose context is `ctx`, as sent, when the SDK's parse changed
   * them: it rebuilds `arguments` key by key, and an own `__proto__` key (JSON makes one) is lost
   * on the way, so an argument the catalogue does not declare would be dropped, not refused.
   */
  argumentsSent(ctx: object): Record<string, unknown> | undefined {
    return this.sent.get(ctx);
  }

  constructor(info: ConstructorParameters<typeof Server>[0], options: ConstructorParameters<typeof Server>[1], private readonly note: (line: string) => void) {
    super(info, options);
  }

  protected override _wrapHandler(method: string, handler: Parameters<Server["_wrapHandler"]>[1]): ReturnType<Server["_wrapHandler"]> {
    const checked: typeof handler = (request, ctx) => {
      try {
        if (method !== "tools/call") return handler(request, ctx);
        const args = (request.params as { arguments?: unknown } | undefined)?.arguments;
        if (typeof args === "object" && args !== null && !Array.isArray(args) && Object.hasOwn(args, "__proto__")) this.sent.set(ctx, args as Record<string, unknown>);
        return handler(request, ctx).then((r) => {
          if (!this.first.has(request)) this.first.set(request, r);
          return r;
        });
      } catch (err) {
        if (err instanceof ProtocolError) throw err;
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid params for ${method}: ${paramsProblem(err)}`);
      }
    };
    const wrapped = super._wrapHandler(method, checked);
    // tools/call's params are checked inside the SDK's own wrapper instead, which answers -32602
    // with "Invalid tools/call request: " and zod's issue list: said here as every other method's
    const prefix = `Invalid ${method} request: `;
    return async (request, ctx) => {
      try {
        const result = await wrapped(request, ctx);
        return method === "tools/call" ? (this.unreadableAnswer(request, result) ?? result) : result;
      } catch (err) {
        if (!(err instanceof ProtocolError) || err.code !== ProtocolErrorCode.InvalidParams) throw err;
        const at = err.message.indexOf(prefix);
        if (at < 0) throw err;
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid params for ${method}: ${paramsProblem(err.message.slice(at + prefix.length))}`);
      }
    };
  }

  /**
   * A 2025-era client is asked our question by the SDK (its legacy shim pushes `elicitation/create`
   * and calls the handler again with the answer). An answer the SDK cannot read (an unknown
   * `action`, content of the wrong shape, an error) never reaches the handler: the shim answers
   * with its own text and no decision. Said here as every other unapproved call is, and logged.
   */
  private unreadableAnswer(request: JSONRPCRequest, result: Record<string, unknown>): ToolResult | undefined {
    const first = this.first.get(request) as { inputRequests?: Record<string, unknown> } | undefined;
    if (!first?.inputRequests || !Object.hasOwn(first.inputRequests, FORM_KEY) || result.isError !== true) return undefined;
    const text = (result.content as { text?: unknown }[] | undefined)?.[0]?.text;
    if (typeof text !== "string" || !SHIM_FAILURES.some((p) => text.startsWith(p))) return undefined;
    const tool = String((request.params as { name?: unknown } | undefined)?.name ?? "the tool");
    // zod's issue list, when that is what the SDK says, as one line: "`action`: Invalid option: …"
    const said = text.replace(SHIM_FAILURES[0]!, "");
    const issues = /^Invalid result for [^:]+: (\[[\s\S]*\])$/.exec(said)?.[1];
    const why = (issues !== undefined ? paramsProblem(issues) : cutText(said, 300)).replace(/\s+/g, " ");
    this.note(`confirm ${tool}: the client's answer could not be read (${why}); it did not run`);
    return errorResult(`${tool} was not approved: the answer to the question could not be read (${why}), and the call did not run.`, { decision: "confirm", reasons: [], approved: false, answer: "unreadable" });
  }
}

/** How the SDK's legacy shim (2.4) words a question it could not get an answer to. */
const SHIM_FAILURES = ["Fulfilling input required by 'tools/call' failed: ", "Multi-round-trip request 'tools/call' still required input"];

/** zod's issue list (the SDK's message) as one line: "`params.uri`: expected string, received number". */
export function paramsProblem(err: unknown): string {
  const message = String((err as Error)?.message ?? err);
  try {
    const issues = JSON.parse(message) as { path?: unknown[]; message?: unknown }[];
    if (Array.isArray(issues) && issues.length > 0) {
      return issues.slice(0, 5).map((i) => `\`${Array.isArray(i.path) && i.path.length ? i.path.join(".") : "params"}\`: ${String(i.message ?? "invalid").replace(/^Invalid input: /, "")}`).join("; ");
    }
  } catch {
    // not zod's list: the message as it came
  }
  return cutText(message, 300);
}

/** How deep a client's `_meta` may nest: forwarded verbatim, deeper than the SDK can write out. */
export const META_DEPTH = 64;

/**
 * A request whose `_meta` nests past META_DEPTH is the client's mistake (-32602), said before it
 * is checked: forwarding it would fail in the SDK after the check allowed and recorded the call
 * (and reserved its counters), so the history would say `outcome_unknown` for a call never sent.
 */
function metaReadable(method: string, params: { _meta?: unknown } | undefined): void {
  const stack: [unknown, number][] = [[params?._meta, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth > META_DEPTH) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `invalid params for ${method}: \`_meta\` is nested more than ${META_DEPTH} levels deep`);
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push([x, depth + 1]);
  }
}

function buildServer(o: ServeOptions): Server {
  const up = o.upstream.capabilities();
  const has = (k: string) => up[k] !== undefined && up[k] !== null;
  const capabilities: Record<string, unknown> = { tools: { listChanged: true } };
  if (has("resources")) capabilities.resources = { listChanged: true };
  if (has("prompts")) capabilities.prompts = { listChanged: true };
  if (has("completions")) capabilities.completions = {};
  const subscribe = has("resources") && (up.resources as { subscribe?: unknown }).subscribe === true;
  if (subscribe) capabilities.resources = { listChanged: true, subscribe: true };
  // deprecated in 2026-07-28, still what 2025-era clients and servers use
  if (has("logging")) capabilities.logging = {};
  const server = new GatewayServer(
    { name: "stalwart-gateway", version: "0.1.0" },
    {
      capabilities,
      instructions: "Every tool call is checked by stalwart before it reaches the tool server; a call that needs a person is asked about through elicitation.",
      inputRequired: { roundTimeoutMs: o.askTimeoutMs },
    },
    o.log,
  );
  const forward = (method: string, params: Record<string, unknown> | undefined, ctx: ServerContext, raw = false) => {
    // what the model may have chosen, sent on: a read that hands it back later does not vouch for it (call-inputs.ts)
    o.calls.sentOn(params);
    return o.relay.during(ctx, () => o.upstream.request(method, params, { timeoutMs: o.callTimeoutMs, signal: ctx.mcpReq.signal, ...(raw ? { resultAs: null } : {}) })).catch((err: unknown) => {
      throw err instanceof ProtocolError ? err : new ProtocolError(ProtocolErrorCode.InternalError, notAnswered(err));
    });
  };

  // A read from outside: checked and recorded; one the check does not allow is a JSON-RPC error naming the reasons.
  const outside = async (method: "resources/read" | "prompts/get", params: Record<string, unknown> | undefined, ctx: ServerContext) => {
    metaReadable(method, params);
    await o.calls.settled();
    const r = await readFromOutside({ session: o.calls.session, infer: (t, a) => o.calls.infer(t, a), log: o.log, trace: o.trace }, method, params, () => forward(method, params, ctx));
    if (r.ok) return r.result;
    throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `stalwart did not forward ${method} (${r.check.decision}: ${r.check.reasons.join(", ")})`, { "stalwart-agents/check": { decision: r.check.decision, reasons: r.check.reasons, detail: r.check.detail, step: r.check.step } });
  };

  // Every forwarded request knows its connection: a tool server's request meanwhile goes back on it.
  const bound = (ctx: ServerContext) => (o.relay.bind(ctx, server), ctx);

  server.setRequestHandler("tools/list", async (request, ctx) => {
    // read raw, each tool as the SDK reads it: one that is not valid MCP is left out, not the page
    const page = await forward("tools/list", request.params?.cursor !== undefined ? { cursor: request.params.cursor } : undefined, bound(ctx), true);
    const tools = o.upstream.readable(Array.isArray(page.tools) ? page.tools : []);
    if (page.nextCursor !== undefined && typeof page.nextCursor !== "string") delete page.nextCursor;
    // Only the tools the catalogue names (and the agent reaches) and whose pinned definition holds; each one as the upstream described it.
    o.tasks.note(tools);
    const named = tools.filter((t: { name?: unknown }) => typeof t?.name === "string" && o.catalogue.tools.has(t.name) && !o.hidden.has(t.name) && (!o.reach || o.reach.has(t.name)));
    return { ...page, tools: o.pins.filterPage(named).map(offered) } as never;
  });

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const sent = server.argumentsSent(ctx);
    const params = (sent ? { ...request.params, arguments: sent } : request.params) as { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
    metaReadable("tools/call", params);
    o.relay.bind(ctx, server);
    try {
      return (await o.calls.call(params, ctx, () => canElicit(server, ctx))) as never;
    } catch (err) {
      if (ctx.mcpReq.signal.aborted) throw err;
      return errorResult(`stalwart could not complete ${params.name}: ${(err as Error).message}`) as never;
    }
  });

  if (has("resources")) {
    server.setRequestHandler("resources/list", async (r, ctx) => (await forward("resources/list", r.params, bound(ctx))) as never);
    server.setRequestHandler("resources/templates/list", async (r, ctx) => (await forward("resources/templates/list", r.params, bound(ctx))) as never);
    server.setRequestHandler("resources/read", async (r, ctx) => (await outside("resources/read", r.params, bound(ctx))) as never);
  }
  if (has("completions")) {
    // argument completion for prompts and resource templates: a read of the server's suggestions
    server.setRequestHandler("completion/complete", async (r, ctx) => (await forward("completion/complete", r.params, bound(ctx))) as never);
  }
  if (has("prompts")) {
    server.setRequestHandler("prompts/list", async (r, ctx) => (await forward("prompts/list", r.params, bound(ctx))) as never);
    server.setRequestHandler("prompts/get", async (r, ctx) => (await outside("prompts/get", r.params, bound(ctx))) as never);
  }
  if (subscribe) {
    // Subscribing selects nothing and returns nothing; the `resources/read` an update leads to is checked.
    server.setRequestHandler("resources/subscribe", async (r, ctx) => {
      if (o.relay.subscribe(server, r.params.uri)) {
        try {
          await forward("resources/subscribe", r.params, ctx);
        } catch (err) {
          o.relay.unsubscribe(server, r.params.uri);
          throw err;
        }
      }
      return {} as never;
    });
    server.setRequestHandler("resources/unsubscribe", async (r, ctx) => {
      if (o.relay.unsubscribe(server, r.params.uri)) await forward("resources/unsubscribe", r.params, ctx);
      return {} as never;
    });
  }
  if (has("logging")) {
    // One tool server behind every connection: it logs at the level set last; each connection still gets only its own level.
    server.setRequestHandler("logging/setLevel", async (r, ctx) => {
      o.relay.setLevel(server, r.params.level);
      await forward("logging/setLevel", r.params, ctx);
      return {} as never;
    });
  }
  return server;
}

/** Form elicitation, as this request's client declared it (2026-07-28: per request; 2025: at initialize). */
function canElicit(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = (envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities()) as { elicitation?: { form?: unknown; url?: unknown } } | undefined;
  const e = caps?.elicitation;
  if (e === undefined || e === null || typeof e !== "object") return false;
  // `elicitation: {}` means form mode (the 2025-11-25 default); `{url: {}}` alone does not.
  return e.form !== undefined || e.url === undefined;
}
