// SHA-256 (FIPS 180-4) over linear memory: one streaming context, no allocation.
//
// Everything lives in static data reserved at compile time (memory.data), so hashing never
// touches an allocator and never grows memory. The context is a single global one: the module is
// single-threaded and every export that uses it runs begin → update* → end inside one call
// (or, for streamed inputs, inside one synchronous JS loop).

/** Running hash value H[0..7] as native u32s. */
export const STATE: usize = memory.data(32, 16);
/** The partial block not yet compressed. */
export const BLOCK: usize = memory.data(64, 16);

/** Room for a length prefix that straddles a block boundary. */
const SCRATCH: usize = memory.data(4, 4);

/** Bytes waiting in BLOCK (0..63). */
let pending: usize = 0;
/** Message bytes absorbed so far, including any bytes already folded into a precomputed state. */
let total: u64 = 0;

@inline function S0(x: u32): u32 { return rotr<u32>(x, 2) ^ rotr<u32>(x, 13) ^ rotr<u32>(x, 22); }
@inline function S1(x: u32): u32 { return rotr<u32>(x, 6) ^ rotr<u32>(x, 11) ^ rotr<u32>(x, 25); }
@inline function s0(x: u32): u32 { return rotr<u32>(x, 7) ^ rotr<u32>(x, 18) ^ (x >>> 3); }
@inline function s1(x: u32): u32 { return rotr<u32>(x, 17) ^ rotr<u32>(x, 19) ^ (x >>> 10); }
// Ch and Maj in forms with one operation fewer than §4.1.2 (same truth tables).
@inline function ch(x: u32, y: u32, z: u32): u32 { return z ^ (x & (y ^ z)); }
@inline function maj(x: u32, y: u32, z: u32): u32 { return (x & y) | (z & (x | y)); }

/**
 * §6.2.2: fold the 64-byte block at `p` (any alignment) into STATE.
 *
 * Fully unrolled, because that is what makes it fast in V8: the 64 constants K[t] (§4.2.2) become
 * immediates, the message schedule lives in 16 locals w0..w15 as a rolling window
 * (w[t mod 16] += σ1(W[t-2]) + W[t-7] + σ0(W[t-15]), the slot itself holding W[t-16]), and the
 * eight working variables are never shuffled: each round writes T1 into the variable playing `d`
 * and T1+T2 into the one playing `h`, then the roles rotate by renaming (a round's `h` is the next
 * round's `a`). The rounds below are written out mechanically from that rule (a script printed
 * them); the NIST vectors and the node:crypto cross-check in test/wasm-core.test.ts pin them down.
 */
