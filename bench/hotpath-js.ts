/**
 * The hot path in plain JavaScript over node:crypto — the same `Core` interface as the WASM
 * build. Used by the bench as the side-by-side comparison and by tests as a reference; the SDK
 * itself always uses the WASM core.
 */
import { createHash, createHmac } from "node:crypto";
import type { Core } from "../worker/portable/engine/wasm/core.js";

const DOMAIN = Buffer.from("stalwart-history-v1", "ascii");

export function createJsCore(): Core {
  const keys: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const link = (slot: number, sid: Uint8Array, prev: Uint8Array, entry: Uint8Array) =>
    new Uint8Array(createHmac("sha256", keys[slot]!).update(DOMAIN).update(u32(sid.length)).update(sid).update(prev).update(u32(entry.length)).update(entry).digest());
  const enc = (t: string) => Buffer.from(t, "utf8");
  return {
    sha256Text: (text) => new Uint8Array(createHash("sha256").update(text, "utf8").digest()),
    hmacText: (slot, text) => new Uint8Array(createHmac("sha256", keys[slot]!).update(text, "utf8").digest()),
    linkText: (slot, sid, prev, text) => link(slot, sid, prev, enc(text)),
    sha256: (data) => new Uint8Array(createHash("sha256").update(data).digest()),
    loadKey: (key) => keys.push(Buffer.from(key)) - 1,
    setKey: (slot, key) => {
      keys[slot] = Buffer.from(key);
    },
    releaseKey: () => undefined, // a bench's few keys live as long as it does
    slotCapacity: Number.MAX_SAFE_INTEGER,
    hmac: (slot, data) => new Uint8Array(createHmac("sha256", keys[slot]!).update(data).digest()),
    link,
    verifyRunText(slot, sid, prev, texts, links) {
      let expected = prev;
      for (let i = 0; i < texts.length; i++) {
        const l = link(slot, sid, expected, enc(texts[i]!));
        if (!/^[0-9a-f]{64}$/.test(links[i]!) || Buffer.from(l).toString("hex") !== links[i]) return i;
        expected = l;
      }
      return -1;
    },
    verifyRun(slot, sid, prev, entries, links) {
      let expected = prev;
      for (let i = 0; i < entries.length; i++) {
        const l = link(slot, sid, expected, entries[i]!);
        const got = links[i];
        if (!got || got.length !== 32 || !Buffer.from(l).equals(Buffer.from(got))) return i;
        expected = l;
      }
      return -1;
    },
  };
}
