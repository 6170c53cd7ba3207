/**
 * What the SDK keeps of what it compiled is bounded (BoundedCache): a process given a new
 * catalogue text for each session must not keep every one of them. What was dropped is compiled
 * again when it comes back, and a resume still finds its catalogue in the home.
 */
import { describe, expect, it } from "vitest";
import { Client } from "../../cli/sdk/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { catalogueFrom } from "../../cli/sdk/catalogue-input.js";
import { BoundedCache, sha256 } from "../../worker/portable/engine/index.js";
import { FIXTURE_NOW, licensedHome } from "../helpers/licensed-home.js";

const catalogue = (i: number) =>
  `settings: {language: en}\ntools:\n  - {name: read_${i}, args: {type: object, properties: {path: {type: string, maxLength: ${i + 1}}}, additionalProperties: false}}\n`;

describe("BoundedCache", () => {
  it("keeps at most its size, dropping the least recently used", () => {
    const c = new BoundedCache<string, number>(3);
    for (const [k, v] of [["a", 1], ["b", 2], ["c", 3]] as const) c.set(k, v);
    expect(c.get("a")).toBe(1); // a is now the most recent: b goes next
    c.set("d", 4);
    expect([c.get("a"), c.get("b"), c.get("c"), c.get("d"), c.size]).toEqual([1, undefined, 3, 4, 3]);
    c.set("c", 30); // set again: the value replaced, no entry added
    expect([c.get("c"), c.size]).toEqual([30, 3]);
    c.delete("a");
    expect([c.get("a"), c.size]).toEqual([undefined, 2]);
  });
});

describe("the SDK's catalogues", () => {
  it("a thousand distinct texts: the recent ones kept, the first dropped and compiled again when it comes back", () => {
    const opts = { schemaCompiler: ajvCompiler, sha256 };
    const first = catalogueFrom(catalogue(0), opts);
    let last = first;
    for (let i = 1; i < 1000; i++) last = catalogueFrom(catalogue(i), opts);
    expect(catalogueFrom(catalogue(999), opts)).toBe(last);
    const again = catalogueFrom(catalogue(0), opts);
    expect(again).not.toBe(first);
    expect(again.digest).toBe(first.digest);
    expect(again.tools.get("read_0")!.validateArgs({ path: "ab" })).toMatchObject({ ok: false, pointer: "/path", rule: "maxLength" });
  });

  it("a session on a catalogue the client has since dropped resumes with no options: the home keeps it", async () => {
    const client = new Client({ home: licensedHome("bounded-caches"), now: () => FIXTURE_NOW });
    const s = client.session("early", { catalogue: catalogue(5000) });
    expect((await s.checkToolCall("read_5000", { path: "x" })).decision).toBe("allow");
    const saved = s.toJSON();
    for (let i = 1; i <= 100; i++) client.session(`s${i}`, { catalogue: catalogue(5000 + i) });
    const back = client.resume(saved);
    expect((await back.checkToolCall("read_5000", { path: "y".repeat(6000) })).reasons).toContain("argument_schema");
  });
});
