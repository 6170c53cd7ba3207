/**
 * The MCP tool server the gateway fronts: started from `-- CMD ARGS…` (stdio) or reached at
 * `--url` (streamable HTTP), through the SDK's own `Client`. Requests go out as raw JSON-RPC
 * (`client.request`), not `callTool`, so the result comes back as the server sent it: the SDK does
 * not validate `structuredContent` against a cached `outputSchema` here, and `_meta` is untouched.
 *
 * An upstream that dies is not the end of the gateway: the next request starts (or reaches) it
 * again once, and a call that cannot reach it answers `isError` (server.ts).
 */
import { Client, SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport, type StandardSchemaV1 } from "@modelcontextprotocol/client";
import { cutText, StalwartError } from "../../worker/portable/engine/index.js";
import { urlFailure } from "./url-failure.js";
import { inheritedEnv, ToolServerProcess } from "./tool-server-process.js";

export { inheritedEnv };

export type UpstreamSpec = { command: string; args: string[]; cwd?: string; env?: Record<string, string> } | { url: string; headers?: Record<string, string> };

/** A tool as the server listed it: a name, and the rest as it came. */
export type ListedTool = { name: string; [key: string]: unknown };

export interface UpstreamEvents {
  /** the server said its tool list changed */
  toolsChanged?: () => void;
  resourcesChanged?: () => void;
  promptsChanged?: () => void;
  /** a request of the server's own to the client (sampling, elicitation, roots): relay.ts */
  request?: (method: string, params: Record<string, unknown> | undefined, signal: AbortSignal) => Promise<Record<string, unknown>>;
  /** `notifications/message` */
  message?: (params: Record<string, unknown>) => void;
  /** `notifications/resources/updated` */
  resourceUpdated?: (params: Record<string, unknown>) => void;
  /** the server died or forgot the session: the next request starts another, maybe another build with other tools */
  lost?: () => void;
}

export type Progress = { progress: number; total?: number; message?: string };

/** Per request: long by default, because a tool may itself wait on a person. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  onprogress?: (p: Progress) => void;
  /** a progress token that outlives the request (`progressChannel`): a task's progress comes after its creation's answer */
  progress?: { token: string };
  /** the result as a task's creation (`task` in the params): checked for its task id only */
  creatingTask?: true;
  /** a method outside the SDK's spec (the tasks extension's): its result checked as `resultAs`'s, or only for being an object */
  resultAs?: string | null;
}

/** Any JSON object: what `tasks/cancel` answers is not read. */
const ANY_OBJECT: StandardSchemaV1 = {
  "~standard": {
    version: 1,
    vendor: "stalwart-gateway",
    validate: (value: unknown) => (typeof value === "object" && value !== null && !Array.isArray(value) ? { value } : { issues: [{ message: "the answer is not an object" }] }),
  },
};

/** A task creation's answer (2025-11-25): `{task: {taskId, …}}`; the SDK's tools/call validator takes only a tool result. */
const CREATED_TASK: StandardSchemaV1 = {
  "~standard": {
    version: 1,
    vendor: "stalwart-gateway",
    validate(value: unknown) {
      const task = typeof value === "object" && value !== null ? (value as { task?: unknown }).task : undefined;
      const id = typeof task === "object" && task !== null ? (task as { taskId?: unknown }).taskId : undefined;
      return typeof id === "string" && id !== "" ? { value } : { issues: [{ message: "the answer to a task-augmented tools/call has no `task.taskId`" }] };
    },
  },
};

/**
 * The SDK's client, with each method's result validator made once per wire era. Asked without a
 * schema, `request` builds the same validator for every request, and first tries it on
 * `undefined` to learn whether the era has the method: a zod parse that fails and builds its error
 * message, every request (~35 µs of a call's CPU in bench/gateway.ts, the pass-through proxy's
 * too). The validator here is the SDK's own, over the negotiated era's codec (its
 * `validateResult`, as the SDK's), so a result is held to exactly the same schema.
 */
