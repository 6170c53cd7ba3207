// The check core's hot path: SHA-256, slot-keyed HMAC-SHA256 and the history link, over linear
// memory. Only pointers, lengths and status codes cross the boundary (worker/portable/engine/wasm/core.ts is
// the one TypeScript file that calls these; its header documents the ABI for callers).
//
// Memory: static data (hash context, 1024 key slots, OUT, CHAIN, the tag) sits below
// __heap_base; from there up is the INPUT area the host writes into. ensureInput() grows memory so
// the area holds at least `len` bytes and reports failure with 0 instead of trapping. The host
// streams anything larger than its chunk size through begin/update/end, so memory stays small.

import { begin, end, update, updateU32be } from "./sha256";
import { SLOTS, setKey as setSlotKey, slotOk, hmacBegin as macBegin, hmacEnd as macEnd } from "./hmac";
import { unhex32 } from "./hex";

export { update } from "./sha256";

/** Bumped whenever an export's meaning changes; core.ts refuses a module it does not know. */
export function abiVersion(): i32 { return 1; }

const OUT: usize = memory.data(32, 16);
/** The expected link of the record just checked; the next record chains on it. */
const CHAIN: usize = memory.data(32, 16);
const INPUT: usize = (__heap_base + 15) & ~(<usize>15);

// "stalwart-history-v1": domain separation for the history link (19 ASCII bytes).
const TAG: usize = memory.data<u8>([
  0x73, 0x74, 0x61, 0x6c, 0x77, 0x61, 0x72, 0x74, 0x2d, 0x68, 0x69, 0x73, 0x74, 0x6f, 0x72, 0x79, 0x2d, 0x76, 0x31,
]);
const TAG_LEN: usize = 19;

export function outPtr(): usize { return OUT; }
export function inputPtr(): usize { return INPUT; }
export function slotCapacity(): i32 { return SLOTS; }

/** Make INPUT hold at least `len` bytes. 1 = ok, 0 = memory cannot grow (never traps). */
export function ensureInput(len: u32): i32 {
  const need = <u64>INPUT + <u64>len;
  const pages = (need + 0xffff) >> 16;
  if (pages > 65536) return 0;
  const have = <u64>memory.size();
  if (pages > have && memory.grow(<i32>(pages - have)) < 0) return 0;
  return 1;
}

// ---- SHA-256 -------------------------------------------------------------------------------

export function sha256(p: usize, len: usize, out: usize): void {
  begin();
  update(p, len);
  end(out);
}
export function shaBegin(): void { begin(); }
export function shaEnd(out: usize): void { end(out); }

// ---- HMAC-SHA256 ---------------------------------------------------------------------------

/** Load a key into `slot` (overwriting it). 0 = ok, -1 = slot out of range. */
export function setKey(slot: i32, p: usize, len: usize): i32 { return setSlotKey(slot, p, len); }

/** 0 = ok, -1 = slot never loaded. */
export function hmac(slot: i32, p: usize, len: usize, out: usize): i32 {
  if (!slotOk(slot)) return -1;
  macBegin(slot);
  update(p, len);
  macEnd(out);
  return 0;
}
export function hmacBegin(slot: i32): i32 {
  if (!slotOk(slot)) return -1;
  macBegin(slot);
  return 0;
}
export function hmacEnd(out: usize): void { macEnd(out); }

// ---- History link --------------------------------------------------------------------------
// link = HMAC_slot("stalwart-history-v1" ‖ u32be(sidLen) ‖ sid ‖ prev[32] ‖ u32be(entryLen) ‖ entry)
// Both variable-length fields are length-prefixed so no two (sid, entry) pairs share an encoding.

/** Streaming form, part 1: MAC start, tag, sid length. Then update(sid). 0 = ok, -1 = bad slot. */
export function linkHead(slot: i32, sidLen: u32): i32 {
  if (!slotOk(slot)) return -1;
  macBegin(slot);
  update(TAG, TAG_LEN);
  updateU32be(sidLen);
  return 0;
}
/** Streaming form, part 2: previous link and entry length. Then update(entry), hmacEnd(out). */
export function linkMid(prev: usize, entryLen: u32): void {
  update(prev, 32);
  updateU32be(entryLen);
}

export function link(slot: i32, prev: usize, sid: usize, sidLen: u32, entry: usize, entryLen: u32, out: usize): i32 {
  if (linkHead(slot, sidLen) != 0) return -1;
  update(sid, sidLen);
  linkMid(prev, entryLen);
  update(entry, entryLen);
  macEnd(out);
  return 0;
}

