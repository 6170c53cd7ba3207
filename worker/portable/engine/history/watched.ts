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
  private proxy: Entry[] = [];
  private proxies = new WeakMap<object, object>();
  private ours = new WeakSet<object>();

  constructor(raw: Entry[]) {
    this.raw = raw;
  }

  /** The caller's view. */
  get view(): Entry[] {
    if (!this.made) this.materialise();
    return this.proxy;
  }

  /** What the view wraps: the caller's copy, without the traps (reading it is much cheaper). */
  get viewTarget(): unknown {
    if (!this.made) this.materialise();
    return this.target;
  }

  private materialise(): void {
    const copy = this.raw.map(cloneEntry);
    this.target = copy;
    this.proxy = this.watch(copy) as Entry[];
    this.made = true;
  }

  /** Append an entry the engine made and signed. */
  push(e: Entry): void {
    this.raw.push(e);
    // A copy into the caller's target, beneath the proxy, so our own append does not mark the
    // history dirty. A view the caller replaced (dirty) is theirs: it gets nothing of ours. A view
    // not made yet will copy it when it is.
    if (this.made && !this.dirty && Array.isArray(this.target)) (this.target as Entry[]).push(cloneEntry(e));
  }

  /** Replace everything (after a full verification or a restart at step 0). */
  reset(raw: Entry[]): void {
    this.raw = raw;
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
        const v = Reflect.get(t, key, receiver);
        return typeof v === "object" && v !== null && !self.ours.has(v) ? self.watch(v) : v;
      },
      getOwnPropertyDescriptor(t, key) {
        const d = Reflect.getOwnPropertyDescriptor(t, key);
        // a configurable property may be described with another value: hand out the wrapped one
        if (d && d.configurable && "value" in d && typeof d.value === "object" && d.value !== null && !self.ours.has(d.value)) d.value = self.watch(d.value);
        return d;
      },
      preventExtensions(t) {
        self.dirty = true;
        return Reflect.preventExtensions(t);
      },
      set(t, key, value) {
        self.dirty = true;
        return Reflect.set(t, key, value);
      },
      deleteProperty(t, key) {
        self.dirty = true;
        return Reflect.deleteProperty(t, key);
      },
      defineProperty(t, key, desc) {
        self.dirty = true;
        return Reflect.defineProperty(t, key, desc);
      },
      setPrototypeOf(t, proto) {
        self.dirty = true;
        return Reflect.setPrototypeOf(t, proto);
      },
    });
    this.proxies.set(target, proxy);
    this.ours.add(proxy);
    return proxy;
  }
}
