/**
 * The check core's hot path (assembly/ → build/core.wasm), typed for TypeScript: `createCore`
 * wraps an instance (exports.ts: its ABI, checked export by export) in the Core interface.
 * Arguments go into the core's INPUT area through memory.ts; history runs given as strings
 * through run-text.ts.
 */
import { instantiate } from "./exports.js";
import { CHUNK, CoreMemory, LINK_BYTES, badSlot } from "./memory.js";
import { verifyRunText } from "./run-text.js";
import { verifyRunWith } from "./run-writer.js";
import { WasmCoreError, type Core, type CounterCell, type CounterCore } from "./types.js";

export { WasmCoreError,  type Core,  type CounterCore,  } from "./types.js";

export function createCore(source: BufferSource | WebAssembly.Module): Core & CounterCore {
  const w = instantiate(source);
  const mem = new CoreMemory(w);
  const { IN, OUT, encoder } = mem;
  const SLOTS = w.slotCapacity();

  // Same key bytes → same slot. Keyed by the key's digest so no key material is kept in JS.
  const slotOf = new Map<string, number>();
  const slotKey: (string | undefined)[] = [];
  let nextSlot = 0;
  // A key's handle is its slot plus SLOTS × how many keys held the slot before it: a handle kept
  // after its key was released and its slot given to another key fails (WasmBadSlot) instead of
  // MACing under the other key. A released slot keeps its key, and its handles work, until reused.
  const handles: number[] = [];
  const holders: number[] = [];
  /** released slots, oldest first: reused in that order, so a just-released key lasts longest */
  const released = new Set<number>();
  /** The slot of a live handle; anything else is WasmBadSlot. */
  const slotAt = (h: number): number => {
    const i = h % SLOTS;
    if (!(i >= 0 && handles[i] === h)) badSlot(h);
    return i;
  };

  function fingerprint(key: Uint8Array): string {
    let s = "";
    for (const b of core.sha256(key)) s += String.fromCharCode(b);
    return s;
  }

  function putKey(slot: number, key: Uint8Array): void {
    if (key.length <= CHUNK) {
      mem.reserve(key.length);
      mem.u8.set(key, IN);
      w.setKey(slot, IN, key.length);
    } else {
      // RFC 2104 §2: a key longer than a block is replaced by its digest; same MAC, bounded memory.
      const digest = core.sha256(key);
      mem.u8.set(digest, IN);
      w.setKey(slot, IN, 32);
    }
  }

  function checkPrev(prev: Uint8Array): void {
    if (prev.length !== LINK_BYTES) {
      throw new WasmCoreError("WasmBadArgument", `a previous link must be 32 bytes, got ${prev.length}`);
    }
  }

  /** Streamed link into OUT, for inputs too big for one INPUT load. */
  function linkStreamed(slot: number, sid: Uint8Array, prev: Uint8Array, entry: Uint8Array): void {
    if (w.linkHead(slot, sid.length) !== 0) badSlot(slot);
    mem.stream(sid);
    mem.u8.set(prev, IN);
    w.linkMid(IN, entry.length);
    mem.stream(entry);
    w.hmacEnd(OUT);
  }

  /** INPUT a single link's record may use before asking for more. */
  const LINK_SLACK = 16 * 1024;

  const ITEM = 56;
  /** Lay counter items out in INPUT: digest[32] ‖ until ‖ amount ‖ limit (f64, little-endian). */
  function putItems(items: readonly CounterCell[]): void {
    mem.reserve(items.length * ITEM);
    const { u8, dv } = mem;
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
      return mem.u8.slice(at, at + w.counterTableBytes());
    },
    counterRestore(bytes) {
      if (bytes.length !== w.counterTableBytes()) throw new WasmCoreError("WasmBadArgument", `a counter table is ${w.counterTableBytes()} bytes, got ${bytes.length}`);
      mem.u8.set(bytes, w.counterTable());
    },

    slotCapacity: SLOTS,

    sha256(data) {
      if (data.length <= CHUNK) {
        mem.reserve(data.length);
        mem.u8.set(data, IN);
        w.sha256(IN, data.length, OUT);
      } else {
        w.shaBegin();
        mem.stream(data);
        w.shaEnd(OUT);
      }
      return mem.out();
    },

    sha256Text(text) {
      const n = mem.encodeAt(text, 0);
      if (n < 0) return core.sha256(encoder.encode(text));
      w.sha256(IN, n, OUT);
      return mem.out();
    },

    hmacText(slot, text) {
      const s = slotAt(slot);
      const n = mem.encodeAt(text, 0);
      if (n < 0) return core.hmac(slot, encoder.encode(text));
      if (w.hmac(s, IN, n, OUT) !== 0) badSlot(slot);
      return mem.out();
    },

    linkText(slot, sessionId, prev, entry) {
      const s = slotAt(slot);
      checkPrev(prev);
      const sidLen = sessionId.length;
      const at = LINK_BYTES + sidLen;
      const n = mem.encodeAt(entry, at);
      if (n < 0) return core.link(slot, sessionId, prev, encoder.encode(entry));
      mem.u8.set(prev, IN);
      mem.u8.set(sessionId, IN + LINK_BYTES);
      w.link(s, IN, IN + LINK_BYTES, sidLen, IN + at, n, OUT);
      return mem.out();
    },

    linkWith(slot, sessionId, prev, run, i) {
      const s = slotAt(slot);
      checkPrev(prev);
      const sidLen = sessionId.length;
      const at = IN + LINK_BYTES + sidLen;
      // a record of ours is ~0.5 KiB: the room INPUT already has, else up to one load, else streamed
      let room = Math.min(CHUNK, Math.max(LINK_SLACK, LINK_BYTES + sidLen + 4096));
      mem.reserve(room);
      let end = at < IN + room ? run.write(i, mem.u8, at, IN + room) : -1;
      if (end < 0 && room < CHUNK) {
        mem.reserve((room = CHUNK));
        end = at < IN + room ? run.write(i, mem.u8, at, IN + room) : -1;
      }
      if (end < 0) return core.link(slot, sessionId, prev, encoder.encode(run.text(i)));
      mem.u8.set(prev, IN);
      mem.u8.set(sessionId, IN + LINK_BYTES);
      w.link(s, IN, IN + LINK_BYTES, sidLen, at, end - at, OUT);
      return mem.out();
    },

    loadKey(key) {
      const fp = fingerprint(key);
      const known = slotOf.get(fp);
      if (known !== undefined) {
        released.delete(known);
        holders[known] = (holders[known] ?? 0) + 1;
        return handles[known]!;
      }
      let i: number;
      if (nextSlot < SLOTS) {
        i = nextSlot++;
        handles[i] = i;
      } else {
        const oldest = released.values().next();
        if (oldest.done) throw new WasmCoreError("WasmKeySlotsFull", `all ${SLOTS} key slots hold keys in use`, "release a key no longer used (releaseKey) before loading another");
        i = oldest.value;
        released.delete(i);
        const old = slotKey[i];
        if (old !== undefined && slotOf.get(old) === i) slotOf.delete(old);
        handles[i] = handles[i]! + SLOTS;
      }
      putKey(i, key);
      holders[i] = 1;
      slotOf.set(fp, i);
      slotKey[i] = fp;
      return handles[i]!;
    },

    releaseKey(slot) {
      const i = slotAt(slot);
      if ((holders[i] ?? 0) <= 0) return; // released already: a second release changes nothing
      holders[i]!--;
      if (holders[i] === 0) released.add(i);
    },

    setKey(slot, key) {
      const i = slotAt(slot);
      const fp = fingerprint(key);
      const old = slotKey[i];
      if (old !== undefined && slotOf.get(old) === i) slotOf.delete(old);
      putKey(i, key);
      slotOf.set(fp, i);
      slotKey[i] = fp;
    },

    hmac(slot, data) {
      const s = slotAt(slot);
      if (data.length <= CHUNK) {
        mem.reserve(data.length);
        mem.u8.set(data, IN);
        if (w.hmac(s, IN, data.length, OUT) !== 0) badSlot(slot);
      } else {
        if (w.hmacBegin(s) !== 0) badSlot(slot);
        mem.stream(data);
        w.hmacEnd(OUT);
      }
      return mem.out();
    },

    link(slot, sessionId, prev, entry) {
      const s = slotAt(slot);
      checkPrev(prev);
      const sidLen = sessionId.length;
      const size = LINK_BYTES + sidLen + entry.length;
      if (size <= CHUNK) {
        mem.reserve(size);
        const { u8 } = mem;
        u8.set(prev, IN);
        u8.set(sessionId, IN + LINK_BYTES);
        u8.set(entry, IN + LINK_BYTES + sidLen);
        w.link(s, IN, IN + LINK_BYTES, sidLen, IN + LINK_BYTES + sidLen, entry.length, OUT);
      } else {
        linkStreamed(s, sessionId, prev, entry);
      }
      return mem.out();
    },

    verifyRunText(slot, sessionId, prev, texts, links) {
      const s = slotAt(slot);
      checkPrev(prev);
      return verifyRunText(mem, w, verifyAt, s, sessionId, prev, texts, links);
    },

    verifyRunWith(slot, sessionId, prev, run) {
      const s = slotAt(slot);
      checkPrev(prev);
      return verifyRunWith(mem, w, verifyAt, s, sessionId, prev, run);
    },

    verifyRun(slot, sessionId, prev, entries, links) {
      const s = slotAt(slot);
      checkPrev(prev);
      return verifyAt(s, sessionId, prev, entries, links);
    },
  };

  /** verifyRun in slot `slot` (not a handle: the caller resolved it, and checked `prev`). */
  function verifyAt(slot: number, sessionId: Uint8Array, prev: Uint8Array, entries: readonly Uint8Array[], links: readonly Uint8Array[]): number {
    {
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
          mem.reserve(LINK_BYTES);
          mem.u8.set(links[i]!, IN);
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
        mem.reserve(size);
        const { u8, dv } = mem;
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
    }
  }
  return core;
}
