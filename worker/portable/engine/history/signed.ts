/**
 * One session's signed history (checks.md, "The session history"): the caller's watched view,
 * the head (entry count and last link), appending a signed entry, verifying what the caller
 * carries, and restarting at step 0 after `history_invalid`. The caller carries the entries; this
 * class verifies only what is new unless the caller touched them (watched.ts), when it verifies
 * everything.
 */
import { fromHex, toHex, utf8 } from "../canonical/bytes.js";
import { jsonData } from "../canonical/json-data.js";
import type { CompiledCatalogue, Language } from "../catalogue/types.js";
import { TurnIndex, tokenizeTurn, type TokenizedTurn } from "../origins/typed.js";
import { entryCanonical, type Entry, type TurnEntry } from "./entry.js";
import { writeEntry } from "./entry-bytes.js";
import type { RunSource } from "../wasm/types.js";
import { HistoryIndex } from "./index.js";
import { GENESIS, verifyChain, verifyShaped, type ChainMac, type ChainVerdict } from "./verify.js";
import { readEntries, samePrefix } from "./copy.js";
import { WatchedEntries } from "./watched.js";

import type { Head } from "../state/store.js";

export type { Head } from "../state/store.js";

export type Verified = { ok: true } | { ok: false; why: string };

/**
 * The first `count` entries of a session's history, as this runtime verified them, and the link
 * they end on: a later copy of the session that starts with exactly these entries needs only what
 * follows verified (the worker keeps these per isolate: worker/workerd/check/verified-heads.ts).
 * Entries the engine holds are never changed after they are appended, so they can be shared.
 */
export interface KnownPrefix {
  readonly sessionId: string;
  readonly entries: readonly Entry[];
  readonly count: number;
  readonly head: Uint8Array;
  /** the indexes built over exactly these entries, for the one later copy that takes them */
  readonly indexes?: PrefixIndexes;
}

/**
 * A history's indexes handed on with its verified prefix: the first later copy to verify after the
 * prefix takes them (`taken`) and adds only its new entries; any other copy rebuilds its own, so no
 * two histories ever share one.
 */
interface PrefixIndexes {
  readonly history: HistoryIndex;
  readonly turns: TurnIndex;
  readonly catalogue: CompiledCatalogue;
  readonly count: number;
  taken: boolean;
}

export class SignedHistory {
  private readonly sid: Uint8Array;
  private readonly watched: WatchedEntries;
  private last: Uint8Array = GENESIS;
  /** `last` in hex, kept beside it: the head is read on every check */
  private lastHex = "";
  /** how many entries we have signed, with `last`: a valid prefix is still a cut history */
  private signedCount = 0;
  private broken: string | undefined;
  private indexed: HistoryIndex;
  private turnIndex: TurnIndex;

  constructor(
    private readonly chain: ChainMac,
    readonly sessionId: string,
    private readonly catalogue: CompiledCatalogue,
    private readonly language: Language,
  ) {
    this.sid = utf8(sessionId);
    this.watched = new WatchedEntries([]);
    this.indexed = new HistoryIndex(catalogue, this.watched.raw);
    this.turnIndex = new TurnIndex(language);
  }

  /** The caller's entries: plain objects; editing one is detected at the next verification. */
  get view(): Entry[] {
    this.spell();
    return this.watched.view;
  }
  set view(value: Entry[]) {
    this.delta = undefined;
    this.watched.replace(value);
  }
  /** What the view wraps, read beneath the traps (for serialising). */
  get viewTarget(): unknown {
    this.spell();
    return this.watched.viewTarget;
  }
  /**
   * A carried `knownThen` list, while nobody but `verify` has looked at it: the known entries are
   * not copied unless someone asks for the list itself, when it is spelt out as an ordinary array
   * (what the caller then holds, and what the verification falls back to, is that array).
   */
  private delta: KnownThen | undefined;
  private spell(): void {
    const d = this.delta;
    if (d === undefined) return;
    this.delta = undefined;
    this.watched.replace(spelt(d));
  }
  /** The entries as signed (valid after a successful `verify()`). */
  get entries(): readonly Entry[] {
    return this.watched.raw;
  }
  get index(): HistoryIndex {
    return this.indexed;
  }
  get turns(): TurnIndex {
    return this.turnIndex;
  }
  get head(): Head {
    return { count: this.signedCount, link: this.signedCount === 0 ? "" : this.lastHex };
  }

