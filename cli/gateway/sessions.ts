/**
 * The 2025-era HTTP sessions the gateway holds (http.ts), and when it lets one go. A client that
 * initializes again without a DELETE (a host restarted, a connection dropped) leaves its old
 * session behind, with its transport and its server; so a session idle for longer than `idleMs`
 * is ended, and at most `max` are held: a new `initialize` at the bound ends the least recently
 * used idle one, or is refused when none is idle. A session with a request running (a call, one
 * waiting for a person) is never idle. Idle time is on the gateway's clock; a POST or an answer on
 * the session starts it again, a GET does not: a client object dropped without being closed may
 * keep its stream for notifications open (or open it again) for as long as its process lives. An
 * ended session is gone as an unknown one is (404), and its streams are closed.
 */
import type { RequestId, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { RequestIds } from "./request-ids.js";

/** half an hour: longer than a person's pause, short enough that abandoned sessions do not pile up */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;
/** more than the MCP hosts on one person's machine open, few enough to hold them all */
export const DEFAULT_MAX_SESSIONS = 100;

export interface SessionLimits {
  idleMs: number;
  max: number;
  now: () => Date;
  log: (line: string) => void;
}

export interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  ids: RequestIds;
  /** each running request's id to the ids of the POST that carried it (http.ts ends that POST's stream) */
  posts: Map<RequestId, RequestId[]>;
  /** running requests whose POST the client closed: a request of the gateway's about one reaches no one (http.ts) */
  closed: Set<RequestId>;
  /** when the session was last used, on the gateway's clock (ms); NaN when the clock had not been read yet */
  last: number;
}

export class Sessions {
  private readonly held = new Map<string, Session>();
  private readonly timer: ReturnType<typeof setInterval>;
  /** the clock's last good reading; NaN until it has given one */
  private lastGood = Number.NaN;

  constructor(private readonly o: SessionLimits) {
    this.nowMs();
    // the sweep for when no request comes; it never keeps the process up, and never throws into it
    this.timer = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1000, Math.floor(o.idleMs / 4))));
    this.timer.unref();
  }

  get size(): number {
    return this.held.size;
  }

  /** The session with this id; undefined when unknown or ended. */
  get(id: string): Session | undefined {
    return this.held.get(id);
  }

  add(id: string, s: Session): void {
    this.held.set(id, s);
  }

  delete(id: string): void {
    this.held.delete(id);
  }

  touch(s: Session): void {
    s.last = this.nowMs();
  }

  /**
   * Room for a new session, taken until `release()`: idle ones past the bound end, and at the
   * bound the least recently used idle one; false when every one is busy. A session still being set
   * up counts against the bound from here, so initializes arriving at once cannot each find the
   * same free place.
   */
  reserve(): boolean {
    this.sweep();
    if (this.held.size + this.reserved >= this.o.max) {
      let lru: [string, Session] | undefined;
      for (const entry of this.held) if (!entry[1].ids.busy && (!lru || entry[1].last < lru[1].last)) lru = entry;
      if (!lru) return false;
      this.end(lru[0], lru[1], `the gateway holds ${sessions(this.o.max)}, and this one was used least recently`);
    }
    this.reserved++;
    return true;
  }

  /** A reserved place given back: its session is held now (`add`), or was never made. */
  release(): void {
    if (this.reserved > 0) this.reserved--;
  }
  private reserved = 0;

  busyMessage(): string {
    return `Server busy: the gateway holds ${sessions(this.o.max)} (its bound, \`--max-sessions\`) and each has a request running; end one (DELETE) or retry once one is idle`;
  }

  sweep(): void {
    try {
      const now = this.nowMs();
      if (Number.isNaN(now)) return; // no reading yet: no idle time can be measured
      for (const [id, s] of this.held) {
        // used before the clock's first good reading: idle from that reading on, not since 1970
        if (Number.isNaN(s.last)) s.last = now;
        if (s.ids.busy || now - s.last <= this.o.idleMs) continue;
        this.end(id, s, `idle for ${minutes(now - s.last)}`);
      }
    } catch (err) {
      this.o.log(`http: sessions not swept (${(err as Error).message})`);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const all = [...this.held.values()];
    this.held.clear();
    for (const s of all) await s.transport.close().catch(() => undefined);
  }

  private end(id: string, s: Session, why: string): void {
    this.held.delete(id);
    this.o.log(`http: session ${id.slice(0, 8)} ended: ${why}`);
    // closing the transport closes the session's server (its subscriptions, its streams)
    void s.transport.close().catch(() => undefined);
  }

  /**
   * The gateway's clock, read so that a failing one (it is injected, and tests make it throw) never
   * fails a request: its last good reading stands in, so no session turns idle on a bad one (NaN
   * before the first: such a session's idle time starts at the first good reading, `sweep`).
   */
  nowMs(): number {
    try {
      const t = this.o.now().getTime();
      if (Number.isFinite(t)) this.lastGood = t;
    } catch {
      // the last good reading
    }
    return this.lastGood;
  }
}

function minutes(ms: number): string {
  const m = Math.floor(ms / 60_000);
  return m >= 1 ? `${m} minute${m === 1 ? "" : "s"}` : `${Math.floor(ms / 1000)} seconds`;
}

const sessions = (n: number) => `${n} session${n === 1 ? "" : "s"}`;
