/**
 * Downstream streamable HTTP (`--listen 127.0.0.1:PORT`, endpoint `/mcp`). Both eras from one
 * endpoint, each the way its protocol needs:
 *   - 2026-07-28 requests: the SDK's `createMcpHandler` (strict, per request; a confirm travels as
 *     `input_required` + `requestState`, list changes on the client's `subscriptions/listen`);
 *   - 2025-era clients: a sessionful `WebStandardStreamableHTTPServerTransport` per MCP session,
 *     because pushing `elicitation/create` to the person and `list_changed` to the client needs the
 *     session (per-request legacy serving has no way back to the client). Sessions idle for too
 *     long, or over the bound, are let go (sessions.ts).
 * Host and Origin are checked first: the gateway serves the person's own machine, and a web page
 * there (another local port, or a name rebound to 127.0.0.1) must not drive it.
 */
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE, WebStandardStreamableHTTPServerTransport, createMcpHandler, isLegacyRequest, parseJSONRPCMessage, readRequestBody,
  type JSONRPCMessage, type McpServerFactory, type RequestId,
} from "@modelcontextprotocol/server";
import { listenError } from "../listen-error.js";
import { loopbackHost } from "../loopback.js";
import { RequestIds, duplicateMessage } from "./request-ids.js";
import { lostMetaKey } from "./meta-keys.js";
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS, Sessions, type Session } from "./sessions.js";
import type { GonePosts } from "./gone-posts.js";

export interface Listening {
  url: string;
  /** publish a tool-list change to 2026-07-28 listeners */
  toolsChanged(): void;
  resourcesChanged(): void;
  promptsChanged(): void;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** the gateway's clock (idle sessions are measured on it) */
  now?: () => Date;
  log?: (line: string) => void;
  /** a 2025-era session idle for longer than this is ended (sessions.ts) */
  sessionIdleMs?: number;
  /** at most this many 2025-era sessions are held */
  maxSessions?: number;
  /** told of each request whose POST the client closes before it is answered */
  gone?: GonePosts;
}

