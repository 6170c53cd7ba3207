/** Deep freeze for the compiled catalogue (compile once, check many: nobody mutates it). */
export function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || (typeof value !== "object" && typeof value !== "function") || seen.has(value)) return value;
  seen.add(value);
  if (value instanceof Map) {
    for (const [k, v] of value) {
      deepFreeze(k, seen);
      deepFreeze(v, seen);
    }
    freezeCollection(value, ["set", "delete", "clear"]);
  } else if (value instanceof Set) {
    for (const v of value) deepFreeze(v, seen);
    freezeCollection(value, ["add", "delete", "clear"]);
  } else if (typeof value === "object") {
    for (const k of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[k], seen);
  }
  return Object.freeze(value);
}

/** Object.freeze does not stop Map#set; shadow the mutators so a frozen Map/Set really is. */
function freezeCollection(c: Map<unknown, unknown> | Set<unknown>, methods: string[]): void {
  for (const m of methods) {
    Object.defineProperty(c, m, {
      value: () => {
        throw new TypeError("the compiled catalogue is immutable");
      },
      enumerable: false,
    });
  }
}