class UpstreamClient extends Client {
  private validators = new Map<string, StandardSchemaV1 | null>();
  private validatorsFor: unknown;

  /** The result validator of `method` in the negotiated era; undefined when the era has none (the SDK then answers as it does). */
  resultValidator(method: string): StandardSchemaV1 | undefined {
    const codec = this._wireCodec();
    if (codec !== this.validatorsFor) {
      this.validators = new Map();
      this.validatorsFor = codec;
    }
    let v = this.validators.get(method);
    if (v === undefined) {
      const probe = codec.validateResult(method, undefined);
      v = !probe.ok && probe.reason === "not-in-era" ? null : {
        "~standard": {
          version: 1,
          vendor: "stalwart-gateway",
          validate(value: unknown) {
            const outcome = codec.validateResult(method, value);
            if (outcome.ok) return { value: outcome.value };
            return { issues: [{ message: outcome.reason === "invalid" ? outcome.message : `not-in-era: ${method}` }] };
          },
        },
      };
      this.validators.set(method, v);
    }
    return v ?? undefined;
  }
}

/**
 * An answer the SDK could not read, though it came: nested deeper than its validation recurses
 * (a RangeError from the stack). A plain RangeError would read as an internal error of ours.
 */
export class UpstreamUnreadable extends StalwartError {
  /** `err`: what the SDK threw, or why the answer cannot be read whole (a listing that does not end) */
  constructor(method: string, err: RangeError | { why: string; hint: string }) {
    if (!(err instanceof RangeError)) {
      super("UpstreamUnreadable", `the tool server's answer to \`${method}\` could not be read: ${err.why}`, { hint: err.hint });
      return;
    }
    const deep = /call stack/i.test(err.message);
    super("UpstreamUnreadable", `the tool server's answer to \`${method}\` could not be read${deep ? ": it is nested too deeply" : ""} (${err.message})`, {
      hint: deep ? "the tool server sends JSON nested thousands of levels deep (in a tool's schema or a result), which the MCP SDK cannot read: ask its authors to flatten it" : "ask the tool server's authors what it sent",
    });
  }
}

/** What the client is told when a request to the tool server failed: it did not answer, or its answer could not be read. */
export function notAnswered(err: unknown): string {
  return err instanceof UpstreamUnreadable ? err.message : `the tool server did not answer: ${(err as Error)?.message ?? String(err)}`;
}

class UpstreamUnavailable extends StalwartError {
  constructor(message: string, hint = "is the tool server's command right, and does it start on its own?") {
    super("UpstreamUnavailable", message, { hint });
  }
}

/** A command's server that runs and never answers: what to look at (the SDK skips any stdout line that is not JSON). */
const SILENT_HINT = "is it an MCP server on stdio? One served over HTTP is given with `--url URL`, and lines it writes on stdout that are not JSON-RPC are skipped unread; an `npx` that fetches the server first may need a longer `--start-timeout`";

export class Upstream {
  private client: UpstreamClient | undefined;
  private connecting: Promise<UpstreamClient> | undefined;
  /** the client being connected (the tool server starting): closed with the gateway too */
  private starting: UpstreamClient | undefined;
  private closed = false;

  constructor(private readonly spec: UpstreamSpec, private readonly events: UpstreamEvents = {}, private readonly connectTimeoutMs = 60_000) {}

  /** Connect now (the command starts and answers `initialize`), or throw `UpstreamUnavailable`. */
  async start(): Promise<this> {
    await this.connected();
    return this;
  }

  /** The server's capabilities, as it declared them at `initialize`. */
  capabilities(): Record<string, unknown> {
    return (this.client?.getServerCapabilities() ?? {}) as Record<string, unknown>;
  }

  serverInfo(): { name: string; version: string } | undefined {
    const v = this.client?.getServerVersion();
    return v ? { name: v.name, version: v.version } : undefined;
  }

