/**
 * What goes the other way: from the tool server to the person's client (docs/gateway.md, "From the
 * tool server to the client").
 *
 *   - requests: `sampling/createMessage`, `elicitation/create`, `roots/list`. The upstream is one
 *     connection shared by every downstream one, and JSON-RPC does not say which call a request
 *     belongs to, so it goes to the client whose request the gateway is forwarding right now — only
 *     when that is one connection (several clients' calls in flight: an error, never a guess),
 *     and only when that client declared the capability (else an error). On a 2025-era connection
 *     it is sent to the client during the call; 2026-07-28 has no mid-call requests, so there the
 *     call is held and the request goes back in the call's answer (held-calls.ts). A tool
 *     server's own question is marked as its own, so the person can tell it from stalwart's
 *     approval question.
 *   - `notifications/message`: to the client whose request is in flight, else to every open
 *     connection, each at the level it set;
 *   - `notifications/resources/updated`: to the connections that subscribed to that URI.
 *
 * None of this is a way around the check: what a client answers goes to the tool server inside a
 * call the check already allowed, and any tool call it leads to is a `tools/call` like any other.
 */
import { CLIENT_CAPABILITIES_META_KEY, LOG_LEVEL_META_KEY, PROTOCOL_VERSION_META_KEY, ProtocolError, ProtocolErrorCode, type Server, type ServerContext } from "@modelcontextprotocol/server";
import { quotedName } from "./words.js";
import { visible } from "../../worker/portable/approvals/visible.js";

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type Level = (typeof LEVELS)[number];

/** Where a 2026-07-28 client's call takes the tool server's requests (held-calls.ts). */
export type Hold = (method: string, params: Record<string, unknown>, signal: AbortSignal) => Promise<Record<string, unknown>>;

interface InFlight {
  server: Server;
  ctx: ServerContext;
  hold?: Hold;
}

/** The methods a tool server may ask the client, and the capability each needs. */
const NEEDS: Record<string, "sampling" | "elicitation" | "roots"> = { "sampling/createMessage": "sampling", "elicitation/create": "elicitation", "roots/list": "roots" };

export interface RelayOptions {
  /** how long the client may take to answer (a person may be answering an elicitation) */
  askTimeoutMs: number;
  /** the tool server's name, for the person */
  serverName: () => string;
  log: (line: string) => void;
  /** what the client wrote back to the tool server (a sampled message, a form's answer): kept as sent (call-inputs.ts) */
  sent?: (answer: unknown) => void;
}

export class Relay {
  private readonly inflight: InFlight[] = [];
  private readonly open = new Set<Server>();
  private readonly levels = new WeakMap<Server, Level>();
  private readonly subscribed = new Map<Server, Set<string>>();
  private readonly contexts = new WeakMap<ServerContext, Server>();

  constructor(private readonly o: RelayOptions) {}

  /** A downstream connection opened; returns what to call when it closes (its subscriptions end with it). */
  add(server: Server): () => string[] {
    this.open.add(server);
    return () => {
      this.open.delete(server);
      const uris = [...(this.subscribed.get(server) ?? [])];
      this.subscribed.delete(server);
      return uris.filter((u) => !this.held(u));
    };
  }

  /** Remember which connection a request came on (server.ts, before the handler's work). */
  bind(ctx: ServerContext, server: Server): void {
    this.contexts.set(ctx, server);
  }

  /** Run `fn` (a request forwarded upstream) with `ctx`'s client as where the tool server's requests go meanwhile. */
  async during<T>(ctx: ServerContext, fn: () => Promise<T>, hold?: Hold): Promise<T> {
    const server = this.contexts.get(ctx);
    if (!server) return fn();
    const entry: InFlight = { server, ctx, ...(hold ? { hold } : {}) };
    this.inflight.push(entry);
    try {
      return await fn();
    } finally {
      const i = this.inflight.indexOf(entry);
      if (i >= 0) this.inflight.splice(i, 1);
    }
  }

