/**
 * The core's INPUT area as JavaScript sees it: typed views that follow the memory when it grows,
 * and the encoders that write arguments into it (UTF-8 text, hex links, byte streams).
 */
import type { Exports } from "./exports.js";
import { WasmCoreError, type Bytes } from "./types.js";

/** Inputs above this many bytes are streamed, so INPUT (and the memory) stays about this size. */
export const CHUNK = 1 << 20;
export const LINK_BYTES = 32;

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  return -1;
}

export class CoreMemory {
  /** where OUT[32] lies */
  readonly OUT: number;
  /** where INPUT starts */
  readonly IN: number;
  u8: Uint8Array<ArrayBuffer>;
  dv: DataView<ArrayBuffer>;
  readonly encoder = new TextEncoder();
  private buffer: ArrayBuffer;
  /** Bytes INPUT holds without growing. */
  private room: number;

  constructor(private readonly w: Exports) {
    this.OUT = w.outPtr();
    this.IN = w.inputPtr();
    this.buffer = w.memory.buffer;
    this.u8 = new Uint8Array(this.buffer);
    this.dv = new DataView(this.buffer);
    this.room = this.buffer.byteLength - this.IN;
  }

  /** Make INPUT hold `n` bytes; views are rebuilt only when the memory actually grew. */
  reserve(n: number): void {
    if (n <= this.room) return;
    if (this.w.ensureInput(n) !== 1) {
      throw new WasmCoreError(
        "WasmOutOfMemory",
        `the check core cannot grow its memory to hold ${n} input bytes`,
        "the isolate is out of memory; inputs over 1 MiB are already streamed, so look for what else holds memory",
      );
    }
    if (this.w.memory.buffer !== this.buffer) {
      this.buffer = this.w.memory.buffer;
      this.u8 = new Uint8Array(this.buffer);
      this.dv = new DataView(this.buffer);
    }
    this.room = this.buffer.byteLength - this.IN;
  }

  /** update() over `data` in CHUNK-sized pieces. */
  stream(data: Uint8Array): void {
    this.reserve(Math.min(data.length, CHUNK));
    for (let off = 0; off < data.length; off += CHUNK) {
      const piece = data.subarray(off, off + CHUNK);
      this.u8.set(piece, this.IN);
      this.w.update(this.IN, piece.length);
    }
  }

  /** A copy of OUT. */
  out(): Bytes {
    return this.u8.slice(this.OUT, this.OUT + 32);
  }

  /**
   * Encode `text` as UTF-8 into INPUT at `offset`; its byte length, or -1 when it may not fit in
   * one load (the caller then encodes to a separate array and streams). UTF-8 takes at most 3
   * bytes per UTF-16 unit, which bounds the room to reserve.
   */
  encodeAt(text: string, offset: number): number {
    const most = offset + text.length * 3;
    if (most > CHUNK) return -1;
    this.reserve(most);
    return this.writeText(text, this.IN + offset);
  }

  /**
   * `text` as UTF-8 at `at` (room for 3 bytes per unit reserved); the bytes written. Short ASCII
   * by hand; anything longer through encodeInto, which is native and does not care whether the
   * string is a rope (an entry's canonical text is one): a byte loop cost 4× as much at 300 units.
   */
  writeText(text: string, at: number): number {
    const n = text.length;
    if (n < 32) {
      const mem = this.u8;
      let i = 0;
      for (; i < n; i++) {
        const c = text.charCodeAt(i);
        if (c > 0x7f) break;
        mem[at + i] = c;
      }
      if (i === n) return n;
    }
    return this.encoder.encodeInto(text, this.u8.subarray(at, at + n * 3)).written;
  }

  /** A 64-character lowercase hex link decoded into memory at `at`; false when it is not one. */
  hexInto(hex: string, at: number): boolean {
    if (hex.length !== 2 * LINK_BYTES) return false;
    const mem = this.u8;
    for (let b = 0; b < LINK_BYTES; b++) {
      const hi = nibble(hex.charCodeAt(2 * b));
      const lo = nibble(hex.charCodeAt(2 * b + 1));
      if ((hi | lo) < 0) return false;
      mem[at + b] = (hi << 4) | lo;
    }
    return true;
  }

  /** A hex link as 32 bytes, or null when it is not 64 lowercase hex characters. */
  hexLink(hex: string): Uint8Array | null {
    this.reserve(LINK_BYTES);
    return this.hexInto(hex, this.IN) ? this.u8.slice(this.IN, this.IN + LINK_BYTES) : null;
  }
}

export function badSlot(slot: number): never {
  throw new WasmCoreError("WasmBadSlot", `key slot \`${slot}\` was never loaded, or its key was released and another took its slot`, "use the handle loadKey returned, while its key is held");
}
