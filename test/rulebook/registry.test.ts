/**
 * The registry (`registry.json`): a round trip gives the same rulebook; a registry changed by
 * hand — a value, a rule removed, a word added, another version, a digest recomputed over rules
 * `stalwart rules compile` would never write — is an error naming the file. And the Node glue
 * loads a rulebook from every form the SDK accepts.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import { canonicalize as canonicalJson } from "../../worker/portable/engine/index.js";
import { CatalogueError } from "../../worker/portable/engine/errors.js";
import { compileRulebook, loadRegistry, registryText, rulebookFromText, toRegistry, type Registry } from "../../worker/portable/engine/rulebook/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { lintRulebookNode, loadRulebookNode } from "../../cli/sdk/rulebook-node.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/rulebooks/${name}`, import.meta.url));
const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), "utf8");
const catalogue = loadCatalogue(read("examples/store/agent.yaml"), { file: "agent.yaml", schemaCompiler: ajvCompiler });
const rich = compileRulebook(read("test/fixtures/rulebooks/rich.yaml"), { file: "rich.yaml", catalogue });
const fresh = (): Registry => JSON.parse(registryText(rich, { source: "rich.yaml" }));
/** the digest as anyone could recompute it: node:crypto over the canonical JSON of {v, rules} */
const redigest = (r: Registry): Registry => ({ ...r, digest: createHash("sha256").update(canonicalJson({ v: r.v, rules: r.rules })).digest("hex") });

function refusal(json: string | object, file = "store/registry.json"): CatalogueError {
  try {
    loadRegistry(json, { file });
  } catch (e) {
    expect(e).toBeInstanceOf(CatalogueError);
    return e as CatalogueError;
  }
  throw new Error("the registry loaded");
}

describe("registry round trip", () => {
  it("writes {v, digest, source, rules} and loads back the same rulebook", () => {
    const reg = fresh();
    expect(Object.keys(reg)).toEqual(["v", "digest", "source", "rules"]);
    expect(reg).toMatchObject({ v: 1, digest: rich.digest, source: "rich.yaml" });
    const loaded = loadRegistry(registryText(rich), { file: "registry.json", catalogue });
    expect(loaded.digest).toBe(rich.digest);
    expect(toRegistry(loaded).rules).toEqual(reg.rules);
    expect(loaded.flows).toEqual(rich.flows);
    expect([...loaded.byTool.keys()]).toEqual([...rich.byTool.keys()]);
    expect(loaded.source).toBe("rich.yaml");
    expect(Object.isFrozen(loaded.rules[0])).toBe(true);
    // the object form loads too
    expect(loadRegistry(reg).digest).toBe(rich.digest);
  });

  it("the digest is SHA-256 of the canonical JSON of {v, rules}, checked against node:crypto", () => {
    expect(redigest(fresh()).digest).toBe(rich.digest);
  });

  it("the registry carries no source positions, so a YAML rulebook and its spreadsheet write the same rules", () => {
    expect(registryText(rich)).not.toContain('"line"');
    const csv = compileRulebook(read("test/fixtures/rulebooks/rich.csv"), { file: "rich.csv" });
    expect(toRegistry(csv).rules).toEqual(fresh().rules);
  });
});

describe("a registry changed by hand is refused, naming the file", () => {
  it.each<[string, (r: Registry) => unknown, string]>([
    ["a value changed", (r) => ((r.rules[0]!.when[0] as { operand: { value: unknown } }).operand.value = "pending", r), "changed after it was compiled"],
    ["a rule removed", (r) => (r.rules.splice(0, 1), r), "changed after it was compiled"],
    ["a rule's words changed", (r) => ((r.rules[3]!.then = "refuse"), r), "changed after it was compiled"],
    ["the digest changed", (r) => ((r.digest = "0".repeat(64)), r), "changed after it was compiled"],
    ["no digest", ({ digest: _digest, ...rest }) => rest, "no valid `digest`"],
    ["another version", (r) => ({ ...r, v: 2 }), "registry version 2 is not one this runtime reads"],
    ["an unknown word at the top", (r) => ({ ...r, signed: true }), "unknown word `signed`"],
    ["rules not a list", (r) => ({ ...r, rules: {} }), "`rules` is not a list"],
  ])("%s", (_what, edit, message) => {
    const err = refusal(edit(fresh()) as object);
    expect(err.file).toBe("store/registry.json");
    expect(err.message).toContain("`store/registry.json`");
    expect(err.message).toContain(message);
    expect(err.hint).toContain("stalwart rules compile");
  });

  it("text that is not JSON", () => {
    const err = refusal('{"v": 1,', "registry.json");
    expect(err.message).toContain("is not JSON");
  });

  it.each<[string, (r: Registry) => void, string]>([
    ["an unknown word in a rule", (r) => ((r.rules[0] as unknown as Record<string, unknown>).priority = 1), "unknown word `priority` in a rule"],
    ["an operator that does not exist", (r) => ((r.rules[0]!.when[0] as { op: string }).op = "equals"), "`op` is one of"],
    ["a `from_row` operand", (r) => ((r.rules[0]!.when[0] as { operand: unknown }).operand = { kind: "from_row", path: "x" }), "`operand` is"],
    ["a rule name that lint refuses", (r) => ((r.rules[0]!.name = "Not Snake")), "is not a valid rule `name`"],
    ["an ask without a question", (r) => delete r.rules[3]!.question, "an asking rule needs a `question`"],
    ["a path outside args and facts", (r) => ((r.rules[0]!.when[0] as { subject: { path: string } }).subject.path = "order_status"), "a rule reads `args.<name>`"],
    ["a list where a value goes", (r) => ((r.rules[0]!.when[0] as { operand: unknown }).operand = { kind: "value", value: ["paid"] }), "`operand` is"],
  ])("with its digest recomputed: %s", (_what, edit, message) => {
    const r = fresh();
    edit(r);
    const err = refusal(redigest(r));
    expect(err.message).toContain("`store/registry.json`");
    expect(err.message).toContain(message);
  });

  it("checks tool names against a catalogue when given one", () => {
    const r = fresh();
    r.rules[0]!.tools = ["refund_everything"];
    const edited = redigest(r);
    expect(loadRegistry(edited).rules[0]!.tools).toEqual(["refund_everything"]);
    expect(() => loadRegistry(edited, { catalogue })).toThrow(/`tools` names `refund_everything`, which is not a tool in the catalogue/);
  });
});

