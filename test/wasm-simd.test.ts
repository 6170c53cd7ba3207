/**
 * The SIMD build of the check core (build/core-simd.wasm: a run's links four at a time) against
 * the scalar build/core.wasm: the same verdict at the same index on every damaged run, on valid
 * runs of every length (including lengths not divisible by 4 and records too long for a lane), on
 * layouts cut short anywhere; and the loaders' fallback to the scalar build where SIMD does not
 * validate.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createCore, type Core } from "../worker/portable/engine/wasm/core.js";
import { createPreferredCore, pickBuild } from "../worker/portable/engine/wasm/choose.js";
import { instantiate } from "../worker/portable/engine/wasm/exports.js";
import type { RunSource } from "../worker/portable/engine/wasm/types.js";
import { chainOf, damagedRuns } from "./helpers/runs.js";

const SCALAR = readFileSync(new URL("../build/core.wasm", import.meta.url));
const SIMD = readFileSync(new URL("../build/core-simd.wasm", import.meta.url));
const enc = new TextEncoder();
const ZERO = new Uint8Array(32);
const key = new Uint8Array(randomBytes(32));
const sid = enc.encode("ses_0123456789abcdefghijkl");

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

/** Every verifier of `core` over one run; they must agree with each other too. */
function verdicts(core: Core, texts: string[], links: string[]): number[] {
  const slot = core.loadKey(key);
  const bytes = texts.map((t) => enc.encode(t));
  const linkBytes = links.map((x) => (/^[0-9a-f]{64}$/.test(x) ? new Uint8Array(Buffer.from(x, "hex")) : new Uint8Array(31)));
  return [core.verifyRun(slot, sid, ZERO, bytes, linkBytes), core.verifyRunText(slot, sid, ZERO, texts, links), core.verifyRunWith!(slot, sid, ZERO, source(texts, links))];
}

describe("the SIMD core gives the scalar core's verdicts", () => {
  const scalar = createCore(SCALAR);
  const simd = createCore(SIMD);

  it("on every damaged run, at the same index", () => {
    for (const r of damagedRuns(key, sid, 480)) {
      const want = verdicts(scalar, r.texts, r.links);
      expect(want, `round ${r.round}`).toEqual([r.at, r.at, r.at]);
      expect(verdicts(simd, r.texts, r.links), `round ${r.round}`).toEqual(want);
    }
  });

  it("on valid runs of every length 0..41, and with each record damaged in turn", () => {
    // sizes around a lane's 4 KiB (longer records take the scalar link) and around block edges
    const sizes = [0, 1, 55, 56, 64, 119, 431, 471, 4000, 4037, 4038, 5000];
    for (let n = 0; n <= 41; n++) {
      const texts = Array.from({ length: n }, (_, i) => "e".repeat(sizes[(n + i) % sizes.length]!) + String(i));
      const links = chainOf(key, sid, texts);
      expect(verdicts(simd, texts, links), `n=${n}`).toEqual([-1, -1, -1]);
      expect(verdicts(scalar, texts, links), `n=${n}`).toEqual([-1, -1, -1]);
      for (let at = 0; at < n; at += n > 12 ? 5 : 1) {
        const t = [...texts];
        t[at] = t[at] + "!";
        expect(verdicts(simd, t, links), `n=${n} text at ${at}`).toEqual([at, at, at]);
        const l = [...links];
        l[at] = l[(at + 1) % n]!;
        const want = n === 1 ? -1 : at;
        expect(verdicts(simd, texts, l), `n=${n} link at ${at}`).toEqual(verdicts(scalar, texts, l));
        expect(verdicts(simd, texts, l)[0], `n=${n} link at ${at}`).toBe(want);
      }
    }
  });

  it("on a layout cut short anywhere, raw or hex links: a mismatch before the cut wins, else -2", () => {
    const a = instantiate(SCALAR);
    const b = instantiate(SIMD);
    for (const w of [a, b]) {
      const IN = w.inputPtr();
      new Uint8Array(w.memory.buffer).set(key, IN);
      w.setKey(0, IN, 32);
    }
    const texts = Array.from({ length: 9 }, (_, i) => "r".repeat(20 + i * 37));
    const links = chainOf(key, sid, texts);
    for (const hexLinks of [false, true]) {
      for (const damaged of [-1, 2, 5]) {
        const parts: Uint8Array[] = [];
        texts.forEach((t, i) => {
          const e = enc.encode(damaged === i ? t + "?" : t);
          const len = new Uint8Array(4);
          new DataView(len.buffer).setUint32(0, e.length, true);
          parts.push(len, e, hexLinks ? enc.encode(links[i]!) : new Uint8Array(Buffer.from(links[i]!, "hex")));
        });
        const recs = Buffer.concat(parts);
        for (let cut = 0; cut <= recs.length; cut++) {
          const got = [a, b].map((w) => {
            const IN = w.inputPtr();
            const u8 = new Uint8Array(w.memory.buffer);
            u8.fill(0, IN, IN + 32);
            u8.set(sid, IN + 32);
            u8.set(recs.subarray(0, cut), IN + 32 + sid.length);
            const run = hexLinks ? w.verifyRunHexRecords : w.verifyRun;
            return run(0, IN, IN + 32, sid.length, IN + 32 + sid.length, cut, texts.length);
          });
          expect(got[1], `hex ${hexLinks} damaged ${damaged} cut ${cut}`).toBe(got[0]);
        }
      }
    }
  });
});

