/**
 * The check core's hot path (assembly/ → build/core.wasm), typed for TypeScript. This is the only
 * file that touches `WebAssembly`; it uses Web-standard APIs only, so Node (cli/sdk/wasm-node.ts passes
 * the bytes) and workerd (passes the compiled `WebAssembly.Module`) share it.
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
 *   the layout `verifyRunText` writes from strings with two encodes: the entries back to back at
 *   `texts`, their byte lengths (u32le) at `lens`, the claimed links as 64 hex characters each at
 *   `hexLinks` (a link that is not lowercase hex fails at its index).
 * - `equal32(a, b)` constant-time comparison of two 32-byte strings.
 * - Counters (step 7, assembly/counters.ts): a table of 8,192 slots in static data;
 *   `counterFits(items, n, now)`, `counterUsed(items, k, now)`, `counterAdd(items, n, now, sign)`
 *   over items laid out in INPUT as digest[32] ‖ until f64 ‖ amount f64 ‖ limit f64;
 *   `counterTable()` / `counterTableBytes()` locate the table to persist and restore it.
 */
import { WasmCoreError, type Bytes, type Core, type CounterCell, type CounterCore } from "./types.js";

export { WasmCoreError, type Bytes, type Core, type CounterCell, type CounterCore, type WasmCoreCode } from "./types.js";

const ABI_VERSION = 1;

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  return -1;
}
/** Inputs above this many bytes are streamed, so INPUT (and the memory) stays about this size. */
const CHUNK = 1 << 20;
const LINK_BYTES = 32;

interface Exports {
  memory: WebAssembly.Memory;
  abiVersion(): number;
  outPtr(): number;
  inputPtr(): number;
  slotCapacity(): number;
  ensureInput(len: number): number;
  sha256(p: number, len: number, out: number): void;
  shaBegin(): void;
  update(p: number, len: number): void;
  shaEnd(out: number): void;
  setKey(slot: number, p: number, len: number): number;
  hmac(slot: number, p: number, len: number, out: number): number;
  hmacBegin(slot: number): number;
  hmacEnd(out: number): void;
  linkHead(slot: number, sidLen: number): number;
  linkMid(prev: number, entryLen: number): void;
  link(slot: number, prev: number, sid: number, sidLen: number, entry: number, entryLen: number, out: number): number;
  verifyRun(slot: number, prev: number, sid: number, sidLen: number, rec: number, recLen: number, count: number): number;
  verifyRunHex(slot: number, prev: number, sid: number, sidLen: number, texts: number, lens: number, hexLinks: number, count: number): number;
  equal32(a: number, b: number): number;
  counterFits(items: number, n: number, now: number): number;
  counterUsed(items: number, k: number, now: number): number;
  counterAdd(items: number, n: number, now: number, sign: number): number;
  counterTable(): number;
  counterTableBytes(): number;
}

const EXPORTS: readonly (keyof Exports)[] = [
  "memory", "abiVersion", "outPtr", "inputPtr", "slotCapacity", "ensureInput", "sha256", "shaBegin", "update",
  "shaEnd", "setKey", "hmac", "hmacBegin", "hmacEnd", "linkHead", "linkMid", "link", "verifyRun", "verifyRunHex", "equal32",
  "counterFits", "counterUsed", "counterAdd", "counterTable", "counterTableBytes",
];