describe("rulebookFromText: any text, no file name (what the check worker stores)", () => {
  it.each<[string, () => string]>([
    ["registry JSON", () => registryText(rich)],
    ["YAML", () => read("test/fixtures/rulebooks/rich.yaml")],
    ["CSV", () => read("test/fixtures/rulebooks/rich.csv")],
    ["the rulebook as JSON (JSON is YAML)", () => JSON.stringify({ rules: yamlObject() })],
  ])("%s", (_what, text) => {
    expect(rulebookFromText(text(), { catalogue }).digest).toBe(rich.digest);
  });

  it("a registry edited by hand is still refused, and broken text is a YAML error with a position", () => {
    expect(() => rulebookFromText(registryText(rich).replace('"paid"', '"pending"'))).toThrow(/changed after it was compiled/);
    expect(() => rulebookFromText('{"rules": [')).toThrow(CatalogueError);
  });
});

describe("the Node glue takes a path, text, a registry folder or an object", () => {
  const dir = mkdtempSync(join(tmpdir(), "stalwart-rulebook-"));
  const folder = join(dir, "store-rules");
  mkdirSync(folder);
  writeFileSync(join(folder, "registry.json"), registryText(rich, { source: "rich.yaml" }));

  it.each<[string, () => string | object]>([
    ["a YAML path", () => fixture("rich.yaml")],
    ["a CSV path", () => fixture("rich.csv")],
    ["a registry folder", () => folder],
    ["a registry folder with a trailing slash", () => folder + "/"],
    ["a registry.json path", () => join(folder, "registry.json")],
    ["YAML text", () => read("test/fixtures/rulebooks/rich.yaml")],
    ["CSV text", () => read("test/fixtures/rulebooks/rich.csv")],
    ["registry JSON text", () => registryText(rich)],
    ["a registry object", () => toRegistry(rich)],
    ["a rulebook object", () => ({ rules: yamlObject() })],
    ["the rulebook as JSON text", () => JSON.stringify({ rules: yamlObject() })],
  ])("%s", (_what, input) => {
    expect(loadRulebookNode(input(), { catalogue }).digest).toBe(rich.digest);
  });

  it("a missing file, and a folder without a registry, are errors with hints", () => {
    expect(() => loadRulebookNode(join(dir, "nope.yaml"))).toThrow(/no such file/);
    const empty = join(dir, "empty");
    mkdirSync(empty);
    expect(lintRulebookNode(empty)[0]).toMatchObject({ file: empty, message: expect.stringContaining("a folder without `registry.json`"), hint: expect.stringContaining("stalwart rules compile") });
  });

  it("lints a path with positions", () => {
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, "name,flow,then\na,f,refus\n");
    expect(lintRulebookNode(bad)).toEqual([expect.objectContaining({ file: bad, line: 2, column: 5, message: expect.stringContaining("`then` must be one of") })]);
  });
});

/** rich.yaml's rules as a plain object (what an SDK user passes after parsing the YAML themselves) */
function yamlObject(): object[] {
  return [
    { name: "refund_only_paid_orders", flow: "refunds", tools: ["refund_card"], when: [{ field: "facts.order_status", is_not: "paid" }], then: "refuse", because: "Only paid orders can be refunded." },
    { name: "refund_within_order_total", flow: "refunds", tools: ["refund_card", "charge_card"], when: [{ field: "args.amount", over: { from: "get_order.total" } }], then: "refuse" },
    { name: "vip_or_small", flow: "refunds", tools: ["refund_card"], when: [{ field: "facts.customer_tier", none_of: ["vip", "gold"] }, { field: "args.amount", between: [100, 500] }], then: "ask", question: "A refund of 100 to 500 for a regular customer: go ahead?" },
    { name: "second_look_over_500", flow: "refunds", tools: ["refund_card"], when: [{ field: "args.amount", over: 500 }], then: "ask", question: "Refunds over 500 need a second look: go ahead?" },
    { name: "receipts_for_settled_orders", flow: "receipts", tools: ["send_receipt"], when: [{ field: "args.to", contains: "@" }, { field: "facts.order_status", one_of: ["pending", "cancelled"] }], then: "refuse", because: "A receipt goes out for a settled order only, never a pending one." },
    { name: "order_4411_is_held", flow: "operations", tools: ["get_order", "refund_card"], when: [{ field: "args.order_id", is: "4411" }, { count: "facts.open_disputes", at_least: 1 }], then: "ask", question: "Order 4411 has an open dispute: go ahead?" },
    { name: "no_inbox_reads", flow: "privacy", tools: ["read_inbox"], then: "refuse", because: "The inbox is not read at this desk.\nIt holds customers' private mail." },
  ];
}
