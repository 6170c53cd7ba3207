/**
 * Runs of history records for the core's run verifiers (test/wasm-core.test.ts,
 * test/wasm-run-writer.test.ts): valid ones and each kind of damage, with the verdict verifyRun
 * gives over their bytes, for another verifier to be held to.
 */
import { createHmac } from "node:crypto";

const enc = new TextEncoder();
const TEXTS = ["", "{\"a\":1}", "olá — ✓ 😀", "x".repeat(700), "é".repeat(300)];
const hex = (u: Uint8Array): string => Buffer.from(u).toString("hex");

/** The history link as checks.md defines it, by node:crypto: what the core must compute. */
export function refLink(key: Uint8Array, sid: Uint8Array, prev: Uint8Array, entry: Uint8Array): Uint8Array {
  const u32be = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const mac = createHmac("sha256", key);
  mac.update("stalwart-history-v1").update(u32be(sid.length)).update(sid).update(prev).update(u32be(entry.length)).update(entry);
  return new Uint8Array(mac.digest());
}

/** Each text's link as hex, chained from `prev`. */
export function chainOf(key: Uint8Array, sid: Uint8Array, texts: string[], prev: Uint8Array = new Uint8Array(32)): string[] {
  return texts.map((t) => hex((prev = refLink(key, sid, prev, enc.encode(t)))));
}

export interface DamagedRun {
  round: number;
  /** the entries' texts and claimed links (hex), as a host would carry them */
  texts: string[];
  links: string[];
  /** the same as bytes, for verifyRun (a link that is not 64 hex characters: 31 bytes, never a link) */
  bytes: Uint8Array[];
  linkBytes: Uint8Array[];
  /** where the damage is (-1: none) */
  at: number;
}

/**
 * `rounds` runs of 1–40 entries; every sixth is valid, the others carry one of five kinds of
 * damage at one place: an edited text, a zero link, an upper-case link, a short link, a link whose
 * first character is not ASCII.
 */
export function* damagedRuns(key: Uint8Array, sid: Uint8Array, rounds: number): Generator<DamagedRun> {
  for (let round = 0; round < rounds; round++) {
    const n = 1 + (round % 40);
    const texts = Array.from({ length: n }, (_, i) => TEXTS[(round + i) % TEXTS.length]! + String(i));
    const links = chainOf(key, sid, texts);
    const t = [...texts];
    const l = [...links];
    const at = round % n;
    switch (round % 6) {
      case 1: t[at] = t[at] + " "; break;
      case 2: l[at] = "0".repeat(64); break;
      case 3: l[at] = links[at]!.toUpperCase(); break; // not lowercase hex: not a link
      case 4: l[at] = links[at]!.slice(2); break;
      case 5: l[at] = "é" + links[at]!.slice(1); break; // 64 units, not ASCII
    }
    const bytes = t.map((x) => enc.encode(x));
    const linkBytes = l.map((x) => (/^[0-9a-f]{64}$/.test(x) ? new Uint8Array(Buffer.from(x, "hex")) : new Uint8Array(31)));
    yield { round, texts: t, links: l, bytes, linkBytes, at: round % 6 === 0 ? -1 : at };
  }
}
