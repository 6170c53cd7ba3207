/**
 * The MCP tool server the gateway fronts: started from `-- CMD ARGS…` (stdio) or reached at
 * `--url` (streamable HTTP), through the SDK's own `Client`. Requests go out as raw JSON-RPC
 * (`client.request`), not `callTool`, so the result comes back as the server sent it: the SDK does
 * not validate `structuredContent` against a cached `outputSchema` here, and `_meta` is untouched.
 *
 * An upstream that dies is not the end of the gateway: the next request starts (or reaches) it
 * again once, and a call that cannot reach it answers `isError` (server.ts).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { StalwartError } from "../../worker/portable/engine/index.js";

export type UpstreamSpec = { command: string; args: string[]; cwd?: string; env?: Record<string, string> } | { url: string };

export interface UpstreamEvents {
  /** the server said its tool list changed */
  toolsChanged?: () => void;
  resourcesChanged?: () => void;
  promptsChanged?: () => void;
}

/** What the SDK's request options take; long by default, because a tool may itself wait on a person. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
}

export class UpstreamUnavailable extends StalwartError {
  constructor(message: string) {
    super("UpstreamUnavailable", message, { hint: "is the tool server's command right, and does it start on its own?" });
  }
}

export class Upstream {
  private client?: Client;
  private connecting?: Promise<Client>;
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

  /** One JSON-RPC request, answered as the server answered it. */
  async request(method: string, params: Record<string, unknown> | undefined, o: CallOptions): Promise<Record<string, unknown>> {
    const client = await this.connected();
    const options = {
      timeout: o.timeoutMs,
      resetTimeoutOnProgress: true,
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.onprogress ? { onprogress: o.onprogress } : {}),
    };
    // Typed per method by the SDK; the gateway forwards whatever the server said, so it reads it as a record.
    const result: unknown = await client.request({ method: method as "tools/call", ...(params ? { params } : {}) }, options);
    return result as Record<string, unknown>;
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = undefined;
    await c?.close().catch(() => undefined);
  }

  private connected(): Promise<Client> {
    if (this.client) return Promise.resolve(this.client);
    if (this.closed) return Promise.reject(new UpstreamUnavailable("the gateway is shutting down"));
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<Client> {
    const client = new Client({ name: "stalwart-gateway", version: "0.1.0" }, { capabilities: {} });
    client.setNotificationHandler("notifications/tools/list_changed", () => this.events.toolsChanged?.());
    client.setNotificationHandler("notifications/resources/list_changed", () => this.events.resourcesChanged?.());
    client.setNotificationHandler("notifications/prompts/list_changed", () => this.events.promptsChanged?.());
    const transport =
      "url" in this.spec
        ? new StreamableHTTPClientTransport(new URL(this.spec.url))
        : new StdioClientTransport({ command: this.spec.command, args: this.spec.args, stderr: "inherit", ...(this.spec.cwd ? { cwd: this.spec.cwd } : {}), ...(this.spec.env ? { env: this.spec.env } : {}) });
    client.onclose = () => {
      // Died or closed: the next request connects again.
      if (this.client === client) this.client = undefined;
    };
    try {
      await client.connect(transport, { timeout: this.connectTimeoutMs });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw new UpstreamUnavailable(`the tool server ${"url" in this.spec ? `at ${this.spec.url}` : `\`${[this.spec.command, ...this.spec.args].join(" ")}\``} did not start: ${(err as Error).message}`);
    }
    this.client = client;
    return client;
  }
}