export async function listen(factory: McpServerFactory, at: { host: string; port: number }, o: ListenOptions = {}): Promise<Listening> {
  const modern = createMcpHandler(factory, { legacy: "reject" });
  const sessions = new Sessions({ idleMs: o.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS, max: o.maxSessions ?? DEFAULT_MAX_SESSIONS, now: o.now ?? (() => new Date()), log: o.log ?? (() => undefined) });
  // the port is known once bound (`--listen 127.0.0.1:0` in tests); until then nothing is served
  let port = -1;
  let own = new Set<string>();

  const fetch = async (request: Request): Promise<Response> => {
    const rejected = refused(request, port, own);
    if (rejected) return rejected;
    if (new URL(request.url).pathname !== "/mcp") return new Response("not found: the MCP endpoint is /mcp\n", { status: 404 });
    const sid = request.headers.get("mcp-session-id");
    if (sid !== null) {
      const s = sessions.get(sid);
      if (s && request.method === "POST") sessions.touch(s);
      if (s) return onSession(s, request, o.gone);
      return json(404, { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
    }
    if (await isLegacyRequest(request)) return opening(request);
    return modern.fetch(request);
  };

  /** A 2025-era request without a session: an `initialize` starts one (room permitting); anything else gets the SDK's answer and leaves nothing behind. */
  const opening = async (request: Request): Promise<Response> => {
    const init = request.method === "POST" ? await initializeId(request.clone()) : undefined;
    if (init === undefined) return started(request);
    if (!sessions.reserve()) return json(503, { jsonrpc: "2.0", id: init, error: { code: -32000, message: sessions.busyMessage() } });
    try {
      return await started(request);
    } finally {
      // the session is held by now (or was never made): it counts as itself from here
      sessions.release();
    }
  };

  /** The request served by a new transport and server, which stay only if it started a session. */
  const started = async (request: Request): Promise<Response> => {
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, session),
      onsessionclosed: (id) => sessions.delete(id),
    });
    const session: Session = { transport, ids: new RequestIds(), posts: new Map(), closed: new Set(), last: sessions.nowMs() };
    // every answer the session sends frees its request's id, and counts as use
    const send = transport.send.bind(transport);
    // (a notification pushed to it is not use: log lines and list changes go to every session)
    transport.send = (message, options) => {
      session.ids.sent(message);
      // a question for the person goes only on its call's POST: closed, it would reach no one, and the call would wait for its answer as long as a person may take
      const about = options?.relatedRequestId;
      if ("method" in message && "id" in message && about !== undefined && session.closed.has(about)) return Promise.reject(new Error(`the client closed the stream of request ${JSON.stringify(about)}, so ${message.method} has no way to reach it`));
      const id = "id" in message && ("result" in message || "error" in message) ? message.id : undefined;
      if (id === undefined || id === null) return send(message, options);
      session.closed.delete(id);
      if (transport.sessionId !== undefined) o.gone?.answered(transport.sessionId, id);
      sessions.touch(session);
      return send(message, options).finally(() => settle(session, id));
    };
    // set before connecting: the server chains its own close to it (in-flight requests aborted, the server let go)
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = await factory({ era: "legacy" });
    await server.connect(transport);
    const answer = await transport.handleRequest(request);
    // a request that started no session (a GET, a call before `initialize`, a refused one) leaves no server behind
    if (transport.sessionId === undefined) await server.close().catch(() => undefined);
    return answer;
  };

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch, hostname: at.host, port: at.port }, () => {
      const a = s.address() as AddressInfo;
      port = a.port;
      // the origin as listened (`localhost`) and as bound and printed (127.0.0.1)
      own = new Set([at.host, a.address].map((h) => new URL(`http://${h.includes(":") ? `[${h}]` : h}:${a.port}`).origin));
      resolve(s);
    });
    s.once("error", (err: NodeJS.ErrnoException) => reject(listenError(err, `--listen ${at.host.includes(":") ? `[${at.host}]` : at.host}:${at.port}`, at.port)));
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/mcp`,
    toolsChanged: () => modern.notify.toolsChanged(),
    resourcesChanged: () => modern.notify.resourcesChanged(),
    promptsChanged: () => modern.notify.promptsChanged(),
    close: async () => {
      await modern.close().catch(() => undefined);
      await sessions.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // open SSE streams would keep it open
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
    },
  };
}

/**
 * A request on a 2025-era session. A POST's request ids are checked before the SDK reads it: one
 * that reuses the id of a request still running on the session is refused (request-ids.ts), else
 * the SDK gets the body as read. Anything the SDK refuses whole (an HTTP error) is not delivered:
 * its requests are not running, its cancellations cancelled nothing.
 */
async function onSession(s: Session, request: Request, gone: GonePosts | undefined): Promise<Response> {
  const t = s.transport;
  if (request.method !== "POST") return t.handleRequest(request);
  const body = await readRequestBody(request);
  if (body.tooLarge) return json(413, { jsonrpc: "2.0", error: { code: -32000, message: `Payload Too Large: Request body must not exceed ${DEFAULT_MAX_REQUEST_BODY_SIZE} bytes` }, id: null });
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.text);
  } catch {
    // the SDK's own answer (its checks of the headers come first)
    return t.handleRequest(new Request(request, { body: body.text }));
  }
  const messages: JSONRPCMessage[] = [];
  for (const value of Array.isArray(parsed) ? parsed : [parsed]) {
    try {
      messages.push(parseJSONRPCMessage(value));
    } catch {
      // the SDK refuses the POST (a message that is not JSON-RPC)
    }
  }
  for (const value of Array.isArray(parsed) ? parsed : [parsed]) {
    const lost = lostMetaKey(value);
    if (lost) return json(400, { jsonrpc: "2.0", id: lost.id, error: { code: lost.code, message: lost.message } });
  }
  const admitted = s.ids.admitAll(messages);
  if ("reused" in admitted) return json(400, { jsonrpc: "2.0", id: admitted.reused, error: { code: -32600, message: duplicateMessage(admitted.reused) } });
  const answer = await t.handleRequest(request, { parsedBody: parsed });
  if (answer.status >= 400) {
    admitted.refused();
    return answer;
  }
  // a cancelled request gets no answer, so the SDK never ends the stream of its POST: the gateway does
  const cancelled = admitted.delivered();
  const requests = messages.flatMap((m) => ("method" in m && "id" in m ? [m.id] : []));
  for (const id of requests) s.posts.set(id, requests);
  for (const id of cancelled) s.closed.delete(id);
  for (const id of [...cancelled, ...requests]) settle(s, id);
  if (requests.length === 0 || answer.body === null) return answer;
  // the client closing this POST's stream is seen here (the SDK forgets the stream and says nothing)
  const reader = answer.body.getReader();
  const watched = new ReadableStream<Uint8Array>({
    pull: async (c) => {
      const { done, value } = await reader.read();
      if (done) c.close();
      else c.enqueue(value);
    },
    cancel: (reason) => {
      for (const id of requests) {
        if (!s.ids.has(id) || s.posts.get(id) !== requests) continue;
        s.closed.add(id);
        if (t.sessionId !== undefined) gone?.closed(t.sessionId, id);
      }
      return reader.cancel(reason);
    },
  });
  return new Response(watched, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
}

/**
 * Once no request of the POST that carried `id` is running, that POST's stream ends (the SDK ends
 * it itself when every one was answered). An id a later POST reused is that POST's, not this one's.
 */
function settle(s: Session, id: RequestId): void {
  const post = s.posts.get(id);
  if (!post) return;
  const own = post.filter((r) => s.posts.get(r) === post);
  if (own.some((r) => s.ids.has(r))) return;
  for (const r of own) s.posts.delete(r);
  for (const r of own) s.transport.closeSSEStream(r);
}

/** The id of an `initialize` request in a POST body (it starts a session), or undefined. */
async function initializeId(request: Request): Promise<RequestId | null | undefined> {
  const body = await readRequestBody(request).catch(() => undefined);
  if (!body || body.tooLarge) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body.text);
  } catch {
    return undefined;
  }
  const init = (Array.isArray(value) ? value : [value]).find((m: unknown) => typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize") as { id?: unknown } | undefined;
  if (!init) return undefined;
  return typeof init.id === "string" || typeof init.id === "number" ? init.id : null;
}

/**
 * A request the gateway does not serve: a Host that is not a loopback name at its port (a rebound
 * name), or an Origin that is present and not the gateway's own (a page on another local port is
 * as foreign as any site). No Origin passes: clients outside a browser send none.
 */
function refused(request: Request, port: number, own: ReadonlySet<string>): Response | undefined {
  const [first] = own;
  const here = `the gateway answers only at ${first ?? "its loopback address"}`;
  if (!loopbackHost(request.url, port)) return json(403, { jsonrpc: "2.0", error: { code: -32000, message: `Forbidden: Host \`${request.headers.get("host") ?? ""}\` is not this gateway's (${here})` }, id: null });
  const origin = request.headers.get("origin");
  if (origin !== null && !own.has(origin)) return json(403, { jsonrpc: "2.0", error: { code: -32000, message: `Forbidden: Origin \`${origin}\` is not this gateway's own (${here}; a web page elsewhere may not call it)` }, id: null });
  return undefined;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
}
