/**
 * `verifyRunText`: a history run given as strings (each entry's canonical text, each link in hex)
 * verified in the core with two encodes per load — the texts joined, the links joined — instead of
 * one encode per entry and a hex decode per link (the layout `verifyRunHex` reads, exports.ts).
 */
import type { Exports } from "./exports.js";
import { CHUNK, LINK_BYTES, badSlot, type CoreMemory } from "./memory.js";
import { WasmCoreError, type Core } from "./types.js";

/** The byte path, for a record too big for one load (it streams). */
type VerifyBytes = Core["verifyRun"];

/** The slot is loaded and `prev` is 32 bytes (the caller checked); see Core.verifyRunText. */
export function verifyRunText(
  mem: CoreMemory,
  w: Exports,
  verifyBytes: VerifyBytes,
  slot: number,
  sessionId: Uint8Array,
  prev: Uint8Array,
  texts: readonly string[],
  links: readonly string[],
): number {
  const n = texts.length;
  if (links.length !== n) throw new WasmCoreError("WasmBadArgument", `${n} entries but ${links.length} links`);
  const { IN, encoder } = mem;
  const sidLen = sessionId.length;
  const head = LINK_BYTES + sidLen;
  let chain: Uint8Array = prev;
  let i = 0;
  while (i < n) {
    // Records i..j-1 whose worst-case size fits one load, and whose links are 64 characters.
    let most = head + texts[i]!.length * 3 + 4 + 64;
    if (most > CHUNK || links[i]!.length !== 64) {
      // Too big for one load (the byte path streams it), or a link that is no link.
      const link = mem.hexLink(links[i]!);
      if (link === null) return i;
      const r = verifyBytes(slot, sessionId, chain, [encoder.encode(texts[i]!)], [link]);
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
    mem.reserve(most);
    const { u8, dv } = mem;
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
        const bytes = mem.writeText(part[k]!, body + written);
        dv.setUint32(lens + 4 * k, bytes, true);
        written += bytes;
      }
    }
    const hexText = (i === 0 && j === n ? links : links.slice(i, j)).join("");
    // a link with a character that is not ASCII is not hex: its bytes do not line up, so
    // find it and stop the run before it
    if (encoder.encodeInto(hexText, u8.subarray(hex, hex + 64 * count)).written !== 64 * count || hexText.length !== 64 * count) {
      let k = i;
      while (k < j && /^[\x00-\x7f]{64}$/.test(links[k]!)) k++;
      if (k === i) return i;
      const r = verifyRunText(mem, w, verifyBytes, slot, sessionId, chain, texts.slice(i, k), links.slice(i, k));
      return r >= 0 ? i + r : k;
    }
    const r = w.verifyRunHex(slot, IN, IN + LINK_BYTES, sidLen, body, lens, hex, count);
    if (r >= 0) return i + r;
    if (r === -3) badSlot(slot);
    if (r !== -1) throw new WasmCoreError("WasmBadModule", `the check core rejected its own record layout (${r})`);
    // every record passed: the last claimed link is the expected one
    const last = mem.hexLink(links[j - 1]!);
    if (last === null) throw new WasmCoreError("WasmBadModule", "the check core passed a link that is not hex");
    chain = last;
    i = j;
  }
  return -1;
}
