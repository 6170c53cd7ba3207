/**
 * Core.verifyRunWith (wasm/run-writer.ts): records written straight into the core's memory by a
 * source must get the same verdicts as verifyRun over their bytes — valid runs, every kind of
 * damage, links that are not hex, records that need a second load or are too big for any load.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nodeCore } from "../cli/sdk/wasm-node.js";
import type { RunSource } from "../worker/portable/engine/wasm/types.js";
import { chainOf, damagedRuns, refLink } from "./helpers/runs.js";

const core = nodeCore();
const enc = new TextEncoder();
const ZERO = new Uint8Array(32);
const hex = (u: Uint8Array): string => Buffer.from(u).toString("hex");

/** A source over texts that writes their UTF-8, giving up (-1) when the room is short, as the entry writer does. */
function source(texts: string[], links: string[]): RunSource {
  return {
    count: texts.length,
    write(i, u8, at, end) {
      const b = enc.encode(texts[i]!);
      if (at + b.length > end) return -1;
      u8.set(b, at);
      return at + b.length;
    },
    text: (i) => texts[i]!,
    link: (i) => links[i]!,
  };
}

describe("verifyRunWith: verifyRun's verdicts over records its source writes", () => {
  const key = new Uint8Array(randomBytes(32));
  const slot = core.loadKey(key);
  const sid = enc.encode("0123456789abcdef0123456789abcdef");
  const chain = (texts: string[], prev?: Uint8Array) => chainOf(key, sid, texts, prev);

  it("agrees with verifyRun on valid runs and on every kind of damage", () => {
    for (const r of damagedRuns(key, sid, 240)) {
      const expected = core.verifyRun(slot, sid, ZERO, r.bytes, r.linkBytes);
      expect(core.verifyRunWith!(slot, sid, ZERO, source(r.texts, r.links)), `round ${r.round}`).toBe(expected);
      expect(expected).toBe(r.at);
    }
  });

  it("a link character past ASCII is no link, even one whose low byte is the right hex digit", () => {
    const texts = ["a", "b", "c"];
    const links = chain(texts);
    const l = [...links];
    l[1] = String.fromCharCode(0x100 + links[1]!.charCodeAt(0)) + links[1]!.slice(1); // its low byte is the digit
    expect(core.verifyRunWith!(slot, sid, ZERO, source(texts, l))).toBe(1);
  });

  it("a run longer than a load goes on in the next load, chained on the last link", () => {
    // ~3,000 records of ~600 bytes: the first load's room, then CHUNK-sized loads
    const texts = Array.from({ length: 3000 }, (_, i) => `${"r".repeat(500 + (i % 200))}${i}`);
    const links = chain(texts);
    expect(core.verifyRunWith!(slot, sid, ZERO, source(texts, links))).toBe(-1);
    for (const i of [0, 99, 100, 1700, 2999]) {
      const t = [...texts];
      t[i] = t[i] + "!";
      expect(core.verifyRunWith!(slot, sid, ZERO, source(t, links))).toBe(i);
      const l = [...links];
      l[i] = "x".repeat(64);
      expect(core.verifyRunWith!(slot, sid, ZERO, source(texts, l))).toBe(i);
    }
    const prev = new Uint8Array(randomBytes(32));
    expect(core.verifyRunWith!(slot, sid, prev, source(texts.slice(5), chain(texts.slice(5), prev)))).toBe(-1);
  });

  it("a record too big for one load is streamed, and the run goes on after it", () => {
    const texts = ["a", "ü".repeat(400_000), "b", "x".repeat(1_100_000), "c"];
    const links = chain(texts);
    expect(core.verifyRunWith!(slot, sid, ZERO, source(texts, links))).toBe(-1);
    expect(core.verifyRunWith!(slot, sid, ZERO, source(texts, [links[0]!, links[1]!, links[0]!, links[3]!, links[4]!]))).toBe(2);
    expect(core.verifyRunWith!(slot, sid, ZERO, source([texts[0]!, texts[1]!, texts[2]!, texts[3]! + "x", texts[4]!], links))).toBe(3);
    expect(core.verifyRunWith!(slot, sid, ZERO, source(texts, [links[0]!, links[1]!, links[2]!, "?".repeat(64), links[4]!]))).toBe(3);
  });

  it("linkWith: link over one record written in place, small, past the first room, past a load", () => {
    const texts = ["", "olá ✓", "x".repeat(20_000), "ü".repeat(400_000), "y".repeat(1_100_000)];
    const prev = new Uint8Array(randomBytes(32));
    for (let i = 0; i < texts.length; i++) {
      expect(hex(core.linkWith!(slot, sid, prev, source(texts, []), i)), `record ${i}`).toBe(hex(refLink(key, sid, prev, enc.encode(texts[i]!))));
    }
  });

  it("an error the source throws reaches the caller; an unloaded slot is refused", () => {
    const texts = ["a", "b"];
    const s = source(texts, chain(texts));
    expect(() => core.verifyRunWith!(slot, sid, ZERO, { ...s, write: () => { throw new Error("unwritable"); } })).toThrow("unwritable");
    expect(core.verifyRunWith!(slot, sid, ZERO, s)).toBe(-1); // and the core is usable after it
    expect(() => core.verifyRunWith!(999, sid, ZERO, s)).toThrow(/never loaded/);
  });
});
