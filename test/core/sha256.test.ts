/**
 * The engine's one SHA-256 entry point (canonical/sha256.ts) against FIPS 180-4 known answers and
 * node:crypto, and the WASM core's own SHA-256 (the hot path) held to the same answers.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { sha256, sha256Hex } from "../../worker/portable/engine/index.js";

const ref = (b: Uint8Array | string): string => createHash("sha256").update(b).digest("hex");
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");

describe("sha256", () => {
  it("gives the FIPS 180-4 answers", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("hashes a string as its UTF-8 bytes", () => {
    expect(sha256Hex("é😀")).toBe(ref(Buffer.from("é😀", "utf8")));
    expect(hex(sha256("é😀"))).toBe(hex(sha256(new TextEncoder().encode("é😀"))));
  });

  it("agrees with node:crypto and with the WASM core on every length around the block edges", () => {
    const core = nodeCore();
    let x = 7;
    for (let n = 0; n <= 300; n++) {
      const bytes = new Uint8Array(n).map(() => (x = (x * 1103515245 + 12345) & 0xff));
      const want = ref(bytes);
      expect(hex(sha256(bytes))).toBe(want);
      expect(hex(core.sha256(bytes))).toBe(want);
    }
  });
});
