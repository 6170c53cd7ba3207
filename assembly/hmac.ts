// HMAC-SHA256 (RFC 2104, FIPS 198-1) with precomputed key slots.
//
// A slot holds the two chaining values reached after compressing (K ⊕ ipad) and (K ⊕ opad). Loading
// a key costs two compressions once; every MAC afterwards costs its message blocks plus the inner
// padding block and the single outer block, instead of 2 extra key blocks per call.

import { begin, compress, end, resume, update, STATE, BLOCK, writeState } from "./sha256";

/** How many keys can be loaded at once (64 bytes each). */
export const SLOTS: i32 = 1024;
/** Per slot: inner state (32 bytes) then outer state (32 bytes). */
const SLOT_STATES: usize = memory.data(SLOTS * 64, 16);
/** 1 where a slot holds a key; a MAC under a never-loaded (all-zero) state must be impossible. */
const SLOT_LOADED: usize = memory.data(SLOTS, 16);
/** The key padded to one block (§2 of RFC 2104: B = 64). */
const KEY_BLOCK: usize = memory.data(64, 16);

/** Slot of the MAC in progress (hmacBegin … hmacEnd). */
let current: usize = 0;

@inline export function slotOk(slot: i32): bool {
  return <u32>slot < <u32>SLOTS && load<u8>(SLOT_LOADED + <usize>slot) != 0;
}

/** K ⊕ pad, compressed from the IV, saved at `dst`. */
function padState(pad: u32, dst: usize): void {
  for (let i: usize = 0; i < 64; i += 4) store<u32>(BLOCK + i, load<u32>(KEY_BLOCK + i) ^ pad);
  begin();
  compress(BLOCK);
  memory.copy(dst, STATE, 32);
}

/** Precompute `slot` for the key at `p` (`len` bytes). Returns 0, or -1 for a slot out of range. */
export function setKey(slot: i32, p: usize, len: usize): i32 {
  if (<u32>slot >= <u32>SLOTS) return -1;
  memory.fill(KEY_BLOCK, 0, 64);
  if (len > 64) {
    // RFC 2104 §2: keys longer than B bytes are first hashed.
    begin();
    update(p, len);
    end(KEY_BLOCK);
  } else {
    memory.copy(KEY_BLOCK, p, len);
  }
  const dst = SLOT_STATES + (<usize>slot << 6);
  padState(0x36363636, dst);
  padState(0x5c5c5c5c, dst + 32);
  memory.fill(KEY_BLOCK, 0, 64);
  memory.fill(BLOCK, 0, 64);
  store<u8>(SLOT_LOADED + <usize>slot, 1);
  return 0;
}

/** Start a MAC under `slot` (caller checked slotOk). */
export function hmacBegin(slot: i32): void {
  current = <usize>slot;
  resume(SLOT_STATES + (current << 6), 64);
}

/** Finish the inner hash, run the one outer block, write the 32-byte tag to `out`. */
export function hmacEnd(out: usize): void {
  end(BLOCK); // inner digest H(K⊕ipad ‖ m) lands at the front of the outer block
  // The outer message is (K⊕opad) ‖ inner digest = 64 + 32 bytes: one padded block after the state.
  store<u8>(BLOCK + 32, 0x80);
  memory.fill(BLOCK + 33, 0, 23);
  store<u64>(BLOCK, bswap<u64>(<u64>(96 * 8)), 56);
  memory.copy(STATE, SLOT_STATES + (current << 6) + 32, 32);
  compress(BLOCK);
  writeState(out);
}

/** Where `slot`'s inner (then outer) state lies, or 0 for a slot never loaded (the SIMD probe, sha256x4.ts). */
export function slotState(slot: i32): usize {
  return slotOk(slot) ? SLOT_STATES + (<usize>slot << 6) : 0;
}
