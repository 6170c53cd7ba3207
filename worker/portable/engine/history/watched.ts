/**
 * The in-process history the SDK hands out as `history.entries`: plain JSON-shaped objects the
 * caller may read and edit. Every write to them, at any depth, marks the history dirty (a Proxy
 * `set`/`delete`/`defineProperty` trap), so a clean session verifies only what is new — O(1) per
 * check whatever the history length — while any edit of any entry forces the full verification
 * that step 2 then fails (issue 2: "verify only what is new, yet detect any edit of any entry").
 *
 * Two defences, so that an edit made around the traps cannot change what the engine reads (issue
 * 9: `Object.getOwnPropertyDescriptor(entries, "3").value` handed out an entry without its proxy):
 *   - the caller's view wraps a copy of the engine's entries, never the engine's own objects;
 *     whatever reaches the copy, the engine checks against what it signed;
 *   - every way of reading a property through the view (`get`, `getOwnPropertyDescriptor`, and so
 *     `Object.getOwnPropertyDescriptors`, `Object.entries`, spreading, iterating) hands out nested
 *     objects wrapped, so an edit of them is seen by the traps and marks the history dirty.
 */
import { cloneEntry } from "./copy.js";
import type { Entry } from "./entry.js";

export class WatchedEntries {
  /** The entries the engine signed and indexes (valid while !dirty); the caller never holds them. */
  raw: Entry[];
  dirty = false;
  /**
   * The caller's copy and its proxy, made when first asked for: a session that is resumed,
   * checked and saved again by a caller that never reads the entries (the worker) copies them once.
   */
  /** whether the caller's copy exists yet (or the caller gave their own) */
  made = false;
  private target: unknown = undefined;
  /**
   * How many of `raw` the caller's copy holds. The engine's appends are copied into it when the
   * caller next looks (any trap of the list, or `view`), not as they are made: a caller that read
   * the history once does not pay a copy of every later entry at every check (round 27).
   */
  private copied = 0;
  private proxy: Entry[] = [];
  private proxies = new WeakMap<object, object>();
  private ours = new WeakSet<object>();

  constructor(raw: Entry[]) {
    this.raw = raw;
  }

  /** The caller's view. */
  get view(): Entry[] {
    if (!this.made) this.materialise();
    else this.catchUp();
    return this.proxy;
  }

  /** What the view wraps: the caller's copy, without the traps (reading it is much cheaper). */
  get viewTarget(): unknown {
    if (!this.made) this.materialise();
    else this.catchUp();
    return this.target;
  }

  private materialise(): void {
    const copy = this.raw.map(cloneEntry);
    this.target = copy;
    this.copied = copy.length;
    this.proxy = this.watch(copy) as Entry[];
    this.made = true;
  }

  /** Append an entry the engine made and signed (copied into the caller's list when they next look). */
  push(e: Entry): void {
    this.raw.push(e);
  }

  /**
   * The engine's appends since the caller last looked, copied into the caller's list beneath the
   * proxy (our own append does not mark the history dirty). A list the caller replaced or edited
   * (dirty) is theirs: it gets nothing of ours. A view not made yet copies everything when it is.
   */
  private catchUp(): void {
    const raw = this.raw;
    if (this.copied >= raw.length || !this.made || this.dirty || !Array.isArray(this.target)) return;
    const target = this.target as Entry[];
    for (let i = this.copied; i < raw.length; i++) target.push(cloneEntry(raw[i]!));
    this.copied = raw.length;
  }

  /** A caller's edit anywhere in the view: the list first takes what it had not copied yet, so the edited copy is the whole history. */
  private edited(): void {
    this.catchUp();
    this.dirty = true;
  }

  /** Replace everything (after a full verification or a restart at step 0). */
  reset(raw: Entry[]): void {
    this.raw = raw;
    this.copied = 0;
    this.proxies = new WeakMap();
    this.ours = new WeakSet();
    this.made = false;
    this.target = undefined;
    this.proxy = [];
    this.dirty = false;
  }

  /** The caller assigned a whole new array. */
  replace(value: unknown): void {
    this.dirty = true;
    this.made = true;
    this.target = value;
    this.proxy = (Array.isArray(value) ? this.watch(value) : value) as Entry[];
  }

  private watch(target: object): object {
    const existing = this.proxies.get(target);
    if (existing) return existing;
    const self = this;
    const proxy = new Proxy(target, {
      get(t, key, receiver) {
        if (t === self.target) self.catchUp();
        const v = Reflect.get(t, key, receiver);
        return typeof v === "object" && v !== null && !self.ours.has(v) ? self.watch(v) : v;
      },
      getOwnPropertyDescriptor(t, key) {
        if (t === self.target) self.catchUp();
        const d = Reflect.getOwnPropertyDescriptor(t, key);
        // a configurable property may be described with another value: hand out the wrapped one
        if (d && d.configurable && "value" in d && typeof d.value === "object" && d.value !== null && !self.ours.has(d.value)) d.value = self.watch(d.value);
        return d;
      },
      has(t, key) {
        if (t === self.target) self.catchUp();
        return Reflect.has(t, key);
      },
      ownKeys(t) {
        if (t === self.target) self.catchUp();
        return Reflect.ownKeys(t);
      },
      preventExtensions(t) {
        self.edited();
        return Reflect.preventExtensions(t);
      },
      set(t, key, value) {
        self.edited();
        return Reflect.set(t, key, value);
      },
      deleteProperty(t, key) {
        self.edited();
        return Reflect.deleteProperty(t, key);
      },
      defineProperty(t, key, desc) {
        self.edited();
        return Reflect.defineProperty(t, key, desc);
      },
      setPrototypeOf(t, proto) {
        self.edited();
        return Reflect.setPrototypeOf(t, proto);
      },
    });
    this.proxies.set(target, proxy);
    this.ours.add(proxy);
    return proxy;
  }
}
