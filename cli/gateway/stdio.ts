/**
 * The downstream stdio transport: the SDK's `StdioServerTransport`, reading lines itself so that
 * what the SDK drops in silence is answered as JSON-RPC 2.0 (section 5.1) requires. The SDK skips
 * a line that is not JSON and only reports one that is not a JSON-RPC message to `onerror`, so a
 * client that sent either waited forever; here the first gets a Parse error (-32700, id null) and
 * the second an Invalid Request (-32600, its id when one can be read). Valid messages reach the
 * SDK as it parses them (`parseJSONRPCMessage` of the line's JSON); writing is the SDK's own.
 *
 * A request whose id is that of one still running is also an Invalid Request, answered at once and
 * never delivered (request-ids.ts).
 */
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, STDIO_DEFAULT_MAX_BUFFER_SIZE, parseJSONRPCMessage, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/server";
import { RequestIds, duplicateMessage } from "./request-ids.js";
import { lostMetaKey } from "./meta-keys.js";
import { cutText } from "../../worker/portable/engine/index.js";

export class CheckedStdioTransport extends StdioServerTransport {
  private buffer: Buffer | undefined;
  private readonly max: number;
  private readonly running = new RequestIds();

  constructor(stdin = process.stdin, stdout = process.stdout, options?: { maxBufferSize?: number }) {
    super(stdin, stdout, options);
    this.max = options?.maxBufferSize ?? STDIO_DEFAULT_MAX_BUFFER_SIZE;
  }

  // the SDK's reader, line for line, with its size limit (over it: onerror, then closed)
  override _ondata = (chunk: Buffer): void => {
    if ((this.buffer?.length ?? 0) + chunk.length > this.max) {
      this.buffer = undefined;
      this.onerror?.(new Error(`ReadBuffer exceeded maximum size of ${this.max} bytes`));
      void this.close().catch(() => undefined);
      return;
    }
    this.buffer = this.buffer?.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (let at = this.buffer.indexOf("\n"); this.buffer && at !== -1; at = this.buffer.indexOf("\n")) {
      const line = this.buffer.toString("utf8", 0, at).replace(/\r$/, "");
      this.buffer = this.buffer.subarray(at + 1);
      try {
        this.receive(line);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  };

  override async close(): Promise<void> {
    this.buffer = undefined;
    this.running.clear();
    return super.close();
  }

  override send(message: JSONRPCMessage): Promise<void> {
    this.running.sent(message);
    return super.send(message);
  }

  private receive(line: string): void {
    // a blank line is no message (nothing to answer)
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return this.refuse(null, PARSE_ERROR, "Parse error: the line is not JSON");
    }
    let message: JSONRPCMessage;
    try {
      message = parseJSONRPCMessage(value);
    } catch {
      // A request whose every JSON-RPC member is right failed on what MCP adds to its params, `_meta`:
      // the request is valid, its params are not (-32602), as the SDK answers a params check.
      const method = metaOnlyFault(value);
      if (method !== undefined) return this.refuse(readableId(value), INVALID_PARAMS, `invalid params for ${cutText(method, 100)}: \`params._meta\` is not what MCP takes there (an object, its \`progressToken\` if any a string or number)`);
      // (the reason named, so a client's author sees what to fix: a batch is not the same mistake as a field's type)
      const why = Array.isArray(value) ? "a batch (MCP does not take batches)" : "not a JSON-RPC 2.0 request, notification or response (a member missing or of the wrong type: `jsonrpc` \"2.0\", an id that is a string or a whole number, a string `method`, `params` an object)";
      return this.refuse(readableId(value), INVALID_REQUEST, `Invalid Request: ${why}`);
    }
    const lost = lostMetaKey(value);
    if (lost) return this.refuse(lost.id, lost.code, lost.message);
    const reused = this.running.admit(message);
    if (reused !== undefined) return this.refuse(reused, INVALID_REQUEST, duplicateMessage(reused));
    this.onmessage?.(message);
  }

  /** An error answer that frees no id (the request it refuses was never delivered). */
  private refuse(id: RequestId | null, code: number, message: string): void {
    super.send({ jsonrpc: "2.0", id, error: { code, message } } as JSONRPCMessage).catch((error: unknown) => this.onerror?.(error as Error));
  }
}

/**
 * The method of a request that is right in every JSON-RPC member (an id that is a string or an
 * integer, no `result` or `error`) and whose params object carries a `_meta`: MCP's own part of
 * it, the one left to fail the SDK's parse. Else undefined.
 */
function metaOnlyFault(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string" || (typeof m.id !== "string" && !Number.isInteger(m.id))) return undefined;
  if ("result" in m || "error" in m) return undefined;
  const p = m.params;
  if (typeof p !== "object" || p === null || Array.isArray(p) || !Object.hasOwn(p, "_meta")) return undefined;
  return m.method;
}

/**
 * The id of a message that is not valid, when it can be read: a string or number, on something
 * that is not a response (a response's id is one of the gateway's own, answering it would reach
 * whichever request of the client's has that number).
 */
function readableId(value: unknown): RequestId | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const m = value as Record<string, unknown>;
  if ("result" in m || "error" in m) return null;
  return typeof m.id === "string" || typeof m.id === "number" ? m.id : null;
}
