/**
 * What this isolate last knew a session's object to hold (issue 14): the object's answer to a
 * load, or the state a commit of this isolate made from one. A write check whose carried history
 * ends at the head held here uses it instead of a load — one Durable Object call fewer.
 *
 * Why that cannot change an answer: the object moves its head on every commit, and the check's
 * commit is a compare-and-set on the head the history carries. A state held here is used only
 * when its head is that head; if the object has moved on since (another isolate answered the
 * session, the idle alarm reclaimed it), the commit fails and the check answers `history_invalid`,
 * as it does when a load and a commit are overtaken between them; a spent name the object holds
 * and this state lacks is refused by the object's commit itself. A head can recur only across a
 * restart (a history replayed entry for entry, over tallies that outlive it): a restart gives the
 * object a new epoch, and a commit decided on a held state carries that state's epoch, so the
 * object refuses it as a moved head. A miss is never wrong, only a load. Bounded by the names held
 * (LRU by session).
 */
import type { Head } from "../../portable/engine/index.js";

/** At most this many spent names and tallies held per isolate, across sessions. */
const MAX_ITEMS = 50_000;

export interface KeptState {
  readonly head: Head;
  /** never edited: a commit that spends makes a new set */
  readonly spent: ReadonlySet<string>;
  readonly tallies: Readonly<Record<string, number>>;
  /** the object's epoch this state was read or committed in (session-state-object.ts) */
  readonly epoch: string;
}

interface Slot {
  state: KeptState;
  size: number;
}

export class KeptStates {
  /** insertion order is use order: a use re-inserts */
  private readonly slots = new Map<string, Slot>();
  private items = 0;

  constructor(private readonly maxItems = MAX_ITEMS) {}

  /** The state held for `name`, only if its head is `head`. */
  get(name: string, head: Head): KeptState | undefined {
    const slot = this.slots.get(name);
    if (!slot || slot.state.head.count !== head.count || slot.state.head.link !== head.link) return undefined;
    this.slots.delete(name);
    this.slots.set(name, slot);
    return slot.state;
  }

  set(name: string, state: KeptState): void {
    this.drop(name);
    const size = 1 + state.spent.size + Object.keys(state.tallies).length;
    if (size > this.maxItems) return;
    this.slots.set(name, { state, size });
    this.items += size;
    for (const [oldest, slot] of this.slots) {
      if (this.items <= this.maxItems) break;
      this.slots.delete(oldest);
      this.items -= slot.size;
    }
  }

  drop(name: string): void {
    const slot = this.slots.get(name);
    if (!slot) return;
    this.slots.delete(name);
    this.items -= slot.size;
  }
}
