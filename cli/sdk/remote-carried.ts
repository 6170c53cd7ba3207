/**
 * The session a remote client carries, put together from the worker's answers. The worker answers
 * a request in the delta form (`since`, worker/workerd/check/carried.ts) with only the entries
 * from `since` on, so this keeps the whole signed history and sends the worker only what it does
 * not hold: a request's size and cost stay the same however long the session grows.
 *
 * The caller's `history.entries` are watched as in process (the engine's WatchedEntries): once
 * they are edited or replaced, the next request carries the session in full, so the worker sees
 * the edit and refuses it as it always did. A worker that does not hold the entries left out
 * answers 409 `session_history_needed`; the request is then sent in full (remote.ts). A worker
 * that did not say it takes the delta form (an older one) is always sent the session in full.
 */
import { StalwartError, WatchedEntries, type Entry, type SavedSession } from "../../worker/portable/engine/index.js";

type Meta = Omit<SavedSession, "entries">;

export class CarriedSession {
  private meta: Meta;
  private readonly watched: WatchedEntries;
  /** how many of the entries the worker returned or took in full last (0: send in full) */
  private workerHas = 0;

  constructor(saved: SavedSession) {
    const { entries, ...meta } = saved;
    this.meta = meta;
    this.watched = new WatchedEntries(Array.isArray(entries) ? entries : []);
  }

  get id(): string {
    return this.meta.id;
  }

  /** The caller's view of the entries (edits are seen). */
  get view(): Entry[] {
    return this.watched.view;
  }
  set view(v: Entry[]) {
    this.watched.replace(v);
  }

  /** The session to send: in the delta form when the worker returned every entry and none was touched. */
  wire(full = false): Record<string, unknown> {
    if (this.watched.dirty) return { ...this.meta, entries: this.watched.viewTarget };
    const n = this.watched.raw.length;
    if (full || this.workerHas === 0 || this.workerHas !== n) return { ...this.meta, entries: this.watched.raw };
    return { ...this.meta, entries: [], since: n };
  }

  /**
   * Take an answer's session: appended after `since` in the delta form, else replacing all.
   * `delta`: the worker said it takes the delta form; else every request is sent in full.
   */
  take(answer: unknown, delta = true): void {
    // checked before anything is taken: an answer this client cannot take leaves its copy as it was
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) throw new StalwartError("CheckUnavailable", "the worker answered without a session");
    const { entries, since, ...meta } = answer as SavedSession & { since?: unknown };
    // a session keeps its id for life (a new history too): another id is another session's history
    if (meta.id !== this.meta.id) throw new StalwartError("CheckUnavailable", `the worker answered with another session (\`${String(meta.id)}\`, not \`${this.meta.id}\`)`);
    if (since !== undefined && (typeof since !== "number" || !Number.isSafeInteger(since) || since < 0 || since > this.watched.raw.length)) {
      throw new StalwartError("CheckUnavailable", `the worker answered the entries from \`${String(since)}\` on, but this client holds ${this.watched.raw.length}`);
    }
    const got = Array.isArray(entries) ? entries : [];
    this.meta = meta;
    if (since === undefined) this.watched.reset(got);
    else if (since === this.watched.raw.length && !this.watched.dirty) {
      for (const e of got) this.watched.push(e);
    } else this.watched.reset(this.watched.raw.slice(0, since).concat(got));
    this.workerHas = delta ? this.watched.raw.length : 0;
  }

  /** The whole session, as `toJSON()` gives it: a copy. */
  saved(): SavedSession {
    const entries = (this.watched.dirty ? this.watched.viewTarget : this.watched.raw) as Entry[];
    return structuredClone({ ...this.meta, entries });
  }
}