  /** A request from the tool server: relayed to the one client whose call is in flight, or refused with why. */
  async request(method: string, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
    const need = Object.hasOwn(NEEDS, method) ? NEEDS[method] : undefined;
    if (!need) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, `the gateway does not relay ${method}`);
    const to = this.target();
    const refuse = (why: string) => {
      this.o.log(`relay ${method}: not relayed: ${why}`);
      return new ProtocolError(ProtocolErrorCode.InvalidRequest, `stalwart gateway: ${method} not relayed to the client: ${why}`);
    };
    if (!to) throw refuse(this.inflight.length ? "calls of several clients are in flight, and JSON-RPC does not say which one this belongs to" : "no call of a client is in flight (the gateway relays a tool server's requests only during a call it forwards)");
    const modern = modernOf(to.ctx);
    if (modern && !to.hold) throw refuse("the client speaks protocol 2026-07-28, which has no requests from a server in the middle of a call");
    // a 2026-07-28 request carries the client's capabilities itself
    const caps = ((modern ? envelopeOf(to.ctx)[CLIENT_CAPABILITIES_META_KEY] : undefined) ?? to.server.getClientCapabilities() ?? {}) as Record<string, unknown>;
    if (caps[need] === undefined || caps[need] === null) throw refuse(`the client did not declare ${need}`);
    let sent = params ?? {};
    if (method === "elicitation/create") {
      const e = caps.elicitation as { form?: unknown; url?: unknown };
      const mode = sent.mode === "url" ? "url" : "form";
      const modes = e.form === undefined && e.url === undefined ? ["form"] : [...(e.form !== undefined ? ["form"] : []), ...(e.url !== undefined ? ["url"] : [])];
      if (!modes.includes(mode)) throw refuse(`the client does not take ${mode} elicitation`);
      // its 2026-07-28 shape drops the 2025 elicitationId that the tool server's completion notice names
      if (modern && mode === "url") throw refuse("URL-mode elicitation is not relayed to a 2026-07-28 client");
      sent = { ...sent, message: ownQuestion(this.o.serverName(), sent.message) };
    }
    // A sampled message is the client's model writing to the tool server, and an answer to the tool
    // server's own form may be too (a host may let its model answer): a read that hands either back
    // vouches for nothing (outside audit 25, F2, F7)
    const wrote = (r: Record<string, unknown>) => {
      if (method !== "roots/list") this.o.sent?.(r);
      return r;
    };
    if (modern) return wrote(await to.hold!(method, sent, signal));
    this.o.log(`relay ${method}: from the tool server to the client`);
    try {
      const r: unknown = await to.ctx.mcpReq.send({ method: method as "roots/list", params: sent }, { signal, timeout: this.o.askTimeoutMs });
      return wrote(r as Record<string, unknown>);
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      throw new ProtocolError(ProtocolErrorCode.InternalError, `stalwart gateway: the client did not answer ${method}: ${(err as Error).message}`);
    }
  }

  /** `logging/setLevel` of one connection (the upstream is told too: server.ts). */
  setLevel(server: Server, level: unknown): void {
    if (typeof level === "string" && (LEVELS as readonly string[]).includes(level)) this.levels.set(server, level as Level);
  }

  /** `notifications/message` from the tool server. */
  message(params: Record<string, unknown>): void {
    const level = params.level;
    const passes = (threshold: unknown) => typeof threshold !== "string" || rank(level) >= rank(threshold);
    const to = this.target();
    if (to) {
      const modern = modernOf(to.ctx);
      // 2026-07-28: a request carries its own level, and without one it gets no log messages (the SDK's rule)
      const threshold = modern ? envelopeOf(to.ctx)[LOG_LEVEL_META_KEY] : this.levels.get(to.server);
      if ((modern && threshold === undefined) || !passes(threshold)) return;
      void to.ctx.mcpReq.notify({ method: "notifications/message", params: params as never }).catch(() => undefined);
      return;
    }
    for (const s of this.open) if (passes(this.levels.get(s))) void s.sendLoggingMessage(params as never).catch(() => undefined);
  }

  /** Record a subscription; true when it is the first for that URI (the upstream is asked then). */
  subscribe(server: Server, uri: string): boolean {
    const first = !this.held(uri);
    let set = this.subscribed.get(server);
    if (!set) this.subscribed.set(server, (set = new Set()));
    set.add(uri);
    return first;
  }

  /** Drop one; true when no connection holds that URI any more (the upstream is told then). */
  unsubscribe(server: Server, uri: string): boolean {
    this.subscribed.get(server)?.delete(uri);
    return !this.held(uri);
  }

  /** `notifications/resources/updated` from the tool server: to the connections that subscribed. */
  updated(params: Record<string, unknown>): void {
    const uri = params.uri;
    if (typeof uri !== "string") return;
    for (const [s, set] of this.subscribed) if (set.has(uri)) void s.sendResourceUpdated(params as never).catch(() => undefined);
  }

  private held(uri: string): boolean {
    for (const set of this.subscribed.values()) if (set.has(uri)) return true;
    return false;
  }

  /** The client whose request is in flight, when it is one connection (the latest request of it). */
  private target(): InFlight | undefined {
    const last = this.inflight.at(-1);
    if (!last) return undefined;
    return this.inflight.every((d) => d.server === last.server) ? last : undefined;
  }
}

function envelopeOf(ctx: ServerContext): Record<string, unknown> {
  return (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
}

/** A 2026-07-28 request carries its protocol version in its envelope; a 2025-era one does not. */
export function modernOf(ctx: ServerContext): boolean {
  return envelopeOf(ctx)[PROTOCOL_VERSION_META_KEY] !== undefined;
}

function rank(level: unknown): number {
  return typeof level === "string" ? (LEVELS as readonly string[]).indexOf(level) : -1;
}

/** A tool server's own question, marked so the person never takes it for stalwart's approval of a call. */
function ownQuestion(server: string, message: unknown): string {
  // its hidden characters named, as in stalwart's own question: nothing in it reads otherwise than it is
  return `[The tool server ${quotedName(server)} asks this itself. It is not stalwart's approval of a call: approving a call is only ever asked as "… needs your approval before it runs". Your answer goes to the tool server.]\n\n${typeof message === "string" ? visible(message) : ""}`;
}
