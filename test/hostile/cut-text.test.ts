/**
 * Every place the engine, the gateway or the approvals cut someone else's text to a bound cuts
 * between characters: half of an emoji is not text (canonical JSON refuses it, a reader shows
 * garbage). Each case puts a surrogate pair across the bound at every offset.
 */
import { describe, expect, it } from "vitest";
import { cutText } from "../../worker/portable/engine/index.js";
import { findDestinations } from "../../worker/portable/engine/destinations/index.js";
import { MAX_LENGTH } from "../../worker/portable/engine/destinations/found.js";
import { quotedName } from "../../cli/gateway/words.js";
import { Client } from "../../cli/sdk/index.js";
import { FIXTURE_NOW, licensedHome } from "../helpers/licensed-home.js";
import { REPO } from "../conformance/runner.js";
import { join } from "node:path";

/** A lone half of a surrogate pair anywhere in `s`. */
const broken = (s: string): boolean => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe("cutText", () => {
  it("never leaves half a pair, never passes the bound, and keeps what fits", () => {
    const s = "é😀a🎉b".repeat(4);
    for (let n = 1; n <= s.length + 1; n++) {
      const c = cutText(s, n);
      expect(broken(c), String(n)).toBe(false);
      expect(c.length).toBeLessThanOrEqual(n);
      expect(c.length).toBeGreaterThanOrEqual(Math.min(n, s.length) - 1);
      expect(s.startsWith(c)).toBe(true);
    }
  });
});

describe("a destination cut at its bound", () => {
  it("is whole characters followed by …, for a pair at every offset around the bound", () => {
    const prefix = "https://shop.example.com/";
    for (const pad of [MAX_LENGTH - 3, MAX_LENGTH - 2, MAX_LENGTH - 1, MAX_LENGTH]) {
      const found = findDestinations("see " + prefix + "a".repeat(pad - prefix.length) + "😀😀tail");
      expect(found.length, String(pad)).toBe(1);
      expect(found[0]!.endsWith("…")).toBe(true);
      expect(broken(found[0]!), String(pad)).toBe(false);
    }
  });

  it("in a check's refusal too (in-process)", async () => {
    const s = new Client({ home: licensedHome("cut"), now: () => FIXTURE_NOW }).session("b", { catalogue: join(REPO, "examples/store/agent.yaml") });
    const prefix = "https://example.com/";
    for (const pad of [MAX_LENGTH - 2, MAX_LENGTH - 1]) {
      const r = await s.checkToolCall("list_orders", { customer: prefix + "a".repeat(pad - prefix.length) + "😀😀tail" });
      expect(r.reasons).toEqual(["undeclared_destination"]);
      expect((r.detail.destinations as string[]).some(broken), String(pad)).toBe(false);
    }
  });
});

describe("a tool server's name in the gateway's question", () => {
  it("is cut to 100 characters between characters", () => {
    for (let pad = 90; pad < 100; pad++) {
      const q = quotedName("n".repeat(pad) + "😀".repeat(10));
      expect(q.length).toBeLessThanOrEqual(100);
      expect(broken(q), String(pad)).toBe(false);
    }
  });
});