  /** Take the caller's entries as they come back from a saved session (verified at the next use). */
  carry(entries: Entry[], known?: KnownPrefix): void {
    this.delta = knownThenOf(entries);
    this.watched.replace(entries);
    if (known && known.sessionId === this.sessionId && known.count <= known.entries.length) this.known = known;
  }
  private known: KnownPrefix | undefined;

  /**
   * What this history has verified and signed, for a later copy of it (null while it cannot say).
   * Its indexes go with it: this history must not be appended to afterwards (the worker asks at the
   * end of a request).
   */
  verifiedPrefix(): KnownPrefix | null {
    if (this.broken !== undefined || this.watched.dirty) return null;
    const count = this.watched.raw.length;
    const indexes: PrefixIndexes = { history: this.indexed, turns: this.turnIndex, catalogue: this.catalogue, count, taken: false };
    return { sessionId: this.sessionId, entries: this.watched.raw, count, head: this.last, indexes };
  }

  /** The entries to serialise: the caller's copy when one was made, else our own (never edited). */
  get serialisable(): unknown {
    return this.watched.made ? this.watched.viewTarget : this.watched.raw;
  }

  /** `entries` is `known`'s own list and nothing after it: a `knownThen` over exactly that prefix. */
  carriesExactly(entries: unknown, known: KnownPrefix): boolean {
    const d = knownThenOf(entries);
    return d !== undefined && d.known === known.entries && d.since === known.count && d.rest.length === 0 && known.sessionId === this.sessionId;
  }

  /** The head the saved session's head seal vouched for: what we signed last. */
  trustHead(count: number, last: Uint8Array): void {
    this.signedCount = count;
    this.last = last;
    this.lastHex = toHex(last);
  }

  /** The saved session cannot be trusted as a whole: the next verification fails with `why`. */
  markBroken(why: string): void {
    this.broken = why;
  }

  /** Verify what needs verifying; on success our own copy is refreshed from the caller's. */
  verify(): Verified {
    if (this.broken !== undefined) return { ok: false, why: this.broken };
    if (!this.watched.dirty) return { ok: true };
    const expect = { expectedCount: this.signedCount, ...(this.signedCount > 0 ? { expectedHead: this.lastHex } : {}) };
    // A copy of the caller's objects, read once: what they hold now is what is verified, and later
    // edits to their objects cannot reach ours. Plain entries are read field by field; anything
    // unusual takes the JSON round trip, whose reading says exactly what is wrong.
    // A failure the fast way is verified again the long way: its reason is the long way's.
    let v: ChainVerdict | undefined = this.verifyAfterKnown(expect);
    const after = v?.ok ? this.afterKnown : undefined;
    this.afterKnown = undefined;
    // the long ways read the list as the caller would see it: a delta list spelt out in full
    if (v === undefined || !v.ok) this.spell();
    if (v === undefined || !v.ok) {
      const read = readEntries(this.watched.viewTarget);
      v = read !== null ? verifyShaped(this.chain, this.sessionId, read, expect) : undefined;
    }
    if (v === undefined || !v.ok) {
      let view: unknown;
      try {
        view = jsonData(this.watched.viewTarget);
      } catch {
        return { ok: false, why: "the history is not JSON data" };
      }
      v = verifyChain(this.chain, this.sessionId, view, expect);
    }
    if (!v.ok) return { ok: false, why: v.why };
    this.watched.reset(v.entries);
    this.last = v.head;
    this.lastHex = toHex(v.head);
    const held = after?.indexes;
    if (after && held && !held.taken && held.count === after.count && held.catalogue === this.catalogue && held.turns.language === this.language) {
      // the prefix's indexes, taken: only the entries after it are added
      held.taken = true;
      this.indexed = held.history;
      this.indexed.rebind(this.watched.raw);
      this.turnIndex = held.turns;
      for (let i = after.count; i < v.entries.length; i++) {
        const e = v.entries[i]!;
        this.indexed.add(e);
        if (e.kind === "turn") this.turnIndex.add(tokenized(e, this.language));
      }
      return { ok: true };
    }
    this.indexed = new HistoryIndex(this.catalogue, this.watched.raw);
    this.turnIndex = new TurnIndex(this.language);
    // the turns the index found, not a loop over the whole history here: this runs once per check,
    // and such a loop made the optimiser compile it, turn folding inlined, on a process's first resumes
    for (const step of this.indexed.turnSteps) this.turnIndex.add(tokenized(v.entries[step] as TurnEntry, this.language));
    return { ok: true };
  }
  /** the known prefix the last verifyAfterKnown verified after */
  private afterKnown: KnownPrefix | undefined;

