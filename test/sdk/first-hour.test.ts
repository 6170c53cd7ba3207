/**
 * The mistakes a newcomer makes with the SDK (issue 10), each answered with a typed error that
 * says what, where and how to fix — never a TypeError, never silently accepted:
 *   - every entry point's options are checked: unknown keys and origin words are an `InputError`
 *     with the pointer and a did-you-mean;
 *   - a schema failure names every failing argument and what its schema expects;
 *   - `unknown_tool` names the nearest catalogue tools;
 *   - `client.resume(saved)` needs no options when this client (or its home) has the catalogue,
 *     and otherwise says how to pass it.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, InputError, type SavedSession } from "../../cli/sdk/index.js";
import { FIXTURE_NOW, licensedHome } from "../helpers/licensed-home.js";
import { REPO } from "../conformance/runner.js";
import { nearest } from "../../worker/portable/engine/index.js";

const CATALOGUE = join(REPO, "examples/store/agent.yaml");
const now = () => FIXTURE_NOW;

/** The error `work` throws (synchronously or as a rejection), with its code, pointer and hint. */
async function thrown(work: () => unknown): Promise<{ name: string; code?: string; pointer?: string; hint?: string; message: string }> {
  try {
    await work();
  } catch (err) {
    return err as never;
  }
  throw new Error("expected an error");
}

describe("options: unknown keys and values are an InputError with a pointer and a did-you-mean", () => {
  const client = new Client({ home: licensedHome("first-hour"), now });

  it.each([
    ["client.session(name) without options", () => client.session("b" as string, undefined as never), "/catalogue", 'client.session("b", { catalogue: "agent.yaml" })'],
    ["a misspelt session option", () => client.session("b", { catalog: CATALOGUE } as never), "/catalog", "did you mean `catalogue`?"],
    ["another", () => client.session("b", { catalogue: CATALOGUE, langauge: "en" } as never), "/langauge", "did you mean `language`?"],
    ["a misspelt client option", () => new Client({ hom: "x" } as never), "/hom", "did you mean `home`?"],
    ["a misspelt resume option", () => client.resume({} as SavedSession, { catalog: CATALOGUE } as never), "/catalog", "did you mean `catalogue`?"],
    ["a catalogue of the wrong kind", () => client.session("b", { catalogue: 42 } as never), "/catalogue", '{ catalogue: "agent.yaml" }'],
    // outside audit 16, F9: a name too long (or empty) had no pointer, a name of the wrong type had /name
    ["a session name of 201 characters", () => client.session("x".repeat(201), { catalogue: CATALOGUE }), "/name", 'a short name for the conversation, e.g. client.session("billing", { catalogue: "agent.yaml" })'],
    ["an empty session name", () => client.session("", { catalogue: CATALOGUE }), "/name", 'a short name for the conversation, e.g. client.session("billing", { catalogue: "agent.yaml" })'],
    ["a session name of the wrong type", () => client.session({ catalogue: CATALOGUE } as never, undefined as never), "/name", 'e.g. client.session("billing", { catalogue: "agent.yaml" })'],
  ])("%s", async (_what, work, pointer, hint) => {
    const err = await thrown(work);
    expect(err).toBeInstanceOf(InputError);
    expect({ code: err.code, pointer: err.pointer, hint: err.hint }).toEqual({ code: "InputError", pointer, hint });
  });

  it("a check's options: `origin:` for `origins:`, an origin word misspelt, `run` options too", async () => {
    const s = client.session("b", { catalogue: CATALOGUE });
    await s.read("estorne 40,00 do pedido 4411");
    const refund = { order_id: "4411", amount: 40 };
    const key = await thrown(() => s.checkToolCall("refund_card", refund, { origin: { order_id: "typed" } } as never));
    expect({ code: key.code, pointer: key.pointer, hint: key.hint }).toEqual({ code: "InputError", pointer: "/options/origin", hint: "did you mean `origins`?" });
    const word = await thrown(() => s.checkToolCall("refund_card", refund, { origins: { order_id: "typd", amount: "typed" } }));
    expect({ code: word.code, pointer: word.pointer }).toEqual({ code: "InputError", pointer: "/options/origins/order_id" });
    expect(word.message).toBe("unknown origin `typd`");
    expect(word.hint).toMatch(/^did you mean `typed`\? origins are `typed`, `reply`, `context`, `computed`, `model` and `result:<step>\[\.<path>\]`$/);
    const run = await thrown(() => s.run("get_order", { order_id: "4411" }, { orign: {} } as never, () => ({})));
    expect({ code: run.code, pointer: run.pointer, hint: run.hint }).toEqual({ code: "InputError", pointer: "/options/orign", hint: "did you mean `origins`?" });
    // nothing was recorded for the refused inputs: the read is the only entry
    expect(s.history.entries.map((e) => e.kind)).toEqual(["turn"]);
    // the words that are origins still pass, `result:` references included
    expect((await s.checkToolCall("refund_card", refund, { origins: { order_id: "typed", amount: "model" } })).reasons).toEqual(["argument_origin"]);
    expect((await s.checkToolCall("get_order", { order_id: "4411" }, { origins: { order_id: "result:0.order_id" } })).decision).toBe("allow");
  });
});

