/**
 * Copies of one saved session answering the same step in two processes (outside audit 7, F3).
 * Each process's copy writes its own entry (their times differ), and the reservation of a counted
 * call was named by that entry: so a losing copy's reservation counted, for a moment, against the
 * copy that went on to win. Seen: 400 of a 500 ceiling spent, two copies each allowed 100, one
 * was refused `spend_exceeded` with `used: 500` by the other's reservation, committed that refusal
 * first, and the other's allow lost the head: nothing ran, and the numbers were wrong. The
 * reservation is now named by the head the step extends: the second copy cannot take it, answers
 * `history_invalid` and writes nothing, and the first copy's allow stands.
 *
 * Two engines on one store are two processes on one home; the first copy's commit is held back
 * until the second has answered, which is the moment that went wrong.
 */
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { Engine } from "../../worker/portable/engine/engine.js";
import { Session } from "../../worker/portable/engine/session.js";
import { MemoryStateStore, type SessionStateStore } from "../../worker/portable/engine/index.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { catalogueFrom } from "../../cli/sdk/catalogue-input.js";

const T0 = Date.parse("2026-11-15T12:00:00Z");
const key = new Uint8Array(32).fill(5);
const ctx = { origins: { amount: "context" } };

describe("two processes' copies of one session, answering the same step", () => {
  it("one copy is allowed; the other answers history_invalid and counts nothing, even when it answers first", async () => {
    const core = nodeCore();
    const cat = catalogueFrom(join(resolve(import.meta.dirname, "../.."), "test/fixtures/ceiling.yaml"), { schemaCompiler: ajvCompiler, sha256: (b) => core.sha256(b) });
    const store = new MemoryStateStore();
    const engineAt = (ms: number, state: SessionStateStore = store) => new Engine({ core, key, schemaCompiler: ajvCompiler, counters: store, state, now: () => new Date(ms) });

    const first = new Session(engineAt(T0), "pay", cat);
    expect((await first.checkToolCall("pay", { amount: 400 }, ctx)).decision).toBe("allow");
    const saved = JSON.parse(JSON.stringify(first.toJSON()));

    // the first copy's commit waits until the second copy has answered
    let reachedCommit!: () => void;
    const atCommit = new Promise<void>((r) => (reachedCommit = r));
    let letGo!: () => void;
    const go = new Promise<void>((r) => (letGo = r));
    const held: SessionStateStore = {
      load: (s) => store.load(s),
      commit: async (s, change) => {
        reachedCommit();
        await go;
        return store.commit(s, change);
      },
    };
    const a = Session.resume(engineAt(T0 + 1000, held), cat, saved);
    const b = Session.resume(engineAt(T0 + 1001), cat, saved);
    const answerA = a.checkToolCall("pay", { amount: 100 }, ctx);
    await atCommit;
    const answerB = await b.checkToolCall("pay", { amount: 100 }, ctx);
    letGo();
    expect({ decision: answerB.decision, reasons: answerB.reasons }).toEqual({ decision: "refuse", reasons: ["history_invalid"] });
    expect((await answerA).decision).toBe("allow");
    // 500 of 500 spent: the next 1 is over, and a new session sees exactly 500 used
    const next = await new Session(engineAt(T0 + 2000), "other", cat).checkToolCall("pay", { amount: 1 }, ctx);
    expect(next.reasons).toEqual(["spend_exceeded"]);
    expect(next.detail.used).toBe(500);
  });
});
