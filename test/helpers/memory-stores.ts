/** The check worker's stores in memory for `app.request()` tests: counters and session state in the engine's MemoryStateStore, one per tenant. */
import { memoryStores, type Stores } from "../../worker/workerd/check/stores.js";
import { MemoryStateStore } from "../../worker/portable/engine/index.js";

export function testStores(): Stores {
  return memoryStores(() => new MemoryStateStore());
}
