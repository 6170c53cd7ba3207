/**
 * The in-process history the SDK hands out as `history.entries`: plain JSON-shaped objects the
 * caller may read and edit. Every write to them, at any depth, marks the history dirty (a Proxy
 * `set`/`delete`/`defineProperty` trap), so a clean session verifies only what is new — O(1) per
 * check whatever the history length — while any edit of any entry forces the full verification
 * that step 2 then fails (issue 2: "verify only what is new, yet detect any edit of any entry").
 */
import type { Entry } from "./entry.js";

export class WatchedEntries {
  /** The caller's view. */
  view: Entry[];
  /** What the view wraps: the same objects without the traps (reading them is much cheaper). */
  viewTarget: unknown;
  /** The entries the engine signed and indexes; the view wraps these same objects, so an edit
   * through the view lands here too and marks the history dirty (valid while !dirty). */
  raw: Entry[];
  dirty = false;
  private proxies = new WeakMap<object, object>();
  private ours = new WeakSet<object>();

  constructor(raw: Entry[]) {
    this.raw = raw;
    this.viewTarget = raw;
    this.view = this.watch(raw) as Entry[];
  }

  /** Append an entry the engine made and signed. */
  push(e: Entry): void {
    // Into the target, not through the proxy, so our own append does not mark the history dirty.
    this.raw.push(e);
  }

  /** Replace everything (after a full verification or a restart at step 0). */
  reset(raw: Entry[]): void {
    this.raw = raw;
    this.proxies = new WeakMap();
    this.ours = new WeakSet();
    this.viewTarget = raw;
    this.view = this.watch(raw) as Entry[];
    this.dirty = false;
  }

  /** The caller assigned a whole new array. */
  replace(value: unknown): void {
    this.dirty = true;
    this.viewTarget = value;
    this.view = (Array.isArray(value) ? this.watch(value) : value) as Entry[];
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
