/**
 * The caller's `history.entries` list takes the engine's later entries when it is next looked at,
 * not at every check (history/watched.ts): whatever way the caller looks, a list they hold shows
 * every entry, and an edit made through anything they hold is an edit of the whole history — never
 * a shorter one that a session without a state store would take as an older copy.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engine } from "../../worker/portable/engine/engine.js";
import { Session } from "../../worker/portable/engine/session.js";
import { nodeCore } from "../../cli/sdk/wasm-node.js";
import { installationKey } from "../../cli/sdk/home.js";
import { catalogueFrom } from "../../cli/sdk/catalogue-input.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import type { TurnEntry } from "../../worker/portable/engine/history/entry.js";

const core = nodeCore();
const engine = new Engine({ core, key: installationKey(mkdtempSync(join(tmpdir(), "stalwart-catchup-"))), schemaCompiler: ajvCompiler });
const catalogue = catalogueFrom(join(import.meta.dirname, "../../examples/store/agent.yaml"), { schemaCompiler: ajvCompiler, sha256: (b: Uint8Array) => core.sha256(b) });
const refund = { order_id: "4411", amount: 40 };
const opts = { origins: { order_id: "typed", amount: "typed" } } as const;

/** A session whose list the caller took after its first entry, then four more checks. */
async function heldEarly() {
  const s = new Session(engine, "billing", catalogue);
  await s.read("estorne 40,00 do pedido 4411");
  const held = s.history.entries;
  const first = held[0] as TurnEntry;
  expect(first.kind).toBe("turn");
  for (let i = 0; i < 4; i++) await s.checkToolCall("get_order", { order_id: "4411" }, {});
  return { s, held, first };
}

describe("the caller's history list, caught up when looked at", () => {
  it("a list taken early shows every later entry, however it is read", async () => {
    const { s, held } = await heldEarly();
    const steps = [0, 1, 2, 3, 4];
    expect(held.length).toBe(5);
    const { s: s2, held: h2 } = await heldEarly();
    expect(Object.keys(h2)).toEqual(steps.map(String));
    const { held: h3 } = await heldEarly();
    expect([...h3].map((e) => e.step)).toEqual(steps);
    const { held: h4 } = await heldEarly();
    expect(JSON.parse(JSON.stringify(h4)).map((e: { step: number }) => e.step)).toEqual(steps);
    const { held: h5 } = await heldEarly();
    expect(4 in h5).toBe(true);
    const { held: h6 } = await heldEarly();
    expect(Object.getOwnPropertyDescriptor(h6, "4")?.value.step).toBe(4);
    // what a saved session carries is the whole history too
    expect(s2.toJSON().entries.length).toBe(5);
    expect((await s.checkToolCall("get_order", { order_id: "4411" }, {})).decision).toBe("allow");
    expect(held.length).toBe(6);
  });

  it("an edit through an entry taken before later checks is an edit of the whole history", async () => {
    // the same value written back: a change of nothing, on a list that had one entry when taken
    const { s, held, first } = await heldEarly();
    first.text = first.text;
    expect(held.length).toBe(5);
    const next = await s.checkToolCall("refund_card", refund, opts);
    expect(next.decision).not.toBe("refuse");
    expect(next.step).toBe(5);

    // a real change: refused as an edited history, not taken as an older copy of it
    const { s: t, first: f2 } = await heldEarly();
    f2.text = "estorne 4.000,00 do pedido 4411";
    const edited = await t.checkToolCall("refund_card", refund, opts);
    expect(edited.decision).toBe("refuse");
    expect(edited.reasons).toEqual(["history_invalid"]);
  });

  it("a list the caller replaced takes nothing of the engine's", async () => {
    const { s } = await heldEarly();
    const mine = s.history.entries.slice(0, 2);
    s.history.entries = mine;
    expect(s.history.entries.length).toBe(2);
  });
});