export function compress(p: usize): void {
  let a = load<u32>(STATE, 0), b = load<u32>(STATE, 4), c = load<u32>(STATE, 8), d = load<u32>(STATE, 12);
  let e = load<u32>(STATE, 16), f = load<u32>(STATE, 20), g = load<u32>(STATE, 24), h = load<u32>(STATE, 28);
  let t: u32;
  // W[0..15]: the block as big-endian words.
  let w0 = bswap<u32>(load<u32>(p, 0)), w1 = bswap<u32>(load<u32>(p, 4)), w2 = bswap<u32>(load<u32>(p, 8)), w3 = bswap<u32>(load<u32>(p, 12));
  let w4 = bswap<u32>(load<u32>(p, 16)), w5 = bswap<u32>(load<u32>(p, 20)), w6 = bswap<u32>(load<u32>(p, 24)), w7 = bswap<u32>(load<u32>(p, 28));
  let w8 = bswap<u32>(load<u32>(p, 32)), w9 = bswap<u32>(load<u32>(p, 36)), w10 = bswap<u32>(load<u32>(p, 40)), w11 = bswap<u32>(load<u32>(p, 44));
  let w12 = bswap<u32>(load<u32>(p, 48)), w13 = bswap<u32>(load<u32>(p, 52)), w14 = bswap<u32>(load<u32>(p, 56)), w15 = bswap<u32>(load<u32>(p, 60));
  t = h + S1(e) + ch(e, f, g) + 0x428a2f98 + w0; d += t; h = t + S0(a) + maj(a, b, c);
  t = g + S1(d) + ch(d, e, f) + 0x71374491 + w1; c += t; g = t + S0(h) + maj(h, a, b);
  t = f + S1(c) + ch(c, d, e) + 0xb5c0fbcf + w2; b += t; f = t + S0(g) + maj(g, h, a);
  t = e + S1(b) + ch(b, c, d) + 0xe9b5dba5 + w3; a += t; e = t + S0(f) + maj(f, g, h);
  t = d + S1(a) + ch(a, b, c) + 0x3956c25b + w4; h += t; d = t + S0(e) + maj(e, f, g);
  t = c + S1(h) + ch(h, a, b) + 0x59f111f1 + w5; g += t; c = t + S0(d) + maj(d, e, f);
  t = b + S1(g) + ch(g, h, a) + 0x923f82a4 + w6; f += t; b = t + S0(c) + maj(c, d, e);
  t = a + S1(f) + ch(f, g, h) + 0xab1c5ed5 + w7; e += t; a = t + S0(b) + maj(b, c, d);
  t = h + S1(e) + ch(e, f, g) + 0xd807aa98 + w8; d += t; h = t + S0(a) + maj(a, b, c);
  t = g + S1(d) + ch(d, e, f) + 0x12835b01 + w9; c += t; g = t + S0(h) + maj(h, a, b);
  t = f + S1(c) + ch(c, d, e) + 0x243185be + w10; b += t; f = t + S0(g) + maj(g, h, a);
  t = e + S1(b) + ch(b, c, d) + 0x550c7dc3 + w11; a += t; e = t + S0(f) + maj(f, g, h);
  t = d + S1(a) + ch(a, b, c) + 0x72be5d74 + w12; h += t; d = t + S0(e) + maj(e, f, g);
  t = c + S1(h) + ch(h, a, b) + 0x80deb1fe + w13; g += t; c = t + S0(d) + maj(d, e, f);
  t = b + S1(g) + ch(g, h, a) + 0x9bdc06a7 + w14; f += t; b = t + S0(c) + maj(c, d, e);
  t = a + S1(f) + ch(f, g, h) + 0xc19bf174 + w15; e += t; a = t + S0(b) + maj(b, c, d);
  w0 += s1(w14) + w9 + s0(w1);
  t = h + S1(e) + ch(e, f, g) + 0xe49b69c1 + w0; d += t; h = t + S0(a) + maj(a, b, c);
  w1 += s1(w15) + w10 + s0(w2);
  t = g + S1(d) + ch(d, e, f) + 0xefbe4786 + w1; c += t; g = t + S0(h) + maj(h, a, b);
  w2 += s1(w0) + w11 + s0(w3);
  t = f + S1(c) + ch(c, d, e) + 0x0fc19dc6 + w2; b += t; f = t + S0(g) + maj(g, h, a);
  w3 += s1(w1) + w12 + s0(w4);
  t = e + S1(b) + ch(b, c, d) + 0x240ca1cc + w3; a += t; e = t + S0(f) + maj(f, g, h);
  w4 += s1(w2) + w13 + s0(w5);
  t = d + S1(a) + ch(a, b, c) + 0x2de92c6f + w4; h += t; d = t + S0(e) + maj(e, f, g);
  w5 += s1(w3) + w14 + s0(w6);
  t = c + S1(h) + ch(h, a, b) + 0x4a7484aa + w5; g += t; c = t + S0(d) + maj(d, e, f);
  w6 += s1(w4) + w15 + s0(w7);
  t = b + S1(g) + ch(g, h, a) + 0x5cb0a9dc + w6; f += t; b = t + S0(c) + maj(c, d, e);
  w7 += s1(w5) + w0 + s0(w8);
  t = a + S1(f) + ch(f, g, h) + 0x76f988da + w7; e += t; a = t + S0(b) + maj(b, c, d);
  w8 += s1(w6) + w1 + s0(w9);
  t = h + S1(e) + ch(e, f, g) + 0x983e5152 + w8; d += t; h = t + S0(a) + maj(a, b, c);
  w9 += s1(w7) + w2 + s0(w10);
  t = g + S1(d) + ch(d, e, f) + 0xa831c66d + w9; c += t; g = t + S0(h) + maj(h, a, b);
  w10 += s1(w8) + w3 + s0(w11);
  t = f + S1(c) + ch(c, d, e) + 0xb00327c8 + w10; b += t; f = t + S0(g) + maj(g, h, a);
  w11 += s1(w9) + w4 + s0(w12);
  t = e + S1(b) + ch(b, c, d) + 0xbf597fc7 + w11; a += t; e = t + S0(f) + maj(f, g, h);
  w12 += s1(w10) + w5 + s0(w13);
  t = d + S1(a) + ch(a, b, c) + 0xc6e00bf3 + w12; h += t; d = t + S0(e) + maj(e, f, g);
  w13 += s1(w11) + w6 + s0(w14);
  t = c + S1(h) + ch(h, a, b) + 0xd5a79147 + w13; g += t; c = t + S0(d) + maj(d, e, f);
  w14 += s1(w12) + w7 + s0(w15);
  t = b + S1(g) + ch(g, h, a) + 0x06ca6351 + w14; f += t; b = t + S0(c) + maj(c, d, e);
  w15 += s1(w13) + w8 + s0(w0);
  t = a + S1(f) + ch(f, g, h) + 0x14292967 + w15; e += t; a = t + S0(b) + maj(b, c, d);
  w0 += s1(w14) + w9 + s0(w1);
  t = h + S1(e) + ch(e, f, g) + 0x27b70a85 + w0; d += t; h = t + S0(a) + maj(a, b, c);
  w1 += s1(w15) + w10 + s0(w2);
  t = g + S1(d) + ch(d, e, f) + 0x2e1b2138 + w1; c += t; g = t + S0(h) + maj(h, a, b);
  w2 += s1(w0) + w11 + s0(w3);
  t = f + S1(c) + ch(c, d, e) + 0x4d2c6dfc + w2; b += t; f = t + S0(g) + maj(g, h, a);
  w3 += s1(w1) + w12 + s0(w4);
  t = e + S1(b) + ch(b, c, d) + 0x53380d13 + w3; a += t; e = t + S0(f) + maj(f, g, h);
  w4 += s1(w2) + w13 + s0(w5);
  t = d + S1(a) + ch(a, b, c) + 0x650a7354 + w4; h += t; d = t + S0(e) + maj(e, f, g);
  w5 += s1(w3) + w14 + s0(w6);
  t = c + S1(h) + ch(h, a, b) + 0x766a0abb + w5; g += t; c = t + S0(d) + maj(d, e, f);
  w6 += s1(w4) + w15 + s0(w7);
  t = b + S1(g) + ch(g, h, a) + 0x81c2c92e + w6; f += t; b = t + S0(c) + maj(c, d, e);
  w7 += s1(w5) + w0 + s0(w8);
  t = a + S1(f) + ch(f, g, h) + 0x92722c85 + w7; e += t; a = t + S0(b) + maj(b, c, d);
  w8 += s1(w6) + w1 + s0(w9);
  t = h + S1(e) + ch(e, f, g) + 0xa2bfe8a1 + w8; d += t; h = t + S0(a) + maj(a, b, c);
  w9 += s1(w7) + w2 + s0(w10);
  t = g + S1(d) + ch(d, e, f) + 0xa81a664b + w9; c += t; g = t + S0(h) + maj(h, a, b);
  w10 += s1(w8) + w3 + s0(w11);
  t = f + S1(c) + ch(c, d, e) + 0xc24b8b70 + w10; b += t; f = t + S0(g) + maj(g, h, a);
  w11 += s1(w9) + w4 + s0(w12);
  t = e + S1(b) + ch(b, c, d) + 0xc76c51a3 + w11; a += t; e = t + S0(f) + maj(f, g, h);
  w12 += s1(w10) + w5 + s0(w13);
  t = d + S1(a) + ch(a, b, c) + 0xd192e819 + w12; h += t; d = t + S0(e) + maj(e, f, g);
  w13 += s1(w11) + w6 + s0(w14);
  t = c + S1(h) + ch(h, a, b) + 0xd6990624 + w13; g += t; c = t + S0(d) + maj(d, e, f);
  w14 += s1(w12) + w7 + s0(w15);
  t = b + S1(g) + ch(g, h, a) + 0xf40e3585 + w14; f += t; b = t + S0(c) + maj(c, d, e);
  w15 += s1(w13) + w8 + s0(w0);
  t = a + S1(f) + ch(f, g, h) + 0x106aa070 + w15; e += t; a = t + S0(b) + maj(b, c, d);
  w0 += s1(w14) + w9 + s0(w1);
  t = h + S1(e) + ch(e, f, g) + 0x19a4c116 + w0; d += t; h = t + S0(a) + maj(a, b, c);
  w1 += s1(w15) + w10 + s0(w2);
  t = g + S1(d) + ch(d, e, f) + 0x1e376c08 + w1; c += t; g = t + S0(h) + maj(h, a, b);
  w2 += s1(w0) + w11 + s0(w3);
  t = f + S1(c) + ch(c, d, e) + 0x2748774c + w2; b += t; f = t + S0(g) + maj(g, h, a);
  w3 += s1(w1) + w12 + s0(w4);
  t = e + S1(b) + ch(b, c, d) + 0x34b0bcb5 + w3; a += t; e = t + S0(f) + maj(f, g, h);
  w4 += s1(w2) + w13 + s0(w5);
  t = d + S1(a) + ch(a, b, c) + 0x391c0cb3 + w4; h += t; d = t + S0(e) + maj(e, f, g);
  w5 += s1(w3) + w14 + s0(w6);
  t = c + S1(h) + ch(h, a, b) + 0x4ed8aa4a + w5; g += t; c = t + S0(d) + maj(d, e, f);
  w6 += s1(w4) + w15 + s0(w7);
  t = b + S1(g) + ch(g, h, a) + 0x5b9cca4f + w6; f += t; b = t + S0(c) + maj(c, d, e);
  w7 += s1(w5) + w0 + s0(w8);
  t = a + S1(f) + ch(f, g, h) + 0x682e6ff3 + w7; e += t; a = t + S0(b) + maj(b, c, d);
  w8 += s1(w6) + w1 + s0(w9);
  t = h + S1(e) + ch(e, f, g) + 0x748f82ee + w8; d += t; h = t + S0(a) + maj(a, b, c);
  w9 += s1(w7) + w2 + s0(w10);
  t = g + S1(d) + ch(d, e, f) + 0x78a5636f + w9; c += t; g = t + S0(h) + maj(h, a, b);
  w10 += s1(w8) + w3 + s0(w11);
  t = f + S1(c) + ch(c, d, e) + 0x84c87814 + w10; b += t; f = t + S0(g) + maj(g, h, a);
  w11 += s1(w9) + w4 + s0(w12);
  t = e + S1(b) + ch(b, c, d) + 0x8cc70208 + w11; a += t; e = t + S0(f) + maj(f, g, h);
  w12 += s1(w10) + w5 + s0(w13);
  t = d + S1(a) + ch(a, b, c) + 0x90befffa + w12; h += t; d = t + S0(e) + maj(e, f, g);
  w13 += s1(w11) + w6 + s0(w14);
  t = c + S1(h) + ch(h, a, b) + 0xa4506ceb + w13; g += t; c = t + S0(d) + maj(d, e, f);
  w14 += s1(w12) + w7 + s0(w15);
  t = b + S1(g) + ch(g, h, a) + 0xbef9a3f7 + w14; f += t; b = t + S0(c) + maj(c, d, e);
  w15 += s1(w13) + w8 + s0(w0);
  t = a + S1(f) + ch(f, g, h) + 0xc67178f2 + w15; e += t; a = t + S0(b) + maj(b, c, d);

  store<u32>(STATE, load<u32>(STATE, 0) + a, 0); store<u32>(STATE, load<u32>(STATE, 4) + b, 4);
  store<u32>(STATE, load<u32>(STATE, 8) + c, 8); store<u32>(STATE, load<u32>(STATE, 12) + d, 12);
  store<u32>(STATE, load<u32>(STATE, 16) + e, 16); store<u32>(STATE, load<u32>(STATE, 20) + f, 20);
  store<u32>(STATE, load<u32>(STATE, 24) + g, 24); store<u32>(STATE, load<u32>(STATE, 28) + h, 28);
}