  /**
   * A tool of a raw listing as the SDK's schema reads it: what the serving gateway lists, forwards
   * and compares with a pin (the SDK drops fields MCP does not define). Undefined when the SDK
   * would refuse it.
   */
  asListed(tool: unknown): ListedTool | undefined {
    const v = this.client?.resultValidator("tools/list");
    try {
      const r = v?.["~standard"].validate({ tools: [tool] });
      const t = r && !(r instanceof Promise) && "value" in r ? (r.value as { tools?: unknown[] } | undefined)?.tools?.[0] : undefined;
      return typeof t === "object" && t !== null ? (t as ListedTool) : undefined;
    } catch {
      return undefined;
    }
  }

  /** A raw listing's tools as the SDK reads each; one not valid MCP is left out alone, not the page with it (outside audit 13, F5). */
  readable(tools: readonly unknown[]): ListedTool[] {
    return tools.map((t) => this.asListed(t)).filter((t): t is ListedTool => t !== undefined);
  }

  /** One JSON-RPC request, answered as the server answered it. */
  async request(method: string, params: Record<string, unknown> | undefined, o: CallOptions): Promise<Record<string, unknown>> {
    const client = this.client ?? (await this.connected());
    const options = { timeout: o.timeoutMs, ...(o.signal ? { signal: o.signal } : {}) };
    let sent = params;
    let token: string | undefined;
    if (o.progress) {
      const meta = typeof params?._meta === "object" && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
      sent = { ...(params ?? {}), _meta: { ...meta, progressToken: o.progress.token } };
    } else if (o.onprogress) {
      // Our own token and handler, not the SDK's `onprogress`: the SDK drops a progress
      // notification that arrives in the same read as the response, and this one must reach the
      // person's client.
      token = `stalwart-${++this.progressCounter}`;
      this.progress.set(token, o.onprogress);
      const meta = typeof params?._meta === "object" && params._meta !== null ? (params._meta as Record<string, unknown>) : {};
      sent = { ...(params ?? {}), _meta: { ...meta, progressToken: token } };
    }
    try {
      // Typed per method by the SDK; the gateway forwards whatever the server said, so it reads it as a record.
      const request = { method: method as "tools/call", ...(sent ? { params: sent } : {}) };
      const validator = o.creatingTask ? CREATED_TASK : o.resultAs !== undefined ? (o.resultAs === null ? ANY_OBJECT : client.resultValidator(o.resultAs)) : client.resultValidator(method);
      const result: unknown = await (validator ? client.request(request, validator, options) : client.request(request, options));
      // notification handlers run a microtask late: let any progress read with the response through first
      if (token) await new Promise((r) => setImmediate(r));
      return result as Record<string, unknown>;
    } catch (err) {
      this.dropLostSession(client, err);
      throw err instanceof RangeError ? new UpstreamUnreadable(method, err) : err;
    } finally {
      if (token) this.progress.delete(token);
    }
  }

  /**
   * Every tool the server lists now, page by page: at most LIST_PAGES pages, and a cursor the
   * server gave before ends the listing (it would loop). `raw`: each page read as the object it
   * is, not through the SDK's schema, which throws on the whole page for one tool that is not
   * valid MCP; the caller judges each tool (`gateway init` leaves such a tool out, and says why).
   * `whole`: a listing cut by either bound throws UpstreamUnreadable instead of being returned
   * short — `gateway init` stopped silently there, and its catalogue lacked tools the server has
   * (outside audit 13, F7).
   */
  async listTools(timeoutMs = 60_000, o: { raw?: boolean; whole?: boolean } = {}): Promise<ListedTool[]> {
    if (!o.raw) return this.readable(await this.listTools(timeoutMs, { ...o, raw: true }));
    const tools: ListedTool[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 1; ; page++) {
      const r = await this.request("tools/list", cursor !== undefined ? { cursor } : undefined, { timeoutMs, resultAs: null });
      for (const t of Array.isArray(r.tools) ? r.tools : []) if (typeof t === "object" && t !== null && typeof (t as { name?: unknown }).name === "string") tools.push(t as ListedTool);
      cursor = typeof r.nextCursor === "string" && r.nextCursor !== "" ? r.nextCursor : undefined;
      if (cursor === undefined) return tools;
      const again = cursors.has(cursor);
      if (!again && page < LIST_PAGES) {
        cursors.add(cursor);
        continue;
      }
      if (!o.whole) return tools;
      throw new UpstreamUnreadable("tools/list", again
        ? { why: `after page ${page} it gave a cursor it gave before (${JSON.stringify(cutText(cursor, 60))}), so its list of tools never ends`, hint: "the tool server's paging is broken: ask its authors to fix it" }
        : { why: `it lists more than ${LIST_PAGES} pages of tools (${tools.length} tools so far), and at most ${LIST_PAGES} are read`, hint: "declare the tools this agent needs by hand (docs/catalogue.md), or ask the tool server's authors for larger pages" });
    }
  }