  /**
   * When the caller's entries start with a known verified prefix, entry for entry, only the rest
   * is read and verified, chained on the prefix's last link; undefined when they do not. A
   * `knownThen` list over exactly this prefix is not compared at all: its first entries are the
   * prefix's own objects by construction, so the work is O(the entries after it).
   */
  private verifyAfterKnown(expect: { expectedCount: number; expectedHead?: string }): ChainVerdict | undefined {
    const known = this.known;
    this.known = undefined;
    if (!known || known.count === 0) return undefined;
    const d = this.delta;
    let rest: Entry[] | null;
    if (d !== undefined && d.known === known.entries && d.since === known.count) {
      rest = readEntries(d.rest);
    } else {
      this.spell();
      const target = this.watched.viewTarget;
      // the worker's delta form hands back the known objects themselves (worker/workerd/check/carried.ts)
      if (!identicalPrefix(target, known.entries, known.count) && !samePrefix(target, known.entries, known.count)) return undefined;
      rest = readEntries((target as unknown[]).slice(known.count));
    }
    if (rest === null) return undefined;
    // The prefix's list is only ever appended to, and every reader of a prefix stops at its count:
    // the first history to verify after it takes the list itself and appends what it verifies
    // (nothing is left on it if the verification fails); any other copy copies the prefix.
    const base = known.entries as Entry[];
    const own = base.length === known.count && takenAt.get(base) !== known.count;
    const all = own ? base : base.slice(0, known.count);
    for (let i = 0; i < rest.length; i++) all.push(rest[i]!);
    const v = verifyShaped(this.chain, this.sessionId, all, { ...expect, from: known.count, prev: known.head });
    if (!v.ok) {
      if (own) base.length = known.count;
      return v;
    }
    if (own) takenAt.set(base, known.count);
    this.afterKnown = known;
    return v;
  }

  /** `history_invalid`: a new history starts at step 0 (checks.md). */
  restart(): void {
    this.broken = undefined;
    this.delta = undefined;
    this.signedCount = 0;
    this.watched.reset([]);
    this.indexed = new HistoryIndex(this.catalogue, this.watched.raw);
    this.last = GENESIS;
    this.lastHex = "";
    this.turnIndex = new TurnIndex(this.language);
  }

  /** Sign an entry as the next one (its `step` and `link` are set here) without appending it. */
  seal<E extends Entry>(entry: E): E {
    entry.step = this.watched.raw.length;
    this.sealing = entry;
    const link = this.chain.linkWith(this.sid, this.last, this.sealingRun, 0);
    this.sealing = undefined;
    entry.link = toHex(link);
    this.sealed = { entry, link };
    return entry;
  }
  /** the entry `seal` is signing, as the one record of `sealingRun` (its bytes go straight into the core) */
  private sealing: Entry | undefined;
  private readonly sealingRun: RunSource = {
    count: 1,
    write: (_, u8, at, end) => writeEntry(this.sealing!, u8, at, end),
    text: () => entryCanonical(this.sealing!),
    link: () => "",
  };
  /** the last entry `seal` signed and its link's bytes (saves decoding the hex again) */
  private sealed?: { entry: Entry; link: Uint8Array };

  /** Append an entry `seal` signed, if nothing was appended since. */
  push(entry: Entry): void {
    if (entry.step !== this.watched.raw.length) throw new Error("an entry sealed for another place in the history");
    const link = this.sealed?.entry === entry ? this.sealed.link : fromHex(entry.link);
    if (!link || link.length !== 32) throw new Error("an entry without a link");
    this.last = link;
    this.lastHex = entry.link;
    this.signedCount++;
    this.watched.push(entry);
    this.indexed.add(entry);
    if (entry.kind === "turn") this.turnIndex.add(tokenized(entry, this.language));
  }

