/** The check worker's stores in memory for `app.request()` tests, counters on the WASM table. */
import { memoryStores, type CounterStore, type Stores } from "../../worker/workerd/check/stores.js";
import { LocalCounterStore } from "../../worker/portable/engine/counters/local.js";
import { freshCore } from "../../cli/sdk/wasm-node.js";

function wasmCounters(): CounterStore {
  const core = freshCore();
  const local = new LocalCounterStore(core, (b) => core.sha256(b), () => {});
  return {
    reserve: async (id, items, now) => local.reserve(id, items, now),
    peek: async (items, now) => local.peek(items, now),
    release: async (id, now) => local.release(id, now),
  };
}

export function testStores(): Stores {
  return memoryStores(wasmCounters);
}