/** §5.3.3: the initial hash value. */
export function begin(): void {
  store<u32>(STATE, 0x6a09e667, 0); store<u32>(STATE, 0xbb67ae85, 4);
  store<u32>(STATE, 0x3c6ef372, 8); store<u32>(STATE, 0xa54ff53a, 12);
  store<u32>(STATE, 0x510e527f, 16); store<u32>(STATE, 0x9b05688c, 20);
  store<u32>(STATE, 0x1f83d9ab, 24); store<u32>(STATE, 0x5be0cd19, 28);
  pending = 0;
  total = 0;
}

/** Start from a saved mid-state (an HMAC pad block already folded in): `absorbed` bytes so far. */
export function resume(state: usize, absorbed: u64): void {
  memory.copy(STATE, state, 32);
  pending = 0;
  total = absorbed;
}

/** Absorb `len` bytes at `p`. Whole blocks are compressed straight from the caller's memory. */
export function update(p: usize, len: usize): void {
  total += <u64>len;
  if (pending != 0) {
    const room: usize = 64 - pending;
    if (len < room) {
      memory.copy(BLOCK + pending, p, len);
      pending += len;
      return;
    }
    memory.copy(BLOCK + pending, p, room);
    compress(BLOCK);
    p += room;
    len -= room;
    pending = 0;
  }
  while (len >= 64) {
    compress(p);
    p += 64;
    len -= 64;
  }
  if (len != 0) {
    memory.copy(BLOCK, p, len);
    pending = len;
  }
}

