/**
 * A cache of at most `max` entries, the least recently used dropped first. What a long-running
 * process keeps of what it computed (compiled catalogues and schemas, imported keys) must not
 * grow with every distinct input it is ever given.
 */
export class BoundedCache<K, V> {
  private readonly map = new Map<K, V>();

  constructor(readonly max: number) {}

  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key); // now the most recently used
      this.map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.map.delete(key);
    if (this.map.size >= this.max) this.map.delete(this.map.keys().next().value as K);
    this.map.set(key, value);
  }

  delete(key: K): void {
    this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }
}