describe("loading: the SIMD build where it validates, the scalar one otherwise", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it("this engine validates the SIMD build, so it is the one picked", () => {
    expect(WebAssembly.validate(SIMD)).toBe(true);
    expect(pickBuild([SIMD, SCALAR])).toBe(0);
    expect(pickBuild([undefined, SCALAR])).toBe(1);
    expect(pickBuild([new Uint8Array([1, 2, 3]), SCALAR])).toBe(1);
  });

  it("where SIMD does not validate, the scalar build is used and verifies identically", () => {
    const real = WebAssembly.validate.bind(WebAssembly);
    const validate = vi.spyOn(WebAssembly, "validate").mockImplementation((bytes) => (bytes === SIMD ? false : real(bytes)));
    expect(pickBuild([SIMD, SCALAR])).toBe(1);
    const fallback = createPreferredCore([SIMD, SCALAR]);
    expect(validate).toHaveBeenCalledWith(SIMD);
    const simd = createCore(SIMD);
    for (const r of damagedRuns(key, sid, 120)) {
      expect(verdicts(fallback, r.texts, r.links), `round ${r.round}`).toEqual(verdicts(simd, r.texts, r.links));
    }
  });

  it("a build that validates but does not instantiate as the core falls through to the next", () => {
    const notTheCore = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]); // an empty module: no exports
    const core = createPreferredCore([notTheCore, SCALAR]);
    const texts = ["a", "b", "c", "d", "e"];
    expect(verdicts(core, texts, chainOf(key, sid, texts))).toEqual([-1, -1, -1]);
    expect(() => createPreferredCore([notTheCore])).toThrow(expect.objectContaining({ code: "WasmBadModule" }));
  });

  it("the Node loader (cli/sdk/wasm-node.ts) falls back the same way", async () => {
    const real = WebAssembly.validate.bind(WebAssembly);
    const seen: boolean[] = [];
    vi.spyOn(WebAssembly, "validate").mockImplementation((bytes) => {
      const isSimd = Buffer.from(bytes as Uint8Array).equals(SIMD);
      seen.push(isSimd);
      return isSimd ? false : real(bytes);
    });
    const { nodeCore } = await import("../cli/sdk/wasm-node.js");
    const core = nodeCore();
    expect(seen[0]).toBe(true); // the SIMD build was offered first and refused
    for (const r of damagedRuns(key, sid, 60)) {
      expect(verdicts(core, r.texts, r.links), `round ${r.round}`).toEqual([r.at, r.at, r.at]);
    }
  });
});
