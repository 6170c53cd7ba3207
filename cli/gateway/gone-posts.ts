/**
 * Requests of 2025-era HTTP sessions whose POST stream the client closed (http.ts sees it), for a
 * call waiting in the approval store for a person (`--approval-wait`, calls.ts) to stop waiting:
 * its answer has nowhere to go, so it ends without running, as a call that needs the person
 * otherwise would once it is approved (outside audit 10, F1). A disconnection is not a
 * cancellation: a call already forwarded is not told.
 */
import type { RequestId } from "@modelcontextprotocol/server";

export class GonePosts {
  /** closed and not yet answered, by [session, request id] */
  private readonly gone = new Set<string>();
  private readonly watchers = new Map<string, Set<AbortController>>();

  /** The client closed the POST that carried request `id` of `session`. */
  closed(session: string, id: RequestId): void {
    const k = key(session, id);
    this.gone.add(k);
    for (const c of this.watchers.get(k) ?? []) c.abort(new Error("the client closed its request"));
  }

  /** Request `id` of `session` was answered: nothing of it is gone any more (its id may be used again). */
  answered(session: string, id: RequestId): void {
    this.gone.delete(key(session, id));
  }

  /**
   * A signal aborted once the client closes the POST of request `id` (at once when it has), and
   * `done` to stop watching. No session (stdio, a 2026-07-28 request): nothing to watch.
   */
  watch(session: string | undefined, id: RequestId): { signal?: AbortSignal; done(): void } {
    if (session === undefined) return { done: () => undefined };
    const k = key(session, id);
    const c = new AbortController();
    if (this.gone.has(k)) c.abort(new Error("the client closed its request"));
    let set = this.watchers.get(k);
    if (!set) this.watchers.set(k, (set = new Set()));
    set.add(c);
    return {
      signal: c.signal,
      done: () => {
        set.delete(c);
        if (set.size === 0) this.watchers.delete(k);
      },
    };
  }
}

const key = (session: string, id: RequestId) => JSON.stringify([session, id]);
