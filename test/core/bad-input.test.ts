/**
 * Bad input to the SDK (issue 2, "Bad input"): arguments that are not JSON data, absurd sizes,
 * options of the wrong shape — a `refuse` with a reason or a typed error, never a crash, never an
 * allow.
 */
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { Client, InputError } from "../../cli/sdk/index.js";
import { licensedHome } from "../helpers/licensed-home.js";

const catalogue = join(import.meta.dirname, "../../examples/store/agent.yaml");

describe("bad input", () => {
  it("arguments that are not JSON data refuse at step 3, naming the pointer", async () => {
    const s = new Client({ home: licensedHome() }).session("b", { catalogue });
    const cyclic: Record<string, unknown> = { order_id: "1" };
    cyclic.self = cyclic;
    const cases: [unknown, string][] = [
      [{ order_id: undefined }, "/order_id"],
      [{ order_id: NaN }, "/order_id"],
      [{ order_id: () => 1 }, "/order_id"],
      [{ order_id: new Date() }, "/order_id"],
      [{ order_id: 10n }, "/order_id"],
      [{ order_id: "1", nested: { deep: Infinity } }, "/nested/deep"],
    ];
    for (const [args, pointer] of cases) {
      const a = await s.checkToolCall("get_order", args);
      expect(a, String(pointer)).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { pointer, rule: "json" } });
    }
    const c = await s.checkToolCall("get_order", cyclic);
    expect(c.decision).toBe("refuse");
    for (const notAnObject of [null, "x", 7, ["a"]]) {
      expect(await s.checkToolCall("get_order", notAnObject)).toMatchObject({ decision: "refuse", reasons: ["argument_schema"], detail: { rule: "type" } });
    }
  });

  it("a 1 MB string and 10,000-deep nesting are answered, not crashed on", async () => {
    const s = new Client({ home: licensedHome() }).session("b", { catalogue });
    const big = await s.checkToolCall("get_order", { order_id: "1".repeat(1 << 20) });
    expect(big.decision).toBe("allow"); // a valid order id, just long: the schema allows it
    let deep: unknown = "x";
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const d = await s.checkToolCall("get_order", { order_id: "1", extra: deep });
    expect(d).toMatchObject({ decision: "refuse", reasons: ["argument_schema"] });
    const w = await s.checkToolCall("refund_card", { order_id: "https://x.invalid/".repeat(50_000), amount: 1 }, { origins: { order_id: "model", amount: "model" } });
    expect(w).toMatchObject({ decision: "refuse", reasons: ["undeclared_destination"] });
  });

  it("options of the wrong shape are a typed error; nothing is allowed", async () => {
    const s = new Client({ home: licensedHome() }).session("b", { catalogue });
    const bad: unknown[] = [{ origins: "typed" }, { origins: { a: 1 } }, { labels: { call: "x" } }, { labels: [] }, { confirmation: 5 }, { undoOf: "2" }, { agent: 3 }, { facts: [] }];
    for (const options of bad) {
      await expect(s.checkToolCall("get_order", { order_id: "1" }, options as never), JSON.stringify(options)).rejects.toBeInstanceOf(InputError);
    }
    await expect(s.report(0, "maybe" as never)).rejects.toBeInstanceOf(InputError);
    await expect(s.report(999, "ran")).rejects.toBeInstanceOf(InputError);
  });

  it("a language is chosen, never guessed: an unknown one is a typed error", () => {
    const client = new Client({ home: licensedHome() });
    expect(() => client.session("b", { catalogue, language: "pt" as never })).toThrow(InputError);
    expect(() => client.session("", { catalogue })).toThrow(InputError);
  });
});
