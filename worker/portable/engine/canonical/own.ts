/**
 * Own properties only. Every lookup keyed by user input (an argument, origin, label or fact name,
 * a result field, a catalogue or rulebook name) goes through these, so that a name like
 * `constructor`, `toString` or `__proto__` reads what the data holds — nothing, usually — and
 * never what `Object.prototype` holds.
 */

/** `o[key]` when `o` owns `key`; otherwise undefined (inherited members are not data). */
export function own(o: unknown, key: string): unknown {
  if (o === null || typeof o !== "object") return undefined;
  return Object.hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined;
}

/** Does `o` own `key`? */
export function owns(o: unknown, key: string): boolean {
  return o !== null && typeof o === "object" && Object.hasOwn(o, key);
}

/**
 * A null-prototype copy of a record's own enumerable entries: looking up any name in it finds
 * only what the caller put there. `__proto__` becomes an ordinary entry.
 */
export function ownRecord<V>(entries: Iterable<readonly [string, V]>): Record<string, V> {
  const out = Object.create(null) as Record<string, V>;
  for (const [k, v] of entries) defineOwn(out, k, v);
  return out;
}

/** Sets `o[key] = value` as an own data property, whatever `key` is (`__proto__` included). */
export function defineOwn<V>(o: Record<string, V>, key: string, value: V): void {
  // An assignment makes the same own data property, without a descriptor object per call (hot
  // paths use this), unless the name is inherited: `__proto__`'s setter, or a member of a frozen
  // prototype (an assignment throws there). A null-prototype record inherits nothing.
  if (Object.getPrototypeOf(o) === null || !(key in o)) o[key] = value;
  else Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}
