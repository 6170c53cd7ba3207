// Four history links at once in 128-bit SIMD lanes, for a full verification: the core of
// build/core-simd.wasm (entry index-simd.ts, `asc --enable simd`); build/core.wasm (entry index.ts)
// does not import it and stays scalar. A run's links are independent once each record is chained on the
// previous record's *claimed* link: the first record whose recomputed link differs is the one the
// sequential check stops at (every earlier one matched, so its claimed link is the expected one).
// docs/perf/engine.round7.md and engine.round8.md have what it measured.

import { link, equal32 } from "./index";
import { unhex32 } from "./hex";
import { slotState } from "./hmac";

const K: usize = memory.data<u32>([0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
/** The message schedule of four lanes: W[t] as one v128 per round. */
const W: usize = memory.data(64 * 16, 16);
/** The four lanes' state H[0..7], one v128 per word. */
const ST: usize = memory.data(8 * 16, 16);
/** Per lane, its padded inner message. Longer records take the scalar path. */
const LANE_MAX: usize = 4096;
const LANES: usize = memory.data(4 * <i32>LANE_MAX, 16);
const TAG: usize = memory.data<u8>([0x73, 0x74, 0x61, 0x6c, 0x77, 0x61, 0x72, 0x74, 0x2d, 0x68, 0x69, 0x73, 0x74, 0x6f, 0x72, 0x79, 0x2d, 0x76, 0x31]);
const SCALAR_OUT: usize = memory.data(32, 16);

@inline function rotr4(x: v128, n: i32): v128 { return v128.or(i32x4.shr_u(x, n), i32x4.shl(x, 32 - n)); }

/** Fold W[0..15] (four blocks, one per lane) into ST, lanes where `active` is set only. */
function compress4(active: v128): void {
  for (let t: usize = 16; t < 64; t++) {
    const w2 = v128.load(W + (t - 2) * 16), w15 = v128.load(W + (t - 15) * 16);
    const s1 = v128.xor(v128.xor(rotr4(w2, 17), rotr4(w2, 19)), i32x4.shr_u(w2, 10));
    const s0 = v128.xor(v128.xor(rotr4(w15, 7), rotr4(w15, 18)), i32x4.shr_u(w15, 3));
    v128.store(W + t * 16, i32x4.add(i32x4.add(s1, v128.load(W + (t - 7) * 16)), i32x4.add(s0, v128.load(W + (t - 16) * 16))));
  }
  let a = v128.load(ST, 0), b = v128.load(ST, 16), c = v128.load(ST, 32), d = v128.load(ST, 48);
  let e = v128.load(ST, 64), f = v128.load(ST, 80), g = v128.load(ST, 96), h = v128.load(ST, 112);
  // a loop (written out, the 64 rounds measured no faster: docs/perf/engine.round7.md)
  for (let t: usize = 0; t < 64; t++) {
    const S1 = v128.xor(v128.xor(rotr4(e, 6), rotr4(e, 11)), rotr4(e, 25));
    const t1 = i32x4.add(i32x4.add(i32x4.add(h, S1), i32x4.add(v128.bitselect(f, g, e), v128.load32_splat(K + t * 4))), v128.load(W + t * 16));
    const S0 = v128.xor(v128.xor(rotr4(a, 2), rotr4(a, 13)), rotr4(a, 22));
    const t2 = i32x4.add(S0, v128.bitselect(b, a, v128.xor(a, c)));
    h = g; g = f; f = e; e = i32x4.add(d, t1); d = c; c = b; b = a; a = i32x4.add(t1, t2);
  }
  v128.store(ST, v128.bitselect(i32x4.add(v128.load(ST, 0), a), v128.load(ST, 0), active), 0);
  v128.store(ST, v128.bitselect(i32x4.add(v128.load(ST, 16), b), v128.load(ST, 16), active), 16);
  v128.store(ST, v128.bitselect(i32x4.add(v128.load(ST, 32), c), v128.load(ST, 32), active), 32);
  v128.store(ST, v128.bitselect(i32x4.add(v128.load(ST, 48), d), v128.load(ST, 48), active), 48);
  v128.store(ST, v128.bitselect(i32x4.add(v128.load(ST, 64), e), v128.load(ST, 64), active), 64);
  v128.store(ST, v128.bitselect(i32x4.add(v128.load(ST, 80), f), v128.load(ST, 80), active), 80);
  v128.store(ST, v128.bitselect(i32x4.add(v128.load(ST, 96), g), v128.load(ST, 96), active), 96);
  v128.store(ST, v128.bitselect(i32x4.add(v128.load(ST, 112), h), v128.load(ST, 112), active), 112);
}

/** Lane `k`'s padded inner message for (prev, entry); its block count, or 0 when too long. */
function fillLane(k: usize, sid: usize, sidLen: u32, prev: usize, entry: usize, len: u32): u32 {
  const m: usize = 59 + <usize>sidLen + <usize>len;
  const blocks = (m + 9 + 63) >> 6;
  if (blocks * 64 > LANE_MAX) return 0;
  const p = LANES + k * LANE_MAX;
  memory.copy(p, TAG, 19);
  store<u32>(p + 19, bswap<u32>(sidLen));
  memory.copy(p + 23, sid, sidLen);
  memory.copy(p + 23 + sidLen, prev, 32);
  store<u32>(p + 55 + sidLen, bswap<u32>(len));
  memory.copy(p + 59 + sidLen, entry, len);
  store<u8>(p + m, 0x80);
  memory.fill(p + m + 1, 0, blocks * 64 - m - 1 - 8);
  store<u64>(p + blocks * 64 - 8, bswap<u64>(<u64>(64 + m) * 8));
  return <u32>blocks;
}

/** Per lane: entry, len, claimed link (32 raw bytes: in the record, or decoded into DEC), prev. */
const RECS: usize = memory.data(4 * 16, 16);
/** Per lane, its claimed link decoded from hex (the 64-character layout); 0 in the lane's flag when it was not hex. */
const DEC: usize = memory.data(4 * 32, 16);
const HEX_OK: usize = memory.data(4, 16);
/** The link the group's first record chains on, copied: DEC is rewritten while the group is read. */
const GROUP_PREV: usize = memory.data(32, 16);

/**
 * index.ts's runRecords, four records at a time: the same layout ([u32le len][entry][claimed link,
 * `linkBytes` = 32 raw or 64 hex]) and the same verdicts — the first failing index (a link that is
 * not hex fails there), -1 all match, -2 malformed, -3 slot never loaded. A malformed record is
 * reported only once every record before it matched, as the sequential loop does; a group with a
 * record too long for a lane takes the scalar link.
 */
export function runRecords4(slot: i32, prev: usize, sid: usize, sidLen: u32, rec: usize, recLen: usize, count: i32, linkBytes: usize): i32 {
  const state = slotState(slot);
  if (state == 0) return -3;
  const stop = rec + recLen;
  let p = rec;
  let chain = prev;
  for (let i = 0; i < count; i += 4) {
    let n = min(4, count - i);
    let malformed = false;
    let most: u32 = 0;
    let nb0: u32 = 0, nb1: u32 = 0, nb2: u32 = 0, nb3: u32 = 0;
    let long = false;
    memory.copy(GROUP_PREV, chain, 32);
    chain = GROUP_PREV;
    for (let k = 0; k < n; k++) {
      if (stop - p < 4) { malformed = true; n = k; break; }
      const len = load<u32>(p);
      if (stop - p - 4 < linkBytes || <usize>len > stop - p - 4 - linkBytes) { malformed = true; n = k; break; }
      const r = RECS + <usize>k * 16;
      let claimed = p + 4 + <usize>len;
      if (linkBytes == 64) {
        const d = DEC + <usize>k * 32;
        store<u8>(HEX_OK + <usize>k, unhex32(claimed, d) ? 1 : 0);
        claimed = d;
      }
      store<u32>(r, <u32>(p + 4));
      store<u32>(r, len, 4);
      store<u32>(r, <u32>claimed, 8);
      store<u32>(r, <u32>chain, 12);
      const nb = fillLane(k, sid, sidLen, chain, p + 4, len);
      if (nb == 0) long = true;
      if (nb > most) most = nb;
      if (k == 0) nb0 = nb; else if (k == 1) nb1 = nb; else if (k == 2) nb2 = nb; else nb3 = nb;
      chain = claimed;
      p += 4 + <usize>len + linkBytes;
    }
    if (n == 0) return -2;
    if (long) {
      for (let k = 0; k < n; k++) {
        const r = RECS + <usize>k * 16;
        link(slot, <usize>load<u32>(r, 12), sid, sidLen, <usize>load<u32>(r), load<u32>(r, 4), SCALAR_OUT);
        if (linkBytes == 64 && load<u8>(HEX_OK + <usize>k) == 0) return i + k;
        if (!equal32(SCALAR_OUT, <usize>load<u32>(r, 8))) return i + k;
      }
      if (malformed) return -2;
      continue;
    }
    // inner: from the slot's ipad state, each lane its own number of blocks
    for (let j: usize = 0; j < 8; j++) v128.store(ST + j * 16, v128.load32_splat(state + j * 4));
    for (let b: u32 = 0; b < most; b++) {
      const active = i32x4(b < nb0 ? -1 : 0, b < nb1 && n > 1 ? -1 : 0, b < nb2 && n > 2 ? -1 : 0, b < nb3 && n > 3 ? -1 : 0);
      const o: usize = <usize>b * 64;
      for (let t: usize = 0; t < 16; t++) {
        let v = i32x4.splat(bswap<u32>(load<u32>(LANES + o + t * 4)));
        v = i32x4.replace_lane(v, 1, bswap<u32>(load<u32>(LANES + LANE_MAX + o + t * 4)));
        v = i32x4.replace_lane(v, 2, bswap<u32>(load<u32>(LANES + 2 * LANE_MAX + o + t * 4)));
        v = i32x4.replace_lane(v, 3, bswap<u32>(load<u32>(LANES + 3 * LANE_MAX + o + t * 4)));
        v128.store(W + t * 16, v);
      }
      compress4(active);
    }
    // outer: opad state, one block of the inner digest
    for (let j: usize = 0; j < 8; j++) {
      v128.store(W + j * 16, v128.load(ST + j * 16));
      v128.store(ST + j * 16, v128.load32_splat(state + 32 + j * 4));
    }
    v128.store(W + 8 * 16, i32x4.splat(0x80000000));
    for (let j: usize = 9; j < 15; j++) v128.store(W + j * 16, i32x4.splat(0));
    v128.store(W + 15 * 16, i32x4.splat(768));
    compress4(i32x4.splat(-1));
    for (let k = 0; k < n; k++) {
      if (linkBytes == 64 && load<u8>(HEX_OK + <usize>k) == 0) return i + k;
      const claimed = <usize>load<u32>(RECS + <usize>k * 16, 8);
      let d: u32 = 0;
      for (let j: usize = 0; j < 8; j++) {
        const v = v128.load(ST + j * 16);
        const got = k == 0 ? i32x4.extract_lane(v, 0) : k == 1 ? i32x4.extract_lane(v, 1) : k == 2 ? i32x4.extract_lane(v, 2) : i32x4.extract_lane(v, 3);
        d |= <u32>got ^ bswap<u32>(load<u32>(claimed + j * 4));
      }
      if (d != 0) return i + k;
    }
    if (malformed) return -2;
  }
  return -1;
}
