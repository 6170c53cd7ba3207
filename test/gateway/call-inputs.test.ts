/**
 * What a host's calls sent (engine origins/call-inputs.ts): a result does not vouch for a value the
 * model sent with its call or before it, however the read hands it back (outside audits 22 and 24),
 * and still vouches for what it found itself. Examples, the bounds, and two properties against a
 * plain reference.
 */
import { describe, expect, it, vi } from "vitest";
import { CallInputs, inferOrigins, originsOf, type InferredOrigin } from "../../worker/portable/engine/index.js";
import { prng } from "../helpers/prng.js";

const returns = { type: "object", properties: { ref: { type: "string" }, n: { type: "number" }, address: { type: "object" } } };
const at = (step: number, result: unknown, labels: string[] = []) => ({ step, tool: "lookup", labels, result, returns, readsOutside: false });
const view = (...results: ReturnType<typeof at>[]) => ({ language: "en" as const, turns: [], context: {}, results });
const model = (): InferredOrigin => ({ origin: "model", labels: [] });

describe("what the calls sent, and what a result may vouch for", () => {
  it("a value sent with the call or before it, nested, as a key, folded, cut, joined or spelt as another number: the model's (audits 22 F1 F2, 24 F4)", () => {
    const sent: [string, unknown, unknown][] = [
      ["exact", "acct-666", "acct-666"],
      ["nested", { inner: "acct-666" }, "acct-666"],
      ["list", ["acct-666"], "acct-666"],
      ["key", { "acct-666": true }, "acct-666"],
      ["trim", "  acct-666 ", "acct-666"],
      ["case", "ACCT-666", "acct-666"],
      ["prefix", "id:acct-666", "acct-666"],
      ["full width", "ＡＣＣＴ－６６６", "acct-666"],
      ["inner space", "acct 666", "ACCT666"],
      ["zero width", "acct\u200b-777", "ACCT-777"],
      ["accents", "áccť-888", "ACCT-888"],
      ["sharp s", "straße 908", "STRASSE-908"],
      ["IBAN spaced", "DE89 3704 0044 0532 0130 00", "DE89370400440532013000"],
      ["number with a comma", "4,000", 4000],
      ["number with an exponent", "4e3", 4000],
      ["number as text", 4000, "4000"],
      // outside audit 25, F1
      ["Hangul filler", "acct\u3164-666", "acct-666"],
      ["capital sharp s", "ẞTRASSE 9", "SSTRASSE-9"],
      ["other digits", "acct-٦٦٦", "acct-666"],
    ];
    for (const [what, q, back] of sent) {
      for (const later of [false, true]) {
        const inputs = new CallInputs();
        inputs.note(1, { q }, { q: model() });
        if (later) inputs.note(2, { q: "x" }, { q: model() });
        const step = later ? 2 : 1;
        const got = originsOf(inferOrigins({ a: back }, view(at(step, { ref: back, n: back })), { inputs })).a;
        expect(got, `${what}${later ? ", handed back by a later call" : ""}`).toBe("model");
      }
    }
  });

  it("a result still vouches for what it found itself, for what it built, and for what a trusted origin sent", () => {
    const inputs = new CallInputs();
    inputs.note(0, { q: "start" }, { q: model() });
    inputs.note(1, { q: "9999" }, { q: model() });
    inputs.note(2, { q: "44110" }, { q: model() });
    inputs.note(3, { q: "found-R7" }, { q: model() });
    // step 0 found found-R7 before step 3 sent it; step 1 built R-9999 out of 9999; 4411 is no word of 44110
    expect(originsOf(inferOrigins({ a: "found-R7", b: "R-9999", c: "4411" }, view(at(0, { ref: "found-R7" }), at(1, { ref: "R-9999" }), at(2, { ref: "4411" })), { inputs }))).toEqual({ a: "result:0.ref", b: "result:1.ref", c: "result:2.ref" });
    // a lookup asked with what the person typed, or with a trusted result's value, vouches for its answer
    const trusted = new CallInputs();
    trusted.note(4, { q: "4411" }, { q: { origin: "typed", labels: [] } });
    trusted.note(5, { q: "A-77" }, { q: { origin: "result:4.ref", labels: [] } });
    expect(originsOf(inferOrigins({ a: "4411", b: "A-77" }, view(at(4, { ref: "4411" }), at(5, { ref: "A-77" })), { inputs: trusted }))).toEqual({ a: "result:4.ref", b: "result:5.ref" });
    // …but not one out of an untrusted read: sent on and handed back, it stays the read's, labelled
    const tainted = new CallInputs();
    tainted.note(7, { q: "evil@x.example" }, { q: { origin: "result:6.ref", labels: ["untrusted:web"] } });
    const got = inferOrigins({ a: "evil@x.example" }, view(at(6, { ref: "evil@x.example" }, ["untrusted:web"]), at(7, { ref: "evil@x.example" })), { inputs: tainted });
    expect(got.a).toMatchObject({ origin: "result:6.ref", labels: ["untrusted:web"] });
  });

  it("a value of one or two letters or digits an earlier call sent for another reason does not stop a result vouching for it; its own call's does (audit 25, F5)", () => {
    const inputs = new CallInputs();
    inputs.note(1, { customer: "me", limit: 50, page: 1, currency: "EU" }, { customer: model(), limit: model(), page: model(), currency: model() });
    inputs.note(2, { order_id: "4411" }, { order_id: { origin: "typed", labels: [] } });
    expect(originsOf(inferOrigins({ amount: 50, currency: "EU" }, view(at(2, { ref: "EU", n: 50 })), { inputs }))).toEqual({ amount: "result:2.n", currency: "result:2.ref" });
    expect(originsOf(inferOrigins({ quantity: 1 }, view(at(2, { n: 1 })), { inputs }))).toEqual({ quantity: "result:2.n" });
    // three or more (`500`, `EUR`) still count across calls
    inputs.note(3, { limit: 500, note: "EUR" }, { limit: model(), note: model() });
    inputs.note(4, { order_id: "4412" }, { order_id: { origin: "typed", labels: [] } });
    expect(originsOf(inferOrigins({ amount: 500, currency: "EUR" }, view(at(4, { n: 500, ref: "EUR" })), { inputs }))).toEqual({ amount: "model", currency: "model" });
    // and a short value its own call was sent is its echo
    inputs.note(5, { q: "7" }, { q: model() });
    expect(originsOf(inferOrigins({ a: "7" }, view(at(5, { ref: "7" })), { inputs })).a).toBe("model");
  });

  it("an object a read found vouches although its keys were sent before (audit 24, F5)", () => {
    const inputs = new CallInputs();
    inputs.note(1, { address: { street: "1 Main St", city: "Lisbon" } }, { address: model() });
    inputs.note(2, { customer_id: "c-2" }, { customer_id: model() });
    inputs.note(3, { customer_id: "c-3" }, { customer_id: model() });
    const found = { street: "9 Rua Augusta", city: "Porto" };
    expect(originsOf(inferOrigins({ address: found }, view(at(2, { address: found })), { inputs })).address).toBe("result:2.address");
    // one value in it sent before: the object is not the read's
    const echoed = { street: "9 Rua Augusta", city: "Lisbon" };
    expect(originsOf(inferOrigins({ address: echoed }, view(at(3, { address: echoed })), { inputs })).address).toBe("model");
  });

  it("an `after … bind` argument is no source either when its run only hands back what it was sent (audit 24, F2)", () => {
    const binds = { acct: { tool: "lookup", field: "ref" } };
    const inputs = new CallInputs();
    inputs.note(1, { id: "acct-666" }, { id: model() });
    expect(originsOf(inferOrigins({ acct: "acct-666" }, view(at(1, { ref: "acct-666" })), { inputs, binds })).acct).toBe("model");
    // the person typed it: the lookup asked with it vouches, and the binding holds
    const typed = new CallInputs();
    typed.note(1, { id: "acct-666" }, { id: { origin: "typed", labels: [] } });
    expect(originsOf(inferOrigins({ acct: "acct-666" }, view(at(1, { ref: "acct-666" })), { inputs: typed, binds })).acct).toBe("result:1.ref");
  });

  it("a call it did not see vouches for nothing: a resumed session, another process (audit 24, F1)", () => {
    const inputs = new CallInputs();
    inputs.note(3, { q: "x" }, { q: model() });
    expect(originsOf(inferOrigins({ a: "R1" }, view(at(0, { ref: "R1" })), { inputs })).a).toBe("model");
    expect(originsOf(inferOrigins({ a: "R1" }, view(at(3, { ref: "R1" })), { inputs })).a).toBe("result:3.ref");
  });

  it("something else the host sent on, with no result of its own (a resource's URI, a prompt's arguments): a later read handing it back does not vouch (audit 24, F3)", () => {
    const inputs = new CallInputs();
    inputs.note(1, { q: "x" }, { q: model() });
    inputs.note(undefined, undefined); // a request with no params: nothing sent, nothing lost
    inputs.note(undefined, { uri: "acct://acct-701", cursor: undefined });
    inputs.note(2, { q: "recent" }, { q: model() });
    expect(originsOf(inferOrigins({ a: "acct-701" }, view(at(2, { ref: "acct-701" })), { inputs })).a).toBe("model");
    expect(originsOf(inferOrigins({ a: "acct-701" }, view(at(1, { ref: "acct-701" })), { inputs })).a).toBe("result:1.ref");
    // and a later call's result still vouches for what it found itself
    inputs.note(3, { q: "y" }, { q: model() });
    expect(originsOf(inferOrigins({ a: "found-x" }, view(at(3, { ref: "found-x" })), { inputs })).a).toBe("result:3.ref");
  });

  it("what was sent while a call ran (a sampled message) counts against its result once it is answered (audit 25, F2)", () => {
    const inputs = new CallInputs();
    inputs.note(1, { topic: "rent" }, { topic: model() });
    inputs.note(undefined, { role: "assistant", content: { type: "text", text: "acct-802" } });
    inputs.answered(1);
    const got = inferOrigins({ a: "acct-802" }, view(at(1, { ref: "acct-802" })), { inputs });
    // said as it is: the result holds it, but only after the model had sent it
    expect(got.a).toEqual({ origin: "model", labels: [], sentBefore: "result:1.ref", tool: "lookup" });
  });

  it("past what it keeps, or after a call too large to record, no later result vouches; earlier ones still do (audit 24, F7); the host is told once (audit 25, F6)", () => {
    const told: string[] = [];
    const inputs = new CallInputs(100, (why) => void told.push(why));
    inputs.note(0, { q: "start" }, { q: model() });
    inputs.note(1, { q: "a".repeat(200) }, { q: model() });
    inputs.note(2, { q: "b" }, { q: model() });
    const v = view(at(0, { ref: "R0" }), at(2, { ref: "R2" }));
    expect(originsOf(inferOrigins({ a: "R0", b: "R2" }, v, { inputs }))).toEqual({ a: "result:0.ref", b: "model" });
    expect(told).toEqual(["what the calls sent passed 100 characters"]);
    const big = new CallInputs();
    big.note(0, { q: "start" }, { q: model() });
    big.note(1, { q: Array.from({ length: 100_001 }, (_, i) => i) }, { q: model() });
    big.note(2, { q: "b" }, { q: model() });
    expect(originsOf(inferOrigins({ a: "R0", b: "R2" }, v, { inputs: big }))).toEqual({ a: "result:0.ref", b: "model" });
  });

  it("many results holding one value cost one reading of what was sent, not one each (audit 24, F6)", () => {
    const inputs = new CallInputs();
    for (let i = 0; i < 2000; i++) inputs.note(i, { q: `alpha gamma ${"x".repeat(500)} ${i}` }, { q: model() });
    inputs.note(2000, { q: "alpha-gamma" }, { q: model() });
    const results = Array.from({ length: 1000 }, (_, k) => at(2001 + k, { ref: "alpha-gamma" }));
    for (let k = 0; k < 1000; k++) inputs.note(2001 + k, { q: "recent" }, { q: model() });
    // what was sent is read once for the value, whatever the number of results holding it
    const reads = vi.spyOn(CallInputs.prototype as unknown as { firstRun(s: string): number }, "firstRun");
    try {
      expect(originsOf(inferOrigins({ a: "alpha-gamma" }, view(...results), { inputs })).a).toBe("model");
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });

  it("property: every value sent, at any depth, in any case or spacing, is an echo from then on", () => {
    const next = prng(22);
    const word = () => Array.from({ length: 1 + Math.floor(next() * 8) }, () => "abcdefghxyz0123456789-_.@"[Math.floor(next() * 25)]).join("");
    const tree = (depth: number): unknown => {
      const r = next();
      if (depth > 3 || r < 0.4) return r < 0.1 ? Math.floor(next() * 10_000) : word();
      if (r < 0.7) return Array.from({ length: 1 + Math.floor(next() * 3) }, () => tree(depth + 1));
      return Object.fromEntries(Array.from({ length: 1 + Math.floor(next() * 3) }, () => [word(), tree(depth + 1)]));
    };
    const leaves = (x: unknown, out: string[] = []): string[] => {
      if (Array.isArray(x)) x.forEach((y) => leaves(y, out));
      else if (x !== null && typeof x === "object") for (const [k, v] of Object.entries(x)) out.push(k), leaves(v, out);
      else out.push(String(x));
      return out;
    };
    for (let i = 0; i < 300; i++) {
      const inputs = new CallInputs();
      inputs.note(1, { q: "zzzz" }, { q: model() });
      const args = { q: tree(0) };
      inputs.note(5, args, { q: model() });
      for (const leaf of leaves(args.q)) {
        if (!/[a-z0-9]/.test(leaf)) continue; // nothing to launder in a value without a letter or digit
        for (const v of [leaf, ` ${leaf.toUpperCase()} `]) expect(inputs.echoes(5, v), `${JSON.stringify(args)} ${JSON.stringify(v)}`).toBe(true);
        if (leaf !== "zzzz") expect(inputs.echoes(1, leaf), "a result before it was sent").toBe(false);
      }
    }
  });

  it("property: an echo is exactly a run of whole words of something sent by then (the word index only skips reading)", () => {
    const next = prng(2201);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    // no digits: numbers have readings of their own (the examples above)
    const word = () => Array.from({ length: 1 + Math.floor(next() * 4) }, () => pick([..."abxyßÄé-_. @\u200b"])).join("");
    /** the reference: fold, cut into words, then any run of consecutive words joined */
    const fold = (x: string) => x.normalize("NFKD").replace(/[\p{M}\p{Cf}]/gu, "").toUpperCase().toLowerCase();
    const words = (x: string) => fold(x).match(/[\p{L}\p{N}]+/gu) ?? [];
    const runs = (part: string) => {
      const ws = words(part);
      const out = new Set<string>();
      for (let i = 0; i < ws.length; i++) for (let j = i; j < ws.length; j++) out.add(ws.slice(i, j + 1).join(""));
      return out;
    };
    let echoes = 0;
    let tried = 0;
    for (let i = 0; i < 400; i++) {
      const inputs = new CallInputs();
      const calls: string[][] = [];
      for (let step = 0; step < 4; step++) {
        const parts = Array.from({ length: 1 + Math.floor(next() * 3) }, () => Array.from({ length: 1 + Math.floor(next() * 3) }, word).join(pick([" ", "-", ":", ""])));
        inputs.note(step, Object.fromEntries(parts.map((p, k) => [`k${k}`, p])), {});
        calls.push(parts);
      }
      for (let t = 0; t < 20; t++) {
        const from = pick(calls.flat());
        const cut = Math.floor(next() * from.length);
        const v = pick([from, from.slice(cut), from.slice(0, cut), word(), `${word()}${from}`, from.toUpperCase()]);
        const s = words(v).join("");
        if (s === "") continue;
        const step = Math.floor(next() * 4);
        // one or two letters: only its own call's; longer: any call's up to it
        const expected = (s.length < 3 ? calls.slice(step, step + 1) : calls.slice(0, step + 1)).some((parts) => parts.some((p) => runs(p).has(s)));
        expect(inputs.echoes(step, v), `${JSON.stringify(calls)} step ${step} ${JSON.stringify(v)}`).toBe(expected);
        tried++;
        if (expected) echoes++;
      }
    }
    expect(echoes).toBeGreaterThan(tried / 4);
    expect(tried - echoes).toBeGreaterThan(tried / 10);
  });
});