  /**
   * Over HTTP nothing closes the SDK's client when the server goes away: a server that restarted
   * has forgotten the session and answers every later request with an HTTP error (404, or 400 "no
   * valid session ID"), and one that is down fails the fetch. Without this the gateway sent the
   * dead session id forever; now the next request connects again, as a stdio server is restarted.
   * A JSON-RPC error, a timeout or a cancellation leaves the session as it is.
   */
  private dropLostSession(client: UpstreamClient, err: unknown): void {
    if (!("url" in this.spec) || this.client !== client) return;
    if (!(err instanceof SdkHttpError) && !(err instanceof TypeError)) return;
    this.lose(client);
    void client.close().catch(() => undefined);
  }

  /**
   * Over HTTP, a call's answer comes on its own event stream. When the server dies mid-call the
   * SDK reports the stream lost (onerror) and nothing else: the call waited until `--call-timeout`
   * (a day by default), where a stdio server's exit ends it at once. So a lost stream is followed
   * by a ping: a server that does not answer it is gone, and closing the client ends every call in
   * flight ("Connection closed": reported `outcome_unknown`), as over stdio.
   */
  private async streamLost(client: UpstreamClient, err: Error): Promise<void> {
    if (this.client !== client || !/SSE stream disconnected|reconnect/i.test(err?.message ?? "")) return;
    try {
      await client.ping({ timeout: STREAM_PING_MS });
    } catch {
      if (this.client !== client) return;
      this.lose(client);
      await client.close().catch(() => undefined);
    }
  }

