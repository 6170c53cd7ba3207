/**
 * The ids of the client's requests still running on one connection (stdio) or 2025-era HTTP
 * session. The SDK takes a request whose id is already running as a new one: it runs both (a
 * checked call twice), answers both under the one id, keeps only the newer one's handle for
 * `notifications/cancelled`, and over HTTP moves the id to the newer POST's stream, so the first
 * call's answer goes to the second POST. The gateway refuses such a request before the SDK sees it
 * (Invalid Request); an id is free again once answered, or cancelled by the client.
 */
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/server";

export class RequestIds {
  private readonly running = new Set<RequestId>();

  /** true while a request of the client's is running (its session is not idle) */
  get busy(): boolean {
    return this.running.size > 0;
  }

  /** A message from the client, valid JSON-RPC: the id it reuses (refuse it, deliver nothing), or undefined once taken in. */
  admit(m: JSONRPCMessage): RequestId | undefined {
    if ("method" in m && "id" in m) {
      if (this.running.has(m.id)) return m.id;
      this.running.add(m.id);
    } else if ("method" in m && m.method === "notifications/cancelled") {
      const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === "string" || typeof id === "number") this.running.delete(id);
    }
    return undefined;
  }

  /** A message the gateway sends: its answer to a request frees that id. */
  sent(m: JSONRPCMessage): void {
    if (("result" in m || "error" in m) && m.id !== undefined && m.id !== null) this.running.delete(m.id);
  }

  /** Requests the SDK refused whole (its answer was an HTTP error): they are not running. */
  forget(ids: readonly RequestId[]): void {
    for (const id of ids) this.running.delete(id);
  }

  clear(): void {
    this.running.clear();
  }
}

export const duplicateMessage = (id: RequestId) => `Invalid Request: id ${JSON.stringify(id)} is already used by a request still running; it was not run`;