describe("answers that say what to fix", () => {
  it("a home that is a file is an InputError naming it, not an internal EEXIST", async () => {
    const file = join(licensedHome(), "not-a-folder");
    writeFileSync(file, "");
    const e = await thrown(() => new Client({ home: file }));
    expect(e).toMatchObject({ code: "InputError", pointer: "/home" });
    expect(e.message).toContain(file);
  });

  const client = new Client({ home: licensedHome("first-hour"), now });

  it("a schema failure lists every failing argument with what its schema expects; pointer and rule name the first", async () => {
    const s = client.session("b", { catalogue: CATALOGUE });
    const r = await s.checkToolCall("refund_card", { order_id: 4411, amount: "40" });
    expect(r.reasons).toEqual(["argument_schema"]);
    expect(r.detail).toMatchObject({ pointer: "/amount", rule: "type" });
    expect(r.detail.failures).toEqual([
      { pointer: "/amount", rule: "type", expected: "a number > 0", message: '`amount` must be a number > 0, not the string "40"' },
      { pointer: "/order_id", rule: "type", expected: "a string", message: "`order_id` must be a string, not the number 4411" },
    ]);
    expect(r.detail.message).toBe('`amount` must be a number > 0, not the string "40"; `order_id` must be a string, not the number 4411');
  });

  it("unknown_tool names the nearest catalogue tools, and nothing when nothing is near", async () => {
    const s = client.session("b", { catalogue: CATALOGUE });
    expect((await s.checkToolCall("refund_crad", {})).detail).toEqual({ tool: "refund_crad", nearest: ["refund_card"] });
    expect((await s.checkToolCall("delete_order", {})).detail).toEqual({ tool: "delete_order" });
  });

  it("the one nearest-name helper: typos and prefixes, nearest first, at most n", () => {
    expect(nearest("chek", ["check", "replay", "rules"])).toEqual(["check"]);
    expect(nearest("refund", ["get_order", "refund_card", "charge_card"])).toEqual(["refund_card"]);
    expect(nearest("get_ordr", ["get_order", "get_orders", "tag_order"], 2)).toEqual(["get_order", "get_orders"]);
    expect(nearest("zzz", ["check", "replay"])).toEqual([]);
  });
});

describe("client.resume(saved) without options", () => {
  it("continues with the catalogue this client loaded, and from the copy under the home in a new client", async () => {
    const home = licensedHome("resume");
    const first = new Client({ home, now });
    const s = first.session("b", { catalogue: CATALOGUE });
    await s.read("estorne 40,00 do pedido 4411");
    await s.checkToolCall("get_order", { order_id: "4411" });
    const saved = s.toJSON();
    const again = first.resume(saved);
    expect((await again.checkToolCall("get_order", { order_id: "4411" })).decision).toBe("allow");
    // a copy of the catalogue's source is kept under the home, named by its digest
    expect(readdirSync(join(home, "catalogues"))).toEqual([`${saved.catalogue}.yaml`]);
    const other = new Client({ home, now }).resume(JSON.stringify(again.toJSON()));
    expect((await other.checkToolCall("get_order", { order_id: "4411" })).reasons).not.toContain("unknown_tool");
  });

  it("otherwise throws an InputError saying how to pass the catalogue", async () => {
    const home = licensedHome("resume");
    const s = new Client({ home, now }).session("b", { catalogue: CATALOGUE });
    await s.read("oi");
    rmSync(join(home, "catalogues"), { recursive: true }); // a home that kept no copy
    const err = await thrown(() => new Client({ home, now }).resume(s.toJSON()));
    expect(err).toBeInstanceOf(InputError);
    expect(err.pointer).toBe("/catalogue");
    expect(err.message).toMatch(/^this client has not loaded the catalogue the saved session was checked against \([0-9a-f]{12}…\)/);
    expect(err.hint).toBe('pass it: client.resume(saved, { catalogue: "agent.yaml" }) — the same catalogue the session started with');
    // passing it works (and puts the copy back)
    const resumed = new Client({ home, now }).resume(s.toJSON(), { catalogue: CATALOGUE });
    expect((await resumed.checkToolCall("get_order", { order_id: "1" })).reasons).not.toContain("unknown_tool");
    expect(existsSync(join(home, "catalogues", `${s.toJSON().catalogue}.yaml`))).toBe(true);
  });

  it("a copy under the home that does not compile to its digest is not used", async () => {
    const home = licensedHome("resume-forged");
    const s = new Client({ home, now }).session("b", { catalogue: CATALOGUE });
    await s.read("oi");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(home, "catalogues", `${s.toJSON().catalogue}.yaml`), "tools:\n  - name: anything\n");
    const err = await thrown(() => new Client({ home, now }).resume(s.toJSON()));
    expect({ code: err.code, pointer: err.pointer }).toEqual({ code: "InputError", pointer: "/catalogue" });
  });
});