/** 1 when the 32 bytes at `a` and `b` are equal. Time does not depend on where they differ. */
export function equal32(a: usize, b: usize): i32 {
  let d: u64 = 0;
  d |= load<u64>(a, 0) ^ load<u64>(b, 0);
  d |= load<u64>(a, 8) ^ load<u64>(b, 8);
  d |= load<u64>(a, 16) ^ load<u64>(b, 16);
  d |= load<u64>(a, 24) ^ load<u64>(b, 24);
  return <i32>(d == 0);
}

/**
 * Check `count` records laid out from `rec` (`recLen` bytes), each
 *   [u32le entryLen][entry: entryLen bytes][link: 32 bytes]
 * against the chain starting at the 32 bytes at `prev`. Record i is recomputed on the *expected*
 * link of record i-1, so a spliced, reordered or removed record fails at the first place it
 * touches. Returns the index of the first record whose link differs, -1 when all match,
 * -2 when the records overrun `recLen` (malformed layout), -3 when the slot was never loaded.
 */
export function verifyRun(slot: i32, prev: usize, sid: usize, sidLen: u32, rec: usize, recLen: usize, count: i32): i32 {
  return runRecords(slot, prev, sid, sidLen, rec, recLen, count, 32);
}

/**
 * The loop of verifyRun and verifyRunHexRecords: records of [u32le entryLen][entry][claimed link],
 * the link `linkBytes` long — 32 raw bytes, or 64 lowercase hex characters decoded here (a link
 * that is not hex fails at its index).
 */
function runRecords(slot: i32, prev: usize, sid: usize, sidLen: u32, rec: usize, recLen: usize, count: i32, linkBytes: usize): i32 {
  if (!slotOk(slot)) return -3;
  const stop = rec + recLen;
  let p = rec;
  let chain = prev;
  for (let i = 0; i < count; i++) {
    if (stop - p < 4) return -2;
    const len = <usize>load<u32>(p);
    p += 4;
    if (stop - p < linkBytes || len > stop - p - linkBytes) return -2;
    link(slot, chain, sid, sidLen, p, <u32>len, OUT);
    let claimed = p + len;
    if (linkBytes == 64) {
      if (!unhex32(claimed, HEXLINK)) return i;
      claimed = HEXLINK;
    }
    if (!equal32(OUT, claimed)) return i;
    memory.copy(CHAIN, OUT, 32);
    chain = CHAIN;
    p += len + linkBytes;
  }
  return -1;
}

/** The link a record claims, decoded from its hex (HEXLINK) for the comparison. */
const HEXLINK: usize = memory.data(32, 16);

/**
 * `verifyRun` over another layout, the one a host writes from strings in two encodes: the
 * entries' bytes back to back at `texts`, their byte lengths as u32le at `lens`, and each claimed
 * link as 64 lowercase hex characters at `hexLinks`. Same verdicts: the first failing index (a
 * link that is not hex fails there), -1 when all match, -3 for a slot never loaded.
 */
export function verifyRunHex(slot: i32, prev: usize, sid: usize, sidLen: u32, texts: usize, lens: usize, hexLinks: usize, count: i32): i32 {
  if (!slotOk(slot)) return -3;
  let p = texts;
  let chain = prev;
  for (let i = 0; i < count; i++) {
    const len = load<u32>(lens + (<usize>i << 2));
    link(slot, chain, sid, sidLen, p, len, OUT);
    if (!unhex32(hexLinks + (<usize>i << 6), HEXLINK)) return i;
    if (!equal32(OUT, HEXLINK)) return i;
    memory.copy(CHAIN, OUT, 32);
    chain = CHAIN;
    p += len;
  }
  return -1;
}

/**
 * `verifyRun` over records that carry their claimed link as 64 lowercase hex characters, the
 * layout run-writer.ts writes as it goes: each [u32le entryLen][entry][hex link: 64 bytes]. Same
 * verdicts (a link that is not hex fails at its index; -2 for records that overrun `recLen`).
 */
export function verifyRunHexRecords(slot: i32, prev: usize, sid: usize, sidLen: u32, rec: usize, recLen: usize, count: i32): i32 {
  return runRecords(slot, prev, sid, sidLen, rec, recLen, count, 64);
}

// ---- counters (step 7) -----------------------------------------------------------------------
export { counterFits, counterUsed, counterAdd, counterTable, counterTableBytes } from "./counters";
