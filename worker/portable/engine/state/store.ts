/**
 * The session-state store (issue 15; checks.md, "The session history"): per session, the newest
 * head this runtime answered for, the names spent once ("token:<id>", "undo:<link>") and the
 * tallies that outlive a restarted history. One interface, three homes: in memory (memory.ts,
 * tests and `app.request()`), under the client's home in Node (cli/sdk/state/, LMDB, atomic
 * across processes) and a Durable Object per session in the check worker
 * (worker/workerd/check/session-state-object.ts). Counters keep their own interface
 * (counters/store.ts); a reservation id is the link of the entry that took it.
 */

/** A history's head: how many entries it has and the hex of its last link ("" when count is 0). */
export interface Head {
  count: number;
  link: string;
}

export interface SessionState {
  /** the newest head this runtime answered for the session; null: never seen */
  head: Head | null;
  /** names spent once in this session: "token:<id>", "undo:<link of the undone entry>" */
  spent: ReadonlySet<string>;
  /** per-session tallies that outlive a restarted history: "at_most:<tool>", "untrusted" */
  tallies: Readonly<Record<string, number>>;
  /**
   * when the store last committed for the session, by its clock (ms); absent when it holds nothing
   * or does not say. A restarted history's times start no earlier (a clock set back cannot replay
   * an ask whose token expired).
   */
  at?: number;
}

export interface StateChange {
  /** the head the presented history ends at, or "restart": a new history after history_invalid
   *  replaces whatever head is stored (spent names and tallies are kept) */
  expect: Head | "restart";
  next: Head;
  /** names to add to `spent`; if ANY is already there the whole change is refused ("spent") */
  spend?: readonly string[];
  /** deltas added to tallies (a tally never goes below 0) */
  tally?: Readonly<Record<string, number>>;
  /**
   * "own": the answer was decided on `ownState` (not on a load), so the commit also requires the
   * session's head, spent names and tallies to be exactly what that state said — else it writes
   * nothing and answers `moved`, and the caller loads and decides again. A head compared alone
   * could have come back to the same value (a restarted history replayed entry for entry under
   * the host's clock) over tallies that moved on.
   */
  basis?: "own";
}

export type CommitAnswer =
  | { ok: true }
  | { ok: false; why: "head"; head: Head | null } // stored head != expect (null stored matches only {count: 0})
  | { ok: false; why: "spent"; name: string }
  | { ok: false; why: "moved" }; // only for `basis: "own"`: the session is not as ownState said

export interface SessionStateStore {
  /** never throws for an unknown session (head null, nothing spent); throws a typed StalwartError when the store is damaged */
  load(session: string): Promise<SessionState> | SessionState;
  /** atomic compare-and-set of the head plus the spends and tallies, all or nothing, across
   *  every process (Node) / every isolate (workerd) sharing the store */
  commit(session: string, change: StateChange): Promise<CommitAnswer> | CommitAnswer;
  /**
   * Optional: the session as this handle's own last commit of it left it, read from memory (no
   * store operation); undefined when it holds none. Nothing proves it current until a commit
   * with `basis: "own"` does, under the store's lock.
   */
  ownState?(session: string): SessionState | undefined;
}
