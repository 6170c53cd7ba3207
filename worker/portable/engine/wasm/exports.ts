/**
 * The check core's exports (assembly/ → build/core.wasm) and how an instance of it is made. With
 * core.ts, memory.ts and run-text.ts, the only files that touch `WebAssembly`; Web-standard APIs
 * only, so Node (cli/sdk/wasm-node.ts passes the bytes) and workerd (passes the compiled
 * `WebAssembly.Module`) share them.
 *
 * ABI (abiVersion 1) — only pointers, lengths and status codes cross the boundary:
 * - Memory: static data (hash context, 1024 HMAC key slots of 64 bytes, OUT[32], …) lies
 *   below `inputPtr()`; from there up is the INPUT area we write arguments into. `ensureInput(n)`
 *   grows memory so INPUT holds n bytes and returns 0 (never traps) when it cannot. INPUT never
 *   needs more than CHUNK (1 MiB): larger inputs are streamed through begin/update/end.
 * - `sha256(p, n, out)`; streaming `shaBegin()`, `update(p, n)`, `shaEnd(out)`.
 * - `setKey(slot, p, n)` precomputes the HMAC inner/outer states (RFC 2104) of a key into a slot;
 *   `hmac(slot, p, n, out)`; streaming `hmacBegin(slot)`, `update`, `hmacEnd(out)`.
 *   Calls on a slot never loaded return -1: a MAC under an all-zero state must not happen.
 * - History link: `link(slot, prev, sid, sidLen, entry, entryLen, out)` =
 *   HMAC_slot("stalwart-history-v1" ‖ u32be(sidLen) ‖ sid ‖ prev[32] ‖ u32be(entryLen) ‖ entry);
 *   streaming `linkHead(slot, sidLen)`, update(sid), `linkMid(prev, entryLen)`, update(entry),
 *   hmacEnd(out). The first entry of a history chains on 32 zero bytes.
 * - `verifyRun(slot, prev, sid, sidLen, rec, recLen, count)`: INPUT holds
 *     prev[32] ‖ sid ‖ count × ( u32le entryLen ‖ entry ‖ link[32] )
 *   Each record is recomputed on the *expected* previous link and compared in constant time;
 *   returns the first failing index, -1 when all match, -2 for a malformed layout, -3 bad slot.
 * - `verifyRunHex(slot, prev, sid, sidLen, texts, lens, hexLinks, count)`: the same verdicts over
 *   the layout `verifyRunText` (run-text.ts) writes from strings with two encodes: the entries back
 *   to back at `texts`, their byte lengths (u32le) at `lens`, the claimed links as 64 hex
 *   characters each at `hexLinks` (a link that is not lowercase hex fails at its index).
 * - `verifyRunHexRecords(slot, prev, sid, sidLen, rec, recLen, count)`: `verifyRun`'s layout with
 *   each claimed link as 64 hex characters in place of its 32 bytes (what run-writer.ts writes).
 * - `equal32(a, b)` constant-time comparison of two 32-byte strings.
 * - Counters (step 7, assembly/counters.ts): a table of 8,192 slots in static data;
 *   `counterFits(items, n, now)`, `counterUsed(items, k, now)`, `counterAdd(items, n, now, sign)`
 *   over items laid out in INPUT as digest[32] ‖ until f64 ‖ amount f64 ‖ limit f64;
 *   `counterTable()` / `counterTableBytes()` locate the table to persist and restore it.
 */
import { WasmCoreError } from "./types.js";

const ABI_VERSION = 1;

type Fn = (...args: number[]) => number;

/** The functions the core exports, by name (each takes and returns numbers). */
const FUNCTIONS = [
  "abiVersion", "outPtr", "inputPtr", "slotCapacity", "ensureInput", "sha256", "shaBegin", "update",
  "shaEnd", "setKey", "hmac", "hmacBegin", "hmacEnd", "linkHead", "linkMid", "link", "verifyRun", "verifyRunHex", "verifyRunHexRecords", "equal32",
  "counterFits", "counterUsed", "counterAdd", "counterTable", "counterTableBytes",
] as const;

export type Exports = { readonly memory: WebAssembly.Memory } & { readonly [K in (typeof FUNCTIONS)[number]]: Fn };

/** Each export the core must have, by name and kind; the first missing one, or null. */
function missingExport(exports: WebAssembly.Exports): string | null {
  if (!(Object.hasOwn(exports, "memory") && exports.memory instanceof WebAssembly.Memory)) return "memory";
  for (const name of FUNCTIONS) {
    if (!Object.hasOwn(exports, name) || typeof exports[name] !== "function") return name;
  }
  return null;
}

function isExports(exports: WebAssembly.Exports): exports is WebAssembly.Exports & Exports {
  return missingExport(exports) === null;
}

/** The module for `source`: as given, or compiled from its bytes (Node; workerd passes a Module). */
function moduleOf(source: BufferSource | WebAssembly.Module): WebAssembly.Module {
  if (source instanceof WebAssembly.Module) return source;
  // Workers' types make Module abstract (they only instantiate pre-compiled modules); Node's
  // constructor compiles bytes synchronously. Reflect.construct calls it without retyping it.
  let compiled: unknown;
  try {
    compiled = Reflect.construct(WebAssembly.Module, [source]);
  } catch (err) {
    throw new WasmCoreError("WasmBadModule", `the check core's bytes are not a WebAssembly module (${(err as Error)?.message ?? String(err)})`, "rebuild it with `npm run build:wasm`");
  }
  if (!(compiled instanceof WebAssembly.Module)) throw new WasmCoreError("WasmBadModule", "the check core's bytes did not compile to a module");
  return compiled;
}

/** An instance of the core with every export checked by name and its ABI version by value. */
export function instantiate(source: BufferSource | WebAssembly.Module): Exports {
  // The module imports nothing today; `env.abort` is there in case a future build adds assertions.
  const instance = new WebAssembly.Instance(moduleOf(source), {
    env: {
      abort(): never {
        throw new WasmCoreError("WasmBadModule", "the check core aborted");
      },
    },
  });
  const exports = instance.exports;
  if (!isExports(exports)) {
    throw new WasmCoreError("WasmBadModule", `the check core lacks the export \`${missingExport(exports)}\``, "rebuild it with `npm run build:wasm`");
  }
  const abi = exports.abiVersion();
  if (abi !== ABI_VERSION) {
    throw new WasmCoreError("WasmBadModule", `the check core speaks ABI ${abi}, expected ${ABI_VERSION}`, "rebuild it with `npm run build:wasm`");
  }
  return exports;
}
