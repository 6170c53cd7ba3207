/**
 * The hand-ordered serialisers on the hot path (history entries, token claims, per-argument
 * parts) must equal RFC 8785 JCS of the same data, or an outside verifier would disagree.
 */
import { describe, expect, it } from "vitest";
import reference from "canonicalize";
import { entryCanonical, type Entry } from "../../worker/portable/engine/history/entry.js";
import { canonicalizeTop } from "../../worker/portable/engine/canonical/jcs.js";
import { claimsJson } from "../../worker/portable/engine/tokens/confirmation.js";
import { prng as rng } from "../helpers/prng.js";

const NAMES = ["refund_card", "get-order", "a.b", "São", "x\"y", "back\\slash", "ü", "tab\t", "😀", "", "untrusted:read_inbox", "0"];
const hex = (r: () => number, n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join("");

describe("hand-written canonical forms equal JCS", () => {
  it("history entries of every kind", () => {
    const r = rng(7);
    const pick = <T,>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
    for (let i = 0; i < 3000; i++) {
      const base = { v: 1 as const, step: Math.floor(r() * 5000), at: Math.floor(r() * 2e12) + (r() < 0.1 ? 0.5 : 0), link: hex(r, 64) };
      let e: Entry;
      const k = i % 3;
      if (k === 0) e = { ...base, kind: "turn", text: pick(NAMES) + pick(NAMES) };
      else if (k === 1) {
        const values: Record<string, string> = {};
        for (let j = Math.floor(r() * 4); j > 0; j--) values[pick(NAMES)] = hex(r, 32);
        e = {
          ...base, kind: "check", tool: pick(NAMES), agent: r() < 0.5 ? null : pick(NAMES), args: hex(r, 64), origins: hex(r, 64),
          labels: [pick(NAMES), pick(NAMES)].sort(), decision: pick(["allow", "confirm", "refuse"] as const), reasons: [pick(NAMES)],
          confirmed: r() < 0.5 ? null : Math.floor(r() * 100), undo_of: r() < 0.5 ? null : Math.floor(r() * 100), values,
        };
      } else e = { ...base, kind: "report", of: Math.floor(r() * 100), outcome: pick(["ran", "failed", "outcome_unknown", "compensated"] as const), result: r() < 0.3 ? null : { [pick(NAMES)]: [1, pick(NAMES), { z: 1, a: r() }] } };
      const { link: _link, ...rest } = e;
      expect(entryCanonical(e)).toBe(reference(rest));
    }
  });

  it("token claims and per-argument parts", () => {
    const r = rng(11);
    for (let i = 0; i < 500; i++) {
      const claims = { tool: NAMES[i % NAMES.length]!, agent: i % 2 ? null : NAMES[(i + 3) % NAMES.length]!, digest: hex(r, 64), session: hex(r, 32), ask: i, exp: Math.floor(r() * 2e12) };
      expect(claimsJson(claims)).toBe(reference(claims));
      const args = { [NAMES[i % NAMES.length]!]: r(), b: [NAMES[(i + 1) % NAMES.length]], a: { y: null, x: 1e21 } };
      const top = canonicalizeTop(args);
      expect(top.text).toBe(reference(args));
      for (const [k, v] of Object.entries(args)) expect(top.parts[k]).toBe(reference(v));
    }
  });
});
