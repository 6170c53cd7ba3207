/**
 * `historyTallies` (state/changes.ts) adds up, from a history alone, the tallies its answers moved in the
 * store one by one; a restart of a history the store forgot carries them (outside audit 20, F2).
 * Property: along random sessions of checks, reports (legal and not) and undos, what the store
 * keeps for the session equals what `historyTallies` reads off its history, at every step.
 */
import { describe, expect, it } from "vitest";
import { Engine } from "../../worker/portable/engine/engine.js";
import { Session } from "../../worker/portable/engine/session.js";
import { MemoryStateStore } from "../../worker/portable/engine/index.js";
import { historyTallies } from "../../worker/portable/engine/state/changes.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { catalogueFrom } from "../../cli/sdk/catalogue-input.js";
import { prng } from "../helpers/prng.js";

const CATALOGUE = `
tools:
  - name: once_tool
    writes: true
    confirm: when_held
    at_most: 2
    args: {type: object}
  - name: read_inbox
    reads_outside: true
    args: {type: object}
  - name: lookup
    args: {type: object}
  - name: charge
    writes: true
    confirm: when_held
    undo: refund
    args: {type: object, properties: {n: {type: number}}, required: [n]}
  - name: refund
    writes: true
    confirm: when_held
    args: {type: object, properties: {n: {type: number}}, required: [n]}
  - name: guarded
    writes: true
    confirm: when_held
    not_after: [untrusted]
    args: {type: object}
`;

const positive = (t: Readonly<Record<string, number>>) => Object.fromEntries(Object.entries(t).filter(([, n]) => n > 0).sort(([a], [b]) => a.localeCompare(b)));

describe("historyTallies: a history adds up to what the store kept for it", () => {
  const seed = Number(process.env.TALLIES_SEED ?? 20261207);
  it(`120 random sessions of 30 operations (seed ${seed}, set TALLIES_SEED to vary)`, async () => {
    const core = nodeCore();
    const cat = catalogueFrom(CATALOGUE, { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
    const next = prng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    let compared = 0;
    const seen = new Set<string>();
    let givenBack = 0;
    for (let run = 0; run < 120; run++) {
      const store = new MemoryStateStore();
      let t = Date.parse("2026-11-15T12:00:00Z");
      const engine = new Engine({ core, key: new Uint8Array(32).fill(9), schemaCompiler: ajvCompiler, counters: store, state: store, now: () => new Date((t += 1000)) });
      const s = new Session(engine, `run-${run}`, cat);
      const checks: { step: number; tool: string; n: number }[] = [];
      let lastCounted = 0;
      for (let op = 0; op < 30; op++) {
        const r = next();
        if (r < 0.5 || checks.length === 0) {
          const tool = pick(["once_tool", "read_inbox", "lookup", "charge", "guarded", "refund"]);
          const n = Math.floor(next() * 5);
          const args = tool === "charge" || tool === "refund" ? { n } : {};
          const a = await s.checkToolCall(tool, args, { origins: { n: "context" } });
          checks.push({ step: a.step, tool, n });
        } else if (r < 0.85) {
          const c = pick(checks);
          // any outcome, in any order: the session refuses what a report may not say (InputError)
          await s.report(c.step, pick(["ran", "failed", "outcome_unknown", "compensated"] as const)).catch((err: { code?: string }) => {
            if (err.code !== "InputError") throw err;
          });
        } else {
          const charged = checks.filter((c) => c.tool === "charge");
          if (charged.length === 0) continue;
          const c = pick(charged);
          const a = await s.checkToolCall("refund", { n: c.n }, { origins: { n: "context" }, undoOf: c.step });
          checks.push({ step: a.step, tool: "refund", n: c.n });
        }
        const kept = await store.load(s.id);
        const read = positive(historyTallies(s.history.entries, cat));
        expect(read, `run ${run}, operation ${op}`).toEqual(positive(kept.tallies));
        for (const name of Object.keys(read)) seen.add(name.split(":")[0]!);
        const counted = Object.entries(read).filter(([n]) => n.startsWith("count:")).reduce((a, [, n]) => a + n, 0);
        if (counted < lastCounted) givenBack++;
        lastCounted = counted;
        compared++;
      }
    }
    // the walk reached every kind of tally (undos, counts given back by `failed`, untrusted reads)
    expect(compared).toBeGreaterThan(3000);
    expect([...seen].sort()).toEqual(["count", "seen", "undo", "untrusted"]);
    expect(givenBack).toBeGreaterThan(0);
  }, 120_000);
});
