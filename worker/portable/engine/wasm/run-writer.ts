/**
 * `verifyRunWith`: a history run whose records are written straight into the core's memory by
 * their source (history/entry-bytes.ts) — no string per entry, no join, no encode — in the layout
 * `verifyRunHexRecords` reads (exports.ts): prev[32] ‖ sid ‖ count × (u32le entryLen ‖ entry ‖
 * claimed link as 64 hex characters, decoded in the core). One load holds as many as fit in CHUNK.
 */
import type { Exports } from "./exports.js";
import { CHUNK, LINK_BYTES, badSlot, type CoreMemory } from "./memory.js";
import { WasmCoreError, type Core, type RunSource } from "./types.js";

/** The byte path, for a record too big for one load (it streams). */
type VerifyBytes = Core["verifyRun"];

/** A claimed link's characters. */
const HEX = 2 * LINK_BYTES;

/**
 * A link's 64 characters as bytes at `at`, for the core to decode; false when it has another
 * length or a character past ASCII (which a byte could not hold: truncated, it might read as hex).
 */
function putHex(u8: Uint8Array, at: number, hex: string): boolean {
  if (hex.length !== HEX) return false;
  let wide = 0;
  for (let k = 0; k < HEX; k++) {
    const c = hex.charCodeAt(k);
    wide |= c;
    u8[at + k] = c;
  }
  return wide < 0x80;
}

/** What a first load reserves: most runs (a resumed session, a delta) fit; a longer one grows it once. */
const FIRST_ROOM = 64 * 1024;

/** The slot is loaded and `prev` is 32 bytes (the caller checked); see Core.verifyRunWith. */
export function verifyRunWith(mem: CoreMemory, w: Exports, verifyBytes: VerifyBytes, slot: number, sessionId: Uint8Array, prev: Uint8Array, run: RunSource): number {
  const n = run.count;
  const { IN } = mem;
  const sidLen = sessionId.length;
  const head = LINK_BYTES + sidLen;
  if (2 * head > CHUNK) return oneByOne(mem, verifyBytes, slot, sessionId, prev, run); // an absurd session id
  let room = Math.min(CHUNK, Math.max(FIRST_ROOM, head + 4096));
  mem.reserve(room);
  let chain: Uint8Array = prev;
  let first = 0; // the first record of the load being written
  let p = IN + head; // where the next record goes
  let i = 0;

  /** Verify records first..i-1 as loaded; -1 when they pass (the chain then moves on), else the failing index. */
  const flush = (): number => {
    const count = i - first;
    if (count === 0) return -1;
    const r = w.verifyRunHexRecords(slot, IN, IN + LINK_BYTES, sidLen, IN + head, p - IN - head, count);
    if (r >= 0) return first + r;
    if (r === -3) badSlot(slot);
    if (r !== -1) throw new WasmCoreError("WasmBadModule", `the check core rejected its own record layout (${r})`);
    // the last record passed, so its claimed link is the expected one
    const last = mem.hexLink(run.link(i - 1));
    if (last === null) throw new WasmCoreError("WasmBadModule", "the check core passed a link that is not hex");
    chain = last;
    first = i;
    p = IN + head;
    return -1;
  };

  while (i < n) {
    if (i === first) {
      const { u8 } = mem;
      u8.set(chain, IN);
      u8.set(sessionId, IN + LINK_BYTES);
    }
    const end = IN + room;
    const q = p + 4 < end ? run.write(i, mem.u8, p + 4, end) : -1;
    if (q < 0 || q + HEX > end) {
      if (i > first) {
        const r = flush();
        if (r >= 0) return r;
        continue; // this record again, at the start of an empty load
      }
      if (room < CHUNK) {
        room = CHUNK;
        mem.reserve(room);
        continue;
      }
      // Too big for one load even alone: the byte path streams it.
      const link = mem.hexLink(run.link(i));
      if (link === null) return i;
      if (verifyBytes(slot, sessionId, chain, [mem.encoder.encode(run.text(i))], [link]) >= 0) return i;
      chain = link;
      i++;
      first = i;
      continue;
    }
    if (!putHex(mem.u8, q, run.link(i))) {
      // not a link: whatever comes before it is verified first, then it fails here
      const r = flush();
      return r >= 0 ? r : i;
    }
    mem.dv.setUint32(p, q - p - 4, true);
    p = q + HEX;
    i++;
  }
  return flush();
}

/** Every record through the byte path (a session id too long to share a load with records). */
function oneByOne(mem: CoreMemory, verifyBytes: VerifyBytes, slot: number, sessionId: Uint8Array, prev: Uint8Array, run: RunSource): number {
  let chain = prev;
  for (let i = 0; i < run.count; i++) {
    const link = mem.hexLink(run.link(i));
    if (link === null || verifyBytes(slot, sessionId, chain, [mem.encoder.encode(run.text(i))], [link]) >= 0) return i;
    chain = link;
  }
  return -1;
}
