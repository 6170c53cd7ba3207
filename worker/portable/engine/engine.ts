/**
 * The engine: the check core bound to one installation key, a schema compiler and a clock.
 * Runtime-agnostic; Node (cli/) and the worker differ only in how they build the Core and which
 * SchemaCompiler they pass (compiled ajv in Node, an eval-free validator in workerd).
 */
import { checkedClock } from "./clock.js";
import type { Core } from "./wasm/core.js";
import type { SchemaCompiler } from "./catalogue/types.js";
import type { ChainMac } from "./history/verify.js";
import type { LicenceGate } from "./check/types.js";
import type { CounterStore } from "./counters/store.js";
import type { SessionStateStore } from "./state/store.js";
import { toHex } from "./canonical/bytes.js";

export interface EngineOptions {
  core: Core;
  /** the installation (or tenant) key the history and tokens are MAC'd with; ≥ 32 bytes */
  key: Uint8Array;
  schemaCompiler: SchemaCompiler;
  now?: () => Date;
  /** step 1's licence hook; undefined = no licence gating in this engine */
  licence?: () => LicenceGate | undefined;
  /** where step 7's rate-limit and spend counters live */
  counters?: CounterStore;
  /** where each session's newest head, spent names and tallies live (state/store.ts) */
  state?: SessionStateStore;
}

export class Engine {
  readonly core: Core;
  readonly schemaCompiler: SchemaCompiler;
  readonly chain: ChainMac;
  readonly now: () => Date;
  readonly licence: () => LicenceGate | undefined;
  readonly counters?: CounterStore;
  readonly state?: SessionStateStore;
  private readonly slot: number;

  constructor(opts: EngineOptions) {
    if (opts.key.length < 32) throw new Error("the history key must be at least 32 bytes");
    this.core = opts.core;
    this.schemaCompiler = opts.schemaCompiler;
    this.now = opts.now ? checkedClock(opts.now) : () => new Date();
    this.licence = opts.licence ?? (() => undefined);
    if (opts.counters) this.counters = opts.counters;
    if (opts.state) this.state = opts.state;
    const slot = (this.slot = opts.core.loadKey(opts.key));
    const core = opts.core;
    this.chain = {
      link: (sid, prev, entry) => core.link(slot, sid, prev, entry),
      linkText: (sid, prev, entry) => core.linkText(slot, sid, prev, entry),
      verifyRun: (sid, prev, entries, links) => core.verifyRun(slot, sid, prev, entries, links),
      verifyRunText: (sid, prev, entries, links) => core.verifyRunText(slot, sid, prev, entries, links),
      linkWith: core.linkWith
        ? (sid, prev, run, i) => core.linkWith!(slot, sid, prev, run, i)
        : (sid, prev, run, i) => core.linkText(slot, sid, prev, run.text(i)),
      // a Core without the writer path (an older or a reference one) gets the run as strings
      verifyRunWith: core.verifyRunWith
        ? (sid, prev, run) => core.verifyRunWith!(slot, sid, prev, run)
        : (sid, prev, run) => {
            const texts: string[] = new Array(run.count);
            const links: string[] = new Array(run.count);
            for (let i = 0; i < run.count; i++) {
              texts[i] = run.text(i);
              links[i] = run.link(i);
            }
            return core.verifyRunText(slot, sid, prev, texts, links);
          },
    };
  }

  /**
   * The same engine with another counter store (and session-state store). The worker needs one
   * per request: a Durable Object stub belongs to the request that made it.
   */
  withCounters(counters: CounterStore, state?: SessionStateStore): Engine {
    const e = Object.create(this) as Engine;
    (e as { counters?: CounterStore }).counters = counters;
    if (state) (e as { state?: SessionStateStore }).state = state;
    return e;
  }

  /**
   * The same engine on another clock. The worker's clock is the request's (a local test may set
   * it per request), while the engine and its key slot live for the isolate.
   */
  withClock(now: () => Date): Engine {
    const e = Object.create(this) as Engine;
    (e as { now: () => Date }).now = now;
    return e;
  }

  mac(data: Uint8Array): Uint8Array {
    return this.core.hmac(this.slot, data);
  }

  macText(text: string): Uint8Array {
    return this.core.hmacText(this.slot, text);
  }

  /**
   * Let go of the history key's slot in the core (a worker isolate serving more tenants than the
   * core has slots drops its least used engines). A request still using this engine keeps working
   * until another key takes the slot; after that it fails (WasmBadSlot), never MACs under that key.
   */
  releaseKey(): void {
    this.core.releaseKey(this.slot);
  }

  /**
   * Hex SHA-256 of a string. Short texts repeat a lot from call to call (origins maps, argument
   * values), so their digests are memoised; the cache is dropped whole when it fills.
   */
  sha256Hex(text: string): string {
    if (text.length > 256) return toHex(this.core.sha256Text(text));
    const hit = this.digests.get(text);
    if (hit !== undefined) return hit;
    if (this.digests.size >= 8192) this.digests.clear();
    const hex = toHex(this.core.sha256Text(text));
    this.digests.set(text, hex);
    return hex;
  }

  private readonly digests = new Map<string, string>();
}