export function createCore(source: BufferSource | WebAssembly.Module): Core & CounterCore {
  // Workers only instantiate pre-compiled modules (their types make Module abstract); Node compiles bytes.
  const Compile = WebAssembly.Module as unknown as new (bytes: BufferSource) => WebAssembly.Module;
  const module = source instanceof WebAssembly.Module ? source : new Compile(source);
  // The module imports nothing today; `env.abort` is there in case a future build adds assertions.
  const instance = new WebAssembly.Instance(module, {
    env: {
      abort(): never {
        throw new WasmCoreError("WasmBadModule", "the check core aborted");
      },
    },
  });
  const w = instance.exports as unknown as Exports;
  for (const name of EXPORTS) {
    if (!(name in w)) throw new WasmCoreError("WasmBadModule", `the check core lacks the export \`${name}\``, "rebuild it with `npm run build:wasm`");
  }
  if (w.abiVersion() !== ABI_VERSION) {
    throw new WasmCoreError("WasmBadModule", `the check core speaks ABI ${w.abiVersion()}, expected ${ABI_VERSION}`, "rebuild it with `npm run build:wasm`");
  }

  const OUT = w.outPtr();
  const IN = w.inputPtr();
  const SLOTS = w.slotCapacity();
  let buffer = w.memory.buffer;
  let u8 = new Uint8Array(buffer);
  let dv = new DataView(buffer);
  /** Bytes INPUT holds without growing. */
  let room = buffer.byteLength - IN;

  /** Make INPUT hold `n` bytes; views are rebuilt only when the memory actually grew. */
  function reserve(n: number): void {
    if (n <= room) return;
    if (w.ensureInput(n) !== 1) {
      throw new WasmCoreError(
        "WasmOutOfMemory",
        `the check core cannot grow its memory to hold ${n} input bytes`,
        "the isolate is out of memory; inputs over 1 MiB are already streamed, so look for what else holds memory",
      );
    }
    if (w.memory.buffer !== buffer) {
      buffer = w.memory.buffer;
      u8 = new Uint8Array(buffer);
      dv = new DataView(buffer);
    }
    room = buffer.byteLength - IN;
  }

  /** update() over `data` in CHUNK-sized pieces. */
  function stream(data: Uint8Array): void {
    reserve(Math.min(data.length, CHUNK));
    for (let off = 0; off < data.length; off += CHUNK) {
      const piece = data.subarray(off, off + CHUNK);
      u8.set(piece, IN);
      w.update(IN, piece.length);
    }
  }

  const out = (): Bytes => u8.slice(OUT, OUT + 32);
  const encoder = new TextEncoder();

  /**
   * Encode `text` as UTF-8 into INPUT at `offset`; its byte length, or -1 when it may not fit in
   * one load (the caller then encodes to a separate array and streams). UTF-8 takes at most 3
   * bytes per UTF-16 unit, which bounds the room to reserve.
   */
  function encodeAt(text: string, offset: number): number {
    const most = offset + text.length * 3;
    if (most > CHUNK) return -1;
    reserve(most);
    return writeText(text, IN + offset);
  }

  /**
   * `text` as UTF-8 at `at` (room for 3 bytes per unit reserved); the bytes written. Short ASCII
   * by hand; anything longer through encodeInto, which is native and does not care whether the
   * string is a rope (an entry's canonical text is one): a byte loop cost 4× as much at 300 units.
   */
  function writeText(text: string, at: number): number {
    const n = text.length;
    if (n < 32) {
      const mem = u8;
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c > 0x7f) break;
        mem[at + i] = c;
      }
      if (i === n) return n;
    }
    return encoder.encodeInto(text, u8.subarray(at, at + n * 3)).written;
  }

  // Same key bytes → same slot. Keyed by the key's digest so no key material is kept in JS.
  const slotOf = new Map<string, number>();
  const slotKey: (string | undefined)[] = [];
  let nextSlot = 0;
  const loaded = (slot: number): boolean => Number.isInteger(slot) && slot >= 0 && slot < nextSlot;

  function fingerprint(key: Uint8Array): string {
    let s = "";
    for (const b of core.sha256(key)) s += String.fromCharCode(b);
    return s;
  }

  function putKey(slot: number, key: Uint8Array): void {
    if (key.length <= CHUNK) {
      reserve(key.length);
      u8.set(key, IN);
      w.setKey(slot, IN, key.length);
    } else {
      // RFC 2104 §2: a key longer than a block is replaced by its digest; same MAC, bounded memory.
      const digest = core.sha256(key);
      u8.set(digest, IN);
      w.setKey(slot, IN, 32);
    }
  }

  function badSlot(slot: number): never {
    throw new WasmCoreError("WasmBadSlot", `key slot \`${slot}\` was never loaded`, "use the slot loadKey returned");
  }

  function checkPrev(prev: Uint8Array): void {
    if (prev.length !== LINK_BYTES) {
      throw new WasmCoreError("WasmBadArgument", `a previous link must be 32 bytes, got ${prev.length}`);
    }
  }

  /** Streamed link into OUT, for inputs too big for one INPUT load. */
  function linkStreamed(slot: number, sid: Uint8Array, prev: Uint8Array, entry: Uint8Array): void {
    if (w.linkHead(slot, sid.length) !== 0) badSlot(slot);
    stream(sid);
    u8.set(prev, IN);
    w.linkMid(IN, entry.length);
    stream(entry);
    w.hmacEnd(OUT);
  }

  const ITEM = 56;
  /** Lay counter items out in INPUT: digest[32] ‖ until ‖ amount ‖ limit (f64, little-endian). */
  function putItems(items: readonly CounterCell[]): void {
    reserve(items.length * ITEM);
    for (let k = 0; k < items.length; k++) {
      const at = IN + k * ITEM;
      const it = items[k]!;
      if (it.digest.length !== 32) throw new WasmCoreError("WasmBadArgument", "a counter key digest must be 32 bytes");
      u8.set(it.digest, at);
      dv.setFloat64(at + 32, it.until, true);
      dv.setFloat64(at + 40, it.amount, true);
      dv.setFloat64(at + 48, it.limit, true);
    }
  }

  /** A 64-character lowercase hex link decoded into memory at `at`; false when it is not one. */
  function hexInto(hex: string, at: number): boolean {
    if (hex.length !== 2 * LINK_BYTES) return false;
    for (let b = 0; b < LINK_BYTES; b++) {
      const hi = nibble(hex.charCodeAt(2 * b));
      const lo = nibble(hex.charCodeAt(2 * b + 1));
      if ((hi | lo) < 0) return false;
      u8[at + b] = (hi << 4) | lo;
    }
    return true;
  }

  function hexLink(hex: string): Uint8Array | null {
    reserve(LINK_BYTES);
    return hexInto(hex, IN) ? u8.slice(IN, IN + LINK_BYTES) : null;
  }

  const core: Core & CounterCore = {
    counterFits(items, now) {
      putItems(items);
      return w.counterFits(IN, items.length, now);
    },
    counterUsed(items, k, now) {
      putItems(items);
      return w.counterUsed(IN, k, now);
    },
    counterAdd(items, now, sign) {
      putItems(items);
      return w.counterAdd(IN, items.length, now, sign) === 0;
    },
    counterSnapshot() {
      const at = w.counterTable();
      return u8.slice(at, at + w.counterTableBytes());
    },
    counterRestore(bytes) {
      if (bytes.length !== w.counterTableBytes()) throw new WasmCoreError("WasmBadArgument", `a counter table is ${w.counterTableBytes()} bytes, got ${bytes.length}`);
      u8.set(bytes, w.counterTable());
    },

    slotCapacity: SLOTS,

    sha256(data) {
      if (data.length <= CHUNK) {
        reserve(data.length);
        u8.set(data, IN);
        w.sha256(IN, data.length, OUT);
      } else {
        w.shaBegin();
        stream(data);
        w.shaEnd(OUT);
      }
      return out();
    },

    sha256Text(text) {
      const n = encodeAt(text, 0);
      if (n < 0) return core.sha256(encoder.encode(text));
      w.sha256(IN, n, OUT);
      return out();
    },

    hmacText(slot, text) {
      if (!loaded(slot)) badSlot(slot);
      const n = encodeAt(text, 0);
      if (n < 0) return core.hmac(slot, encoder.encode(text));
      if (w.hmac(slot, IN, n, OUT) !== 0) badSlot(slot);
      return out();
    },

    linkText(slot, sessionId, prev, entry) {
      if (!loaded(slot)) badSlot(slot);
      checkPrev(prev);
      const sidLen = sessionId.length;
      const at = LINK_BYTES + sidLen;
      const n = encodeAt(entry, at);
      if (n < 0) return core.link(slot, sessionId, prev, encoder.encode(entry));
      u8.set(prev, IN);
      u8.set(sessionId, IN + LINK_BYTES);
      w.link(slot, IN, IN + LINK_BYTES, sidLen, IN + at, n, OUT);
      return out();
    },

    loadKey(key) {
      const fp = fingerprint(key);
      const known = slotOf.get(fp);
      if (known !== undefined) return known;
      if (nextSlot >= SLOTS) {
        throw new WasmCoreError("WasmKeySlotsFull", `all ${SLOTS} key slots are in use`, "reuse a slot with setKey");
      }
      const slot = nextSlot;
      putKey(slot, key);
      nextSlot++;
      slotOf.set(fp, slot);
      slotKey[slot] = fp;
      return slot;
    },

    setKey(slot, key) {
      if (!loaded(slot)) badSlot(slot);
      const fp = fingerprint(key);
      const old = slotKey[slot];
      if (old !== undefined && slotOf.get(old) === slot) slotOf.delete(old);
      putKey(slot, key);
      slotOf.set(fp, slot);
      slotKey[slot] = fp;
    },

    hmac(slot, data) {
      if (!loaded(slot)) badSlot(slot);
      if (data.length <= CHUNK) {
        reserve(data.length);
        u8.set(data, IN);
        if (w.hmac(slot, IN, data.length, OUT) !== 0) badSlot(slot);
      } else {
        if (w.hmacBegin(slot) !== 0) badSlot(slot);
        stream(data);
        w.hmacEnd(OUT);
      }
      return out();
    },

    link(slot, sessionId, prev, entry) {
      if (!loaded(slot)) badSlot(slot);
      checkPrev(prev);
      const sidLen = sessionId.length;
      const size = LINK_BYTES + sidLen + entry.length;
      if (size <= CHUNK) {
        reserve(size);
        u8.set(prev, IN);
        u8.set(sessionId, IN + LINK_BYTES);
        u8.set(entry, IN + LINK_BYTES + sidLen);
        w.link(slot, IN, IN + LINK_BYTES, sidLen, IN + LINK_BYTES + sidLen, entry.length, OUT);
      } else {
        linkStreamed(slot, sessionId, prev, entry);
      }
      return out();
    },

    verifyRunText(slot, sessionId, prev, texts, links) {
      if (!loaded(slot)) badSlot(slot);
      checkPrev(prev);
      const n = texts.length;
      if (links.length !== n) throw new WasmCoreError("WasmBadArgument", `${n} entries but ${links.length} links`);
      const sidLen = sessionId.length;
      const head = LINK_BYTES + sidLen;
      let chain: Uint8Array = prev;
      let i = 0;
      while (i < n) {
        // Records i..j-1 whose worst-case size fits one load, and whose links are 64 characters.
        let most = head + texts[i]!.length * 3 + 4 + 64;
        if (most > CHUNK || links[i]!.length !== 64) {
          // Too big for one load (the byte path streams it), or a link that is no link.
          const link = hexLink(links[i]!);
          if (link === null) return i;
          const r = core.verifyRun(slot, sessionId, chain, [encoder.encode(texts[i]!)], [link]);
          if (r >= 0) return i;
          chain = link;
          i++;
          continue;
        }
        let j = i + 1;
        while (j < n && links[j]!.length === 64) {
          const next = texts[j]!.length * 3 + 4 + 64;
          if (most + next > CHUNK) break;
          most += next;
          j++;
        }
        const count = j - i;
        // INPUT: prev ‖ sid ‖ lens (u32le) ‖ hex links ‖ texts. Two encodes for the whole run
        // (a join is one native copy, however the texts were built); per-text only when a text
        // is not ASCII, whose byte length then differs from its length.
        reserve(most);
        u8.set(chain, IN);
        u8.set(sessionId, IN + LINK_BYTES);
        const lens = IN + head;
        const hex = lens + 4 * count;
        const body = hex + 64 * count;
        const part = i === 0 && j === n ? texts : texts.slice(i, j);
        const joined = part.join("");
        let written = encoder.encodeInto(joined, u8.subarray(body, body + joined.length * 3)).written;
        if (written === joined.length) {
          for (let k = 0; k < count; k++) dv.setUint32(lens + 4 * k, part[k]!.length, true);
        } else {
          written = 0;
          for (let k = 0; k < count; k++) {
            const w = writeText(part[k]!, body + written);
            dv.setUint32(lens + 4 * k, w, true);
            written += w;
          }
        }
        const hexText = (i === 0 && j === n ? links : links.slice(i, j)).join("");
        // a link with a character that is not ASCII is not hex: its bytes do not line up, so
        // find it and stop the run before it
        if (encoder.encodeInto(hexText, u8.subarray(hex, hex + 64 * count)).written !== 64 * count || hexText.length !== 64 * count) {
          let k = i;
          while (k < j && /^[\x00-\x7f]{64}$/.test(links[k]!)) k++;
          if (k === i) return i;
          const r = core.verifyRunText(slot, sessionId, chain, texts.slice(i, k), links.slice(i, k));
          return r >= 0 ? i + r : k;
        }
        const r = w.verifyRunHex(slot, IN, IN + LINK_BYTES, sidLen, body, lens, hex, count);
        if (r >= 0) return i + r;
        if (r === -3) badSlot(slot);
        if (r !== -1) throw new WasmCoreError("WasmBadModule", `the check core rejected its own record layout (${r})`);
        // every record passed: the last claimed link is the expected one
        chain = hexLink(links[j - 1]!)!;
        i = j;
      }
      return -1;
    },

    verifyRun(slot, sessionId, prev, entries, links) {
      if (!loaded(slot)) badSlot(slot);
      checkPrev(prev);
      const n = entries.length;
      if (links.length !== n) {
        throw new WasmCoreError("WasmBadArgument", `${n} entries but ${links.length} links`);
      }
      const sidLen = sessionId.length;
      const head = LINK_BYTES + sidLen;
      let chain = prev;
      let i = 0;
      while (i < n) {
        if (links[i]!.length !== LINK_BYTES) return i;
        const first = 4 + entries[i]!.length + LINK_BYTES;
        if (head + first > CHUNK) {
          // One record too big for a load: stream its link, compare in constant time in the core.
          linkStreamed(slot, sessionId, chain, entries[i]!);
          reserve(LINK_BYTES);
          u8.set(links[i]!, IN);
          if (w.equal32(OUT, IN) !== 1) return i;
          chain = links[i]!;
          i++;
          continue;
        }
        // Pack records i..j-1 into one load of at most CHUNK bytes (always at least record i).
        let size = head + first;
        let j = i + 1;
        while (j < n && links[j]!.length === LINK_BYTES) {
          const next = 4 + entries[j]!.length + LINK_BYTES;
          if (size + next > CHUNK) break;
          size += next;
          j++;
        }
        reserve(size);
        u8.set(chain, IN);
        u8.set(sessionId, IN + LINK_BYTES);
        let p = IN + head;
        for (let k = i; k < j; k++) {
          const e = entries[k]!;
          dv.setUint32(p, e.length, true);
          u8.set(e, p + 4);
          u8.set(links[k]!, p + 4 + e.length);
          p += 4 + e.length + LINK_BYTES;
        }
        const r = w.verifyRun(slot, IN, IN + LINK_BYTES, sidLen, IN + head, p - IN - head, j - i);
        if (r >= 0) return i + r;
        if (r === -3) badSlot(slot);
        if (r !== -1) throw new WasmCoreError("WasmBadModule", `the check core rejected its own record layout (${r})`);
        chain = links[j - 1]!; // equal to the expected link, since record j-1 passed
        i = j;
      }
      return -1;
    },
  };
  return core;
}
