// The 64-character lowercase hex form of a link, decoded for the comparison (index.ts, sha256x4.ts).

/** A lowercase hex digit's value, or 255 for anything else. */
@inline function nibble(c: u32): u32 {
  if (c - 48 < 10) return c - 48; // 0-9
  if (c - 97 < 6) return c - 87; // a-f
  return 255;
}

/** Decode 64 lowercase hex bytes at `hex` into 32 bytes at `out`; false when they are not that. */
export function unhex32(hex: usize, out: usize): bool {
  let bad: u32 = 0;
  for (let i: usize = 0; i < 32; i++) {
    const hi = nibble(<u32>load<u8>(hex + 2 * i));
    const lo = nibble(<u32>load<u8>(hex + 2 * i + 1));
    bad |= (hi | lo) & 0xf0;
    store<u8>(out + i, <u8>((hi << 4) | (lo & 0xf)));
  }
  return bad == 0;
}