/** Absorb one big-endian u32 (the length prefixes of the history link). */
export function updateU32be(x: u32): void {
  if (pending <= 60) {
    store<u32>(BLOCK + pending, bswap<u32>(x));
    pending += 4;
    total += 4;
    if (pending == 64) {
      compress(BLOCK);
      pending = 0;
    }
    return;
  }
  store<u32>(SCRATCH, bswap<u32>(x));
  update(SCRATCH, 4);
}

/** §5.1.1 padding, then write the digest big-endian to `out` (32 bytes). */
export function end(out: usize): void {
  const bits = total << 3;
  store<u8>(BLOCK + pending, 0x80);
  pending++;
  if (pending > 56) {
    memory.fill(BLOCK + pending, 0, 64 - pending);
    compress(BLOCK);
    pending = 0;
  }
  memory.fill(BLOCK + pending, 0, 56 - pending);
  store<u64>(BLOCK, bswap<u64>(bits), 56);
  compress(BLOCK);
  pending = 0;
  writeState(out);
}

/** STATE as the big-endian digest bytes. */
@inline export function writeState(out: usize): void {
  store<u32>(out, bswap<u32>(load<u32>(STATE, 0)), 0); store<u32>(out, bswap<u32>(load<u32>(STATE, 4)), 4);
  store<u32>(out, bswap<u32>(load<u32>(STATE, 8)), 8); store<u32>(out, bswap<u32>(load<u32>(STATE, 12)), 12);
  store<u32>(out, bswap<u32>(load<u32>(STATE, 16)), 16); store<u32>(out, bswap<u32>(load<u32>(STATE, 20)), 20);
  store<u32>(out, bswap<u32>(load<u32>(STATE, 24)), 24); store<u32>(out, bswap<u32>(load<u32>(STATE, 28)), 28);
}