  private lose(client: UpstreamClient): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.events.lost?.();
  }

  private progressCounter = 0;
  private readonly progress = new Map<string, (p: Progress) => void>();

  /** A progress token of the gateway's own, relayed to `onprogress` until `close()`: for requests whose progress outlives their answer. */
  progressChannel(onprogress: (p: Progress) => void): { token: string; close(): void } {
    const token = `stalwart-${++this.progressCounter}`;
    this.progress.set(token, onprogress);
    return { token, close: () => void this.progress.delete(token) };
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = undefined;
    // A tool server still starting (`npx -y` installing, a slow `initialize`) is ended too: closed
    // while the gateway waited for it, it outlived the gateway (a client that closed stdin at once).
    const starting = this.starting;
    this.starting = undefined;
    await Promise.all([c?.close().catch(() => undefined), starting?.close().catch(() => undefined)]);
  }

  private connected(): Promise<UpstreamClient> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(new UpstreamUnavailable("the gateway is shutting down"));
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<UpstreamClient> {
    // What the gateway can relay to the person's client (relay.ts), declared only when it relays it.
    const relay = this.events.request;
    const client = new UpstreamClient({ name: "stalwart-gateway", version: "0.1.0" }, { capabilities: relay ? { sampling: {}, elicitation: { form: {} }, roots: {} } : {} });
    if (relay) {
      for (const method of ["sampling/createMessage", "elicitation/create", "roots/list"] as const) {
        client.setRequestHandler(method, (req, ctx) => relay(method, req.params as Record<string, unknown> | undefined, ctx.mcpReq.signal) as never);
      }
    }
    client.setNotificationHandler("notifications/message", (n) => this.events.message?.(n.params as Record<string, unknown>));
    client.setNotificationHandler("notifications/resources/updated", (n) => this.events.resourceUpdated?.(n.params as Record<string, unknown>));
    client.setNotificationHandler("notifications/tools/list_changed", () => this.events.toolsChanged?.());
    client.setNotificationHandler("notifications/resources/list_changed", () => this.events.resourcesChanged?.());
    client.setNotificationHandler("notifications/prompts/list_changed", () => this.events.promptsChanged?.());
    client.setNotificationHandler("notifications/progress", (n) => {
      const p = n.params as { progressToken?: unknown; progress: number; total?: number; message?: string };
      const relay = typeof p.progressToken === "string" ? this.progress.get(p.progressToken) : undefined;
      relay?.({ progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message !== undefined ? { message: p.message } : {}) });
    });
    const transport =
      "url" in this.spec
        ? new StreamableHTTPClientTransport(new URL(this.spec.url), this.spec.headers ? { requestInit: { headers: this.spec.headers } } : undefined)
        : new ToolServerProcess({
            command: this.spec.command, args: this.spec.args, stderr: "inherit", maxBufferSize: UPSTREAM_MESSAGE_BYTES,
            // The host configured its environment for the tool server behind us: pass it on whole
            // (the SDK's default would keep only HOME, PATH and a few more).
            env: this.spec.env ?? inheritedEnv(),
            ...(this.spec.cwd ? { cwd: this.spec.cwd } : {}),
          });
    // Died or closed: the next request connects again.
    client.onclose = () => this.lose(client);
    this.starting = client;
    if ("url" in this.spec) client.onerror = (err) => void this.streamLost(client, err);
    try {
      await client.connect(transport, { timeout: this.connectTimeoutMs });
    } catch (err) {
      if (this.starting === client) this.starting = undefined;
      await client.close().catch(() => undefined);
      const command = transport instanceof ToolServerProcess && err instanceof SdkError ? err.code : undefined;
      // only a server that is still there, not answering (one that exited has no pid of its own any more)
      const silent = command === SdkErrorCode.RequestTimeout;
      if (silent && transport instanceof ToolServerProcess) transport.stop();
      if ("url" in this.spec) {
        const failed = urlFailure(new URL(this.spec.url), err);
        throw new UpstreamUnavailable(`the tool server at ${this.spec.url} did not answer \`initialize\`: ${failed.why}`, failed.hint);
      }
      // the SDK's "Connection closed" says nothing of whose: a command's server exited or closed its stdout
      const why = command === SdkErrorCode.ConnectionClosed ? "it exited (or closed its standard output) before it answered `initialize`; what it wrote on stderr, above, may say why" : (err as Error).message;
      throw new UpstreamUnavailable(`the tool server \`${[this.spec.command, ...this.spec.args].join(" ")}\` did not start: ${why}`, silent ? SILENT_HINT : undefined);
    }
    if (this.starting === client) this.starting = undefined;
    if (this.closed) {
      // the gateway closed while this one started: it ends here, and serves nothing
      await client.close().catch(() => undefined);
      throw new UpstreamUnavailable("the gateway is shutting down");
    }
    this.client = client;
    return client;
  }
}

/**
 * The largest message read from a tool server on stdio. The SDK's 10 MB default closed the
 * connection on a file server's answer for a 5 MB file (it sends the text twice: `content` and
 * `structuredContent`), and the call was reported unanswered. Past this it still is.
 */
const UPSTREAM_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The most pages of `tools/list` read: a server that pages forever is not followed forever. */
const LIST_PAGES = 1000;

/** How long a server whose event stream broke has to answer a ping before it counts as gone. */
const STREAM_PING_MS = 5_000;
