/**
 * The ids of the client's requests still running on one connection (stdio) or 2025-era HTTP
 * session. The SDK takes a request whose id is already running as a new one: it runs both (a
 * checked call twice), answers both under the one id, keeps only the newer one's handle for
 * `notifications/cancelled`, and over HTTP moves the id to the newer POST's stream, so the first
 * call's answer goes to the second POST. The gateway refuses such a request before the SDK sees it
 * (Invalid Request); an id is free again once answered, or cancelled by the client — cancelled
 * once the SDK has the cancellation: over HTTP a POST the SDK refuses (an HTTP error) delivers
 * nothing, and the request it meant to cancel runs on.
 */
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/server";

/** What one batch of messages (one HTTP POST) does to the running ids once the SDK answers it. */
export interface Admitted {
  /** the SDK took the messages: their cancellations end the requests they name (returned) */
  delivered(): RequestId[];
  /** the SDK refused them whole: their requests never ran, their cancellations cancelled nothing */
  refused(): void;
}

export class RequestIds {
  private readonly running = new Set<RequestId>();

  /** true while a request of the client's is running (its session is not idle) */
  get busy(): boolean {
    return this.running.size > 0;
  }

  has(id: RequestId): boolean {
    return this.running.has(id);
  }

  /** One message, delivered at once (stdio): the id it reuses (refuse it, deliver nothing), or undefined once taken in. */
  admit(m: JSONRPCMessage): RequestId | undefined {
    const a = this.admitAll([m]);
    if ("reused" in a) return a.reused;
    a.delivered();
    return undefined;
  }

  /**
   * The messages of one POST, in order, as the SDK will take them: the id of a request that reuses
   * one still running (refuse the whole POST, deliver nothing), or its requests taken in (so a
   * concurrent POST reusing one is refused) and what to do once the SDK has answered.
   */
  admitAll(messages: readonly JSONRPCMessage[]): { reused: RequestId } | Admitted {
    // the ids as they stand once every message is delivered, a cancellation before a request of the same id included
    const after = new Set(this.running);
    for (const m of messages) {
      if ("method" in m && "id" in m) {
        if (after.has(m.id)) return { reused: m.id };
        after.add(m.id);
      } else if ("method" in m && m.method === "notifications/cancelled") {
        const id = (m.params as { requestId?: unknown } | undefined)?.requestId;
        if (typeof id === "string" || typeof id === "number") after.delete(id);
      }
    }
    const added = [...after].filter((id) => !this.running.has(id));
    const ended = [...this.running].filter((id) => !after.has(id));
    for (const id of added) this.running.add(id);
    return {
      delivered: () => {
        for (const id of ended) this.running.delete(id);
        return ended;
      },
      refused: () => {
        for (const id of added) this.running.delete(id);
      },
    };
  }

  /** A message the gateway sends: its answer to a request frees that id. */
  sent(m: JSONRPCMessage): void {
    if (("result" in m || "error" in m) && m.id !== undefined && m.id !== null) this.running.delete(m.id);
  }

  clear(): void {
    this.running.clear();
  }
}

export const duplicateMessage = (id: RequestId) => `Invalid Request: id ${JSON.stringify(id)} is already used by a request still running; it was not run`;
