// The check core's hot path (build/core.wasm via worker/portable/engine/wasm/core.ts): known answers from
// FIPS 180-4 / NIST and RFC 4231, a cross-check against node:crypto, and the history link / run
// verification contract. Needs `npm run build:wasm` first.
import { createHash, createHmac, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { nodeCore } from "../cli/sdk/wasm-node.js";
import { createCore, WasmCoreError, type Core } from "../worker/portable/engine/wasm/core.js";
import { chainOf, damagedRuns, refLink } from "./helpers/runs.js";

const hex = (u: Uint8Array): string => Buffer.from(u).toString("hex");
const unhex = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "hex"));
const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);
const fill = (byte: number, n: number): Uint8Array => new Uint8Array(n).fill(byte);
const random = (n: number): Uint8Array => new Uint8Array(randomBytes(n));
const ZERO: Uint8Array = new Uint8Array(32);

let core: Core;
beforeAll(() => {
  core = nodeCore();
});

describe("sha256: FIPS 180-4 / NIST known answers", () => {
  const vectors: [string, Uint8Array, string][] = [
    ["empty", ascii(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", ascii("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "448 bits",
      ascii("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    [
      "896 bits",
      ascii(
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      ),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
    ],
    ["one million a", fill(0x61, 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"],
  ];
  for (const [name, input, digest] of vectors) {
    it(name, () => {
      expect(hex(core.sha256(input))).toBe(digest);
    });
  }
});

describe("hmac: RFC 4231 test cases", () => {
  const cases: [number, Uint8Array, Uint8Array, string][] = [
    [1, fill(0x0b, 20), ascii("Hi There"), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"],
    [2, ascii("Jefe"), ascii("what do ya want for nothing?"), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"],
    [3, fill(0xaa, 20), fill(0xdd, 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"],
    [
      4,
      unhex("0102030405060708090a0b0c0d0e0f10111213141516171819"),
      fill(0xcd, 50),
      "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
    ],
    // Test case 5 specifies the output truncated to 128 bits.
    [5, fill(0x0c, 20), ascii("Test With Truncation"), "a3b6167473100ee06e0c796c2955552b"],
    [
      6,
      fill(0xaa, 131),
      ascii("Test Using Larger Than Block-Size Key - Hash Key First"),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
    ],
    [
      7,
      fill(0xaa, 131),
      ascii(
        "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.",
      ),
      "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2",
    ],
  ];
  for (const [n, key, data, mac] of cases) {
    it(`test case ${n}`, () => {
      const tag = core.hmac(core.loadKey(key), data);
      expect(hex(tag).slice(0, mac.length)).toBe(mac);
    });
  }
});

describe("cross-check against node:crypto", () => {
  const BOUNDARIES = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 121, 127, 128, 129, 191, 192, 4095, 4096];

  it("sha256 and hmac agree on 600 random inputs (lengths 0..5000, keys 0..200)", () => {
    const keyLengths = [0, 1, 32, 63, 64, 65, 127, 128, 129, 200];
    for (let i = 0; i < 600; i++) {
      const len = i < BOUNDARIES.length ? BOUNDARIES[i]! : Math.floor(Math.random() * 5001);
      const keyLen = i < keyLengths.length ? keyLengths[i]! : Math.floor(Math.random() * 201);
      const data = random(len);
      const key = random(keyLen);
      expect(hex(core.sha256(data)), `sha256 len ${len}`).toBe(createHash("sha256").update(data).digest("hex"));
      const slot = core.loadKey(key);
      expect(hex(core.hmac(slot, data)), `hmac len ${len} key ${keyLen}`).toBe(
        createHmac("sha256", key).update(data).digest("hex"),
      );
    }
  });

  it("inputs around the streaming chunk (1 MiB) agree", () => {
    const slot = core.loadKey(random(32));
    const key = random(48);
    const keySlot = core.loadKey(key);
    for (const len of [(1 << 20) - 1, 1 << 20, (1 << 20) + 1, (1 << 20) + 63]) {
      const data = random(len);
      expect(hex(core.sha256(data))).toBe(createHash("sha256").update(data).digest("hex"));
      expect(hex(core.hmac(keySlot, data))).toBe(createHmac("sha256", key).update(data).digest("hex"));
      expect(slot).not.toBe(keySlot);
    }
  });

  it("a 5 MB input digests correctly (sha256 and hmac)", () => {
    const data = random(5 * 1024 * 1024);
    expect(hex(core.sha256(data))).toBe(createHash("sha256").update(data).digest("hex"));
    const key = random(32);
    expect(hex(core.hmac(core.loadKey(key), data))).toBe(createHmac("sha256", key).update(data).digest("hex"));
  });

  it("a key over 1 MiB is hashed first, like any key longer than a block", () => {
    const key = random((1 << 20) + 5);
    const data = random(300);
    expect(hex(core.hmac(core.loadKey(key), data))).toBe(createHmac("sha256", key).update(data).digest("hex"));
  });
});

/** core.wasm with its memory capped at `maxPages` beyond its static data (the memory section rewritten with a maximum). */
function cappedModule(maxPages: number): WebAssembly.Module {
  const wasm = readFileSync(new URL("../build/core.wasm", import.meta.url));
  const leb = (n: number): number[] => {
    const out: number[] = [];
    do {
      let b = n & 0x7f;
      n >>>= 7;
      if (n) b |= 0x80;
      out.push(b);
    } while (n);
    return out;
  };
  const readLeb = (at: number): [number, number] => {
    let n = 0;
    let shift = 0;
    let b: number;
    do {
      b = wasm[at++]!;
      n |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    return [n, at];
  };
  const parts: number[] = [...wasm.subarray(0, 8)];
  let at = 8;
  while (at < wasm.length) {
    const id = wasm[at]!;
    const [size, body] = readLeb(at + 1);
    if (id === 5) {
      const [count, p1] = readLeb(body);
      const [flags, p2] = readLeb(p1);
      const [min] = readLeb(p2);
      expect([count, flags]).toEqual([1, 0]);
      // `maxPages` counts pages beyond the static data (the module's own minimum).
      const section = [1, 1, ...leb(min), ...leb(min + maxPages)];
      parts.push(5, ...leb(section.length), ...section);
    } else {
      parts.push(...wasm.subarray(at, body + size));
    }
    at = body + size;
  }
  return new WebAssembly.Module(new Uint8Array(parts));
}

describe("memory", () => {
  it("inputs beyond the chunk are streamed, so memory stays about 1 MiB", () => {
    // The static data (key slots, counter table) + 17 pages of input area: one chunk, not 5 MB.
    const small = createCore(cappedModule(17));
    const data = random(5 * 1024 * 1024);
    expect(hex(small.sha256(data))).toBe(createHash("sha256").update(data).digest("hex"));
  });

  it("memory that cannot grow is a WasmOutOfMemory error, not a trap, and the core stays usable", () => {
    const tiny = createCore(cappedModule(0));
    expect(() => tiny.sha256(random(200_000))).toThrow(expect.objectContaining({ code: "WasmOutOfMemory" }));
    expect(() => tiny.sha256(random(3_000_000))).toThrow(WasmCoreError);
    expect(hex(tiny.sha256(ascii("abc")))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("the module", () => {
  // the 8-byte header of a WebAssembly module that declares nothing
  const EMPTY = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);

  it("a module without the core's exports is WasmBadModule, naming the first one missing", () => {
    expect(() => createCore(EMPTY)).toThrow(expect.objectContaining({ code: "WasmBadModule", message: expect.stringContaining("`memory`") }));
    expect(() => createCore(new WebAssembly.Module(EMPTY))).toThrow(expect.objectContaining({ code: "WasmBadModule" }));
  });

  it("bytes that are not a module are WasmBadModule, not a CompileError", () => {
    expect(() => createCore(new Uint8Array([1, 2, 3, 4]))).toThrow(expect.objectContaining({ code: "WasmBadModule" }));
  });

  it("compiles bytes and takes a compiled module alike", () => {
    const bytes = readFileSync(new URL("../build/core.wasm", import.meta.url));
    const a = createCore(bytes);
    const b = createCore(new WebAssembly.Module(bytes));
    expect(a.sha256(ascii("abc"))).toEqual(b.sha256(ascii("abc")));
  });
});

describe("key slots", () => {
  it("the same key bytes return the same slot; other keys another one", () => {
    const key = random(32);
    const a = core.loadKey(key);
    expect(core.loadKey(new Uint8Array(key))).toBe(a);
    expect(core.loadKey(random(32))).not.toBe(a);
    expect(core.slotCapacity).toBeGreaterThanOrEqual(64);
  });

  it("setKey overwrites a slot", () => {
    const first = random(32);
    const second = random(40);
    const slot = core.loadKey(first);
    core.setKey(slot, second);
    const data = ascii("rotated");
    expect(hex(core.hmac(slot, data))).toBe(createHmac("sha256", second).update(data).digest("hex"));
    expect(core.loadKey(second)).toBe(slot);
    const again = core.loadKey(first); // the old key is no longer mapped to that slot
    expect(again).not.toBe(slot);
    expect(hex(core.hmac(again, data))).toBe(createHmac("sha256", first).update(data).digest("hex"));
  });

  it("a slot never loaded is refused, not MACed under a zero state", () => {
    const fresh = createCore(readFileSync(new URL("../build/core.wasm", import.meta.url)));
    for (const slot of [0, 5, -1, 1.5, 1e9]) {
      expect(() => fresh.hmac(slot, ascii("x"))).toThrow(expect.objectContaining({ code: "WasmBadSlot" }));
    }
    expect(() => fresh.link(3, ascii("s"), ZERO, ascii("e"))).toThrow(WasmCoreError);
    expect(() => fresh.verifyRun(3, ascii("s"), ZERO, [], [])).toThrow(WasmCoreError);
  });

  it("runs out of slots with WasmKeySlotsFull", () => {
    const fresh = createCore(new WebAssembly.Module(readFileSync(new URL("../build/core.wasm", import.meta.url))));
    for (let i = 0; i < fresh.slotCapacity; i++) fresh.loadKey(ascii(`tenant-${i}`));
    expect(() => fresh.loadKey(ascii("one more"))).toThrow(expect.objectContaining({ code: "WasmKeySlotsFull" }));
    expect(fresh.loadKey(ascii("tenant-7"))).toBe(7);
  });

  // Outside audit 6, F2: slots were never given back, so an isolate of the check worker served
  // its first 1,023 tenants and answered every later one 503 wasm_key_slots_full.
  it("a released key's slot goes to another key; a handle kept from before is WasmBadSlot, never the other key's MAC", () => {
    const fresh = createCore(new WebAssembly.Module(readFileSync(new URL("../build/core.wasm", import.meta.url))));
    const n = fresh.slotCapacity;
    const handles = Array.from({ length: n }, (_, i) => fresh.loadKey(ascii(`tenant-${i}`)));
    const data = ascii("entry");
    const macOf = (k: string) => hex(createHmac("sha256", k).update(data).digest());
    // held twice (the same key loaded again), released once: still held, nothing can take its slot
    expect(fresh.loadKey(ascii("tenant-3"))).toBe(handles[3]);
    fresh.releaseKey(handles[3]!);
    expect(() => fresh.loadKey(ascii("one more"))).toThrow(expect.objectContaining({ code: "WasmKeySlotsFull" }));
    // released by every holder: its handle still MACs under its own key until the slot is reused
    fresh.releaseKey(handles[3]!);
    fresh.releaseKey(handles[5]!);
    fresh.releaseKey(handles[5]!); // a second release changes nothing
    expect(hex(fresh.hmac(handles[3]!, data))).toBe(macOf("tenant-3"));
    // the same key loaded again takes its slot back, with the same handle
    expect(fresh.loadKey(ascii("tenant-5"))).toBe(handles[5]);
    // another key takes the slot released first, under a new handle; the old one is refused
    const other = fresh.loadKey(ascii("one more"));
    expect(other % n).toBe(3);
    expect(other).not.toBe(handles[3]);
    expect(hex(fresh.hmac(other, data))).toBe(macOf("one more"));
    for (const use of [() => fresh.hmac(handles[3]!, data), () => fresh.hmacText(handles[3]!, "entry"), () => fresh.link(handles[3]!, ascii("s"), ZERO, data), () => fresh.linkText(handles[3]!, ascii("s"), ZERO, "e"), () => fresh.verifyRun(handles[3]!, ascii("s"), ZERO, [], []), () => fresh.verifyRunText(handles[3]!, ascii("s"), ZERO, [], []), () => fresh.releaseKey(handles[3]!)]) {
      expect(use).toThrow(expect.objectContaining({ code: "WasmBadSlot" }));
    }
    expect(() => fresh.loadKey(ascii("and another"))).toThrow(expect.objectContaining({ code: "WasmKeySlotsFull" }));
    // the old key comes back in a slot of its own, under a handle of that slot
    fresh.releaseKey(handles[9]!);
    const back = fresh.loadKey(ascii("tenant-3"));
    expect(back % n).toBe(9);
    expect(hex(fresh.hmac(back, data))).toBe(macOf("tenant-3"));
    expect(hex(fresh.hmac(handles[4]!, data))).toBe(macOf("tenant-4"));
  });
});

describe("history link", () => {
  const key = random(32);
  let slot: number;
  beforeAll(() => {
    slot = core.loadKey(key);
  });

  it("equals HMAC over the documented concatenation, for every prefix alignment", () => {
    let prev = ZERO;
    // sid lengths 0..130 move both u32be length prefixes across every offset in a block.
    for (let sidLen = 0; sidLen <= 130; sidLen++) {
      const sid = random(sidLen);
      const entry = random(Math.floor(Math.random() * 400));
      const link = core.link(slot, sid, prev, entry);
      expect(hex(link)).toBe(hex(refLink(key, sid, prev, entry)));
      prev = link;
    }
  });

  it("streams entries larger than the chunk", () => {
    const sid = ascii("sess-big");
    const entry = random(3 * 1024 * 1024 + 17);
    const prev = random(32);
    expect(hex(core.link(slot, sid, prev, entry))).toBe(hex(refLink(key, sid, prev, entry)));
  });

  it("returns copies, not views into WASM memory", () => {
    const a = core.link(slot, ascii("s"), ZERO, ascii("one"));
    const saved = hex(a);
    core.link(slot, ascii("s"), ZERO, ascii("two"));
    core.sha256(random(2 * 1024 * 1024)); // may grow memory
    expect(hex(a)).toBe(saved);
    expect(a.byteLength).toBe(32);
    expect(a.buffer.byteLength).toBe(32);
  });

  it("rejects a previous link that is not 32 bytes", () => {
    expect(() => core.link(slot, ascii("s"), new Uint8Array(31), ascii("e"))).toThrow(
      expect.objectContaining({ code: "WasmBadArgument" }),
    );
  });
});

describe("verifyRun", () => {
  const key = random(32);
  const sid = ascii("sess_01HZX4M6Q7R8S9T0V1W2X3Y4Z5");
  let slot: number;
  let entries: Uint8Array[];
  let links: Uint8Array[];

  function chain(es: readonly Uint8Array[], prev = ZERO, s = sid): Uint8Array[] {
    const out: Uint8Array[] = [];
    for (const e of es) {
      prev = refLink(key, s, prev, e);
      out.push(prev);
    }
    return out;
  }

  beforeAll(() => {
    slot = core.loadKey(key);
    entries = Array.from({ length: 50 }, (_, i) => random(i === 7 ? 0 : 50 + Math.floor(Math.random() * 400)));
    links = chain(entries);
  });

  it("a valid run of 50 links passes", () => {
    expect(core.verifyRun(slot, sid, ZERO, entries, links)).toBe(-1);
  });

  it("an empty run passes", () => {
    expect(core.verifyRun(slot, sid, ZERO, [], [])).toBe(-1);
  });

  it("a run that continues from a recorded link passes", () => {
    expect(core.verifyRun(slot, sid, links[19]!, entries.slice(20), links.slice(20))).toBe(-1);
  });

  it("a flipped entry byte fails at that entry", () => {
    for (const i of [0, 1, 23, 49]) {
      const es = entries.map((e) => new Uint8Array(e));
      es[i]![es[i]!.length >> 1]! ^= 0x01;
      expect(core.verifyRun(slot, sid, ZERO, es, links)).toBe(i);
    }
  });

  it("a removed entry fails where it was", () => {
    for (const i of [0, 10, 48]) {
      const es = entries.filter((_, k) => k !== i);
      const ls = links.filter((_, k) => k !== i);
      expect(core.verifyRun(slot, sid, ZERO, es, ls)).toBe(i);
    }
  });

  it("two swapped records fail at the first of them", () => {
    const es = [...entries];
    const ls = [...links];
    [es[12], es[13]] = [es[13]!, es[12]!];
    [ls[12], ls[13]] = [ls[13]!, ls[12]!];
    expect(core.verifyRun(slot, sid, ZERO, es, ls)).toBe(12);
  });

  it("a replaced link fails at that link", () => {
    const ls = [...links];
    ls[30] = random(32);
    expect(core.verifyRun(slot, sid, ZERO, entries, ls)).toBe(30);
    const wrongLength = [...links];
    wrongLength[5] = links[5]!.subarray(0, 31);
    expect(core.verifyRun(slot, sid, ZERO, entries, wrongLength)).toBe(5);
  });

  it("a re-signed splice still breaks the next link, because links chain on the expected link", () => {
    // Even someone holding the key who replaces entry 20 and its link cannot keep entry 21 valid
    // without re-signing everything after it.
    const es = [...entries];
    const ls = [...links];
    es[20] = ascii("forged");
    ls[20] = refLink(key, sid, links[19]!, es[20]);
    expect(core.verifyRun(slot, sid, ZERO, es, ls)).toBe(21);
  });

  it("another session id, start link or key fails at the first record", () => {
    expect(core.verifyRun(slot, ascii("sess_other"), ZERO, entries, links)).toBe(0);
    expect(core.verifyRun(slot, sid, random(32), entries, links)).toBe(0);
    expect(core.verifyRun(core.loadKey(random(32)), sid, ZERO, entries, links)).toBe(0);
  });

  it("a truncated run is valid by itself: the caller compares the last link with its recorded head", () => {
    expect(core.verifyRun(slot, sid, ZERO, entries.slice(0, 30), links.slice(0, 30))).toBe(-1);
    const recordedHead = links[49]!;
    expect(hex(links[29]!)).not.toBe(hex(recordedHead));
  });

  it("rejects mismatched entries and links", () => {
    expect(() => core.verifyRun(slot, sid, ZERO, entries, links.slice(1))).toThrow(
      expect.objectContaining({ code: "WasmBadArgument" }),
    );
  });

  it("runs larger than one load are verified in pieces, big records streamed", () => {
    const es = Array.from({ length: 1500 }, (_, i) => random(i === 700 ? 2 * 1024 * 1024 : 1000 + (i % 97)));
    const ls = chain(es);
    expect(core.verifyRun(slot, sid, ZERO, es, ls)).toBe(-1);
    for (const i of [699, 700, 701, 1499]) {
      const bad = [...es];
      bad[i] = new Uint8Array(es[i]!);
      bad[i]![0]! ^= 0x80;
      expect(core.verifyRun(slot, sid, ZERO, bad, ls)).toBe(i);
    }
    const badLink = [...ls];
    badLink[700] = random(32);
    expect(core.verifyRun(slot, sid, ZERO, es, badLink)).toBe(700);
  });
});

describe("verifyRunText: the same verdicts as verifyRun, from strings and hex links", () => {
  const key = random(32);
  const sid = ascii("0123456789abcdef0123456789abcdef");
  const run = (texts: string[]): string[] => chainOf(key, sid, texts);

  it("agrees with verifyRun on valid runs and on every kind of damage", () => {
    const slot = core.loadKey(key);
    for (const r of damagedRuns(key, sid, 200)) {
      const expected = core.verifyRun(slot, sid, ZERO, r.bytes, r.linkBytes);
      expect(core.verifyRunText(slot, sid, ZERO, r.texts, r.links), `round ${r.round}`).toBe(expected);
      expect(expected).toBe(r.at);
    }
  });

  it("an entry too big for one load is streamed, and the run goes on after it", () => {
    const slot = core.loadKey(key);
    const texts = ["a", "ü".repeat(400_000), "b"];
    const links = run(texts);
    expect(core.verifyRunText(slot, sid, ZERO, texts, links)).toBe(-1);
    expect(core.verifyRunText(slot, sid, ZERO, texts, [links[0]!, links[1]!, links[0]!])).toBe(2);
    expect(core.verifyRunText(slot, sid, ZERO, [texts[0]!, texts[1]! + "x", texts[2]!], links)).toBe(1);
  });

  it("refuses mismatched lists and an unloaded slot", () => {
    expect(() => core.verifyRunText(core.loadKey(key), sid, ZERO, ["a"], [])).toThrow(WasmCoreError);
    expect(() => createCore(readFileSync(new URL("../build/core.wasm", import.meta.url))).verifyRunText(3, sid, ZERO, [], [])).toThrow(WasmCoreError);
  });
});
