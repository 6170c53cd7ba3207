/**
 * `session.history`: the caller's entries behind a getter and a setter (watched.ts).
 *
 * A class, made once per session, rather than an object literal with `get entries()` and `set
 * entries()` made at every read: V8 gives each such literal's accessors a place in a map it keeps
 * in the old generation, so the young-generation collector treats what the accessors close over as
 * live. Every session whose history was read once was then copied and promoted with everything it
 * held, until a full collection (~1.3 MB promoted per young collection in the write-check bench,
 * its pauses ~8× longer), and each read cost ~0.7 µs, where a read through a class costs nothing
 * measurable (docs/perf/README.md, round 27).
 */
import type { Entry } from "./entry.js";

/** Where the entries are: a history with a view (signed.ts, the SDK's carried session), or none yet. */
export type ViewHolder = () => { view: Entry[] } | undefined;

export class CallerHistory {
  constructor(private readonly holder: ViewHolder) {}

  get entries(): Entry[] {
    return this.holder()?.view ?? [];
  }

  set entries(value: Entry[]) {
    const h = this.holder();
    if (h) h.view = value;
  }
}