  /** Sign and append an entry. */
  append<E extends Entry>(entry: E): E {
    this.push(this.seal(entry));
    return entry;
  }

  /** The head this history will have once `entry` (sealed) is pushed. */
  static headAfter(entry: Entry): Head {
    return { count: entry.step + 1, link: entry.link };
  }
}

/** Each known prefix list taken by a history after it, with the count it was taken at (verifyAfterKnown). */
const takenAt = new WeakMap<readonly Entry[], number>();

/**
 * A session's entries as "the first `since` entries of a known verified prefix, then these":
 * what the worker's delta form carries (worker/workerd/check/carried.ts), without copying the
 * prefix. `knownThen` hands out an array-like list (a Proxy over an empty array, so
 * `Array.isArray` holds) whose length and elements are those of the whole history; the saved
 * session's head seal is checked on it as on any list. `SignedHistory` recognises it and verifies
 * only `rest`, chained on the prefix; anything else that reads it sees an ordinary list.
 */
interface KnownThen {
  readonly known: readonly Entry[];
  readonly since: number;
  readonly rest: readonly unknown[];
}
const knownThens = new WeakMap<object, KnownThen>();

export function knownThen(known: readonly Entry[], since: number, rest: readonly unknown[]): unknown[] {
  const d: KnownThen = { known, since, rest };
  const at = (key: string | symbol): number => {
    if (typeof key !== "string") return -1;
    const i = Number(key);
    return Number.isInteger(i) && i >= 0 && String(i) === key && i < since + rest.length ? i : -1;
  };
  const list = new Proxy([] as unknown[], {
    get(_t, key) {
      if (key === "length") return since + rest.length;
      const i = at(key);
      if (i >= 0) return i < since ? known[i] : rest[i - since];
      // anything else (iteration, methods) on the spelt-out copy: it behaves as the whole list
      const full = spelt(d);
      const v: unknown = Reflect.get(full, key);
      return typeof v === "function" ? v.bind(full) : v;
    },
    has(t, key) {
      return key === "length" || at(key) >= 0 || key in t;
    },
    set: () => false,
    deleteProperty: () => false,
    defineProperty: () => false,
  });
  knownThens.set(list, d);
  return list;
}

function knownThenOf(list: unknown): KnownThen | undefined {
  return typeof list === "object" && list !== null ? knownThens.get(list) : undefined;
}

/** A `knownThen` list as an ordinary array (the prefix's objects, then the rest). */
function spelt(d: KnownThen): Entry[] {
  const out = d.known.slice(0, d.since) as unknown[];
  for (const e of d.rest) out.push(e);
  return out as Entry[];
}

/** `list` starts with exactly the objects of `known` (not copies): nothing to compare field by field. */
function identicalPrefix(list: unknown, known: readonly Entry[], count: number): boolean {
  if (!Array.isArray(list) || Object.getPrototypeOf(list) !== Array.prototype || list.length < count) return false;
  for (let i = count - 1; i >= 0; i--) if (list[i] !== known[i]) return false;
  return true;
}

/**
 * Each turn entry's folded form, kept with the (never edited) entry object: a history rebuilt
 * after a known prefix (the worker's delta form) re-adds its turns without folding them again.
 * On the entry itself, under a symbol no serialiser or copy reads (not enumerable), rather than in
 * a module-wide WeakMap: V8's young collector keeps a long-lived WeakMap's value while its key is
 * young, so every session's folded turns (as long as its turns) were promoted and copied twice
 * (test/sdk/history-view-gc.test.ts).
 */
const FOLDED = Symbol("stalwart.foldedTurn");
function tokenized(e: Entry & { kind: "turn" }, language: Language): TokenizedTurn {
  const hit = Object.hasOwn(e, FOLDED) ? (Reflect.get(e, FOLDED) as TokenizedTurn) : undefined;
  if (hit && hit.language === language) return hit;
  const t = tokenizeTurn(e.text, language);
  // writable: a turn read again in another language replaces it
  if (hit || Object.isExtensible(e)) Object.defineProperty(e, FOLDED, { value: t, enumerable: false, writable: true, configurable: false });
  return t;
}
