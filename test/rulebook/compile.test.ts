/**
 * Rulebooks in YAML and as a spreadsheet compile to the same registry; the compiled rulebook is
 * frozen and indexed by tool; every kind of error comes with file:line:column (a spreadsheet's at
 * its cell, with its row) and a hint.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import { CatalogueError, type CatalogueProblem } from "../../worker/portable/engine/errors.js";
import { compileRulebook, formatOf, lintRulebook, rulesFor, toRegistry } from "../../worker/portable/engine/rulebook/index.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), "utf8");
const catalogue = loadCatalogue(read("examples/store/agent.yaml"), { file: "agent.yaml", schemaCompiler: ajvCompiler });
const brief = (p: CatalogueProblem) => `${p.file}:${p.line}:${p.column} ${p.message} | ${p.hint ?? ""}`;

describe("YAML and CSV say the same", () => {
  it.each([
    ["examples/store/rulebook.yaml", "examples/store/rules.csv", 2, ["refunds"]],
    ["test/fixtures/rulebooks/rich.yaml", "test/fixtures/rulebooks/rich.csv", 7, ["refunds", "receipts", "operations", "privacy"]],
  ])("%s and %s compile to one registry", (yamlFile, csvFile, rules, flows) => {
    const y = compileRulebook(read(yamlFile), { file: yamlFile, catalogue });
    const c = compileRulebook(read(csvFile), { file: csvFile, catalogue });
    expect(toRegistry(c).rules).toEqual(toRegistry(y).rules);
    expect(c.digest).toBe(y.digest);
    expect(y.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(y.rules).toHaveLength(rules);
    expect(y.flows).toEqual(flows);
    expect(y.source).toBe(yamlFile);
  });

  it("reads the spreadsheet's values: JSON lists, quoted text, `from:`, `count:`, multi-line cells, `|` tools", () => {
    const rb = compileRulebook(read("test/fixtures/rulebooks/rich.csv"), { file: "rich.csv" });
    const byName = new Map(rb.rules.map((r) => [r.name, r]));
    expect(byName.get("vip_or_small")!.when.map((c) => c.kind === "compare" && c.operand)).toEqual([
      { kind: "list", values: ["vip", "gold"] },
      { kind: "list", values: [100, 500] },
    ]);
    expect(byName.get("refund_within_order_total")!.when[0]).toMatchObject({ op: "over", operand: { kind: "from", tool: "get_order", path: "total" } });
    expect(byName.get("refund_within_order_total")!.tools).toEqual(["refund_card", "charge_card"]);
    expect(byName.get("order_4411_is_held")!.when.map((c) => c.kind === "compare" && [c.subject, c.operand])).toEqual([
      [{ kind: "field", path: "args.order_id" }, { kind: "value", value: "4411" }],
      [{ kind: "count", path: "facts.open_disputes" }, { kind: "value", value: 1 }],
    ]);
    expect(byName.get("no_inbox_reads")!.because).toBe("The inbox is not read at this desk.\nIt holds customers' private mail.");
    expect(byName.get("no_inbox_reads")!.when).toEqual([]);
    // a condition's source is its cell
    expect(byName.get("vip_or_small")!.when[1]!.source).toEqual({ file: "rich.csv", line: 5, column: 16 });
  });

  it("tells a spreadsheet from YAML by the file name, then by the header", () => {
    expect(formatOf("rules: []", {})).toBe("yaml");
    expect(formatOf("name,flow,then\n", {})).toBe("csv");
    expect(formatOf('\ufeff"name","flow","then"\r\n', {})).toBe("csv");
    expect(formatOf("rules: []", { file: "x.csv" })).toBe("csv");
    expect(formatOf("name,flow,then", { file: "x.yaml" })).toBe("yaml");
    expect(formatOf("anything", { format: "csv" })).toBe("csv");
  });

  it("takes a parsed object too", () => {
    const rb = compileRulebook({ rules: [{ name: "a", flow: "f", then: "refuse" }] });
    expect(rb.rules[0]).toMatchObject({ name: "a", flow: "f", then: "refuse", when: [] });
    expect(rb.source).toBe("<object>");
  });
});

describe("the compiled rulebook", () => {
  const rb = compileRulebook(read("test/fixtures/rulebooks/rich.yaml"), { file: "rich.yaml", catalogue });

  it("is deep-frozen", () => {
    expect(Object.isFrozen(rb)).toBe(true);
    expect(Object.isFrozen(rb.rules[0]!.when[0])).toBe(true);
    expect(() => (rb.byTool as Map<string, unknown>).set("x", [])).toThrow(TypeError);
    expect(() => (rb.rules as unknown as unknown[]).push({})).toThrow(TypeError);
  });

  it("indexes rules by tool, every-tool rules included, in file order", () => {
    const every = compileRulebook(
      "rules:\n  - {name: a, flow: f, tools: [refund_card], then: refuse}\n  - {name: b, flow: f, then: refuse}\n  - {name: c, flow: g, tools: [refund_card, get_order], then: ask, question: q}\n",
    );
    expect(rulesFor(every, "refund_card").map((r) => r.name)).toEqual(["a", "b", "c"]);
    expect(rulesFor(every, "get_order").map((r) => r.name)).toEqual(["b", "c"]);
    expect(rulesFor(every, "send_receipt").map((r) => r.name)).toEqual(["b"]);
    expect(rulesFor(rb, "refund_card").map((r) => r.name)).toEqual(["refund_only_paid_orders", "refund_within_order_total", "vip_or_small", "second_look_over_500", "order_4411_is_held"]);
    expect(rulesFor(rb, "tag_order")).toEqual([]);
  });

  it("an empty rulebook compiles", () => {
    expect(compileRulebook("rules: []\n").rules).toEqual([]);
    expect(compileRulebook("name,flow,tools,field,op,value,then,question,because\n").rules).toEqual([]);
  });
});

/** [what, rulebook text, file, line, column, message contains, hint contains] — exactly one problem each (store catalogue given) */
const yamlCases: [string, string, number, number, string, string][] = [
  ["empty file", "", 1, 1, "the rulebook is empty", "start with `rules:`"],
  ["unknown top word", "rules: []\nflows: []\n", 2, 1, "unknown word `flows`", "known words here: `rules`"],
  ["rules not a list", "rules: {a: 1}\n", 1, 8, "`rules` must be a list, not a map", "expected a list of rules"],
  ["rule not a map", "rules:\n  - refund\n", 2, 5, "`rules[0]` must be a map, not a string `refund`", "expected a rule"],
  ["unknown rule word", "rules:\n  - {name: a, flow: f, then: refuse, becuase: x}\n", 2, 38, "rule `a`: unknown word `becuase`", "did you mean `because`?"],
  ["missing flow", "rules:\n  - {name: a, then: refuse}\n", 2, 5, "rule `a`: `rules[0]` is missing `flow`", "the business flow"],
  ["name not snake_case", "rules:\n  - {name: RefundOnlyPaid, flow: f, then: refuse}\n", 2, 12, "`RefundOnlyPaid` is not a valid rule `name`", "e.g. `refund_only_paid`"],
  ["name a reason code", "rules:\n  - {name: write, flow: f, then: refuse}\n", 2, 12, "`write` is a reason code of the check itself", "name the rule for what it protects"],
  ["name twice", "rules:\n  - {name: a, flow: f, then: refuse}\n  - {name: a, flow: f, then: refuse}\n", 3, 12, "rule `a` is written twice", "the first is at line 2"],
  ["bad flow", "rules:\n  - {name: a, flow: 'the refunds', then: refuse}\n", 2, 21, "is not a valid `flow`", "letters, digits"],
  ["then typo", "rules:\n  - {name: a, flow: f, then: refus}\n", 2, 30, "`then` must be one of `refuse`, `ask`", "did you mean `refuse`?"],
  ["ask without question", "rules:\n  - {name: a, flow: f, then: ask}\n", 2, 30, "an asking rule needs a `question`", "add `question:`"],
  ["question on a refusal", "rules:\n  - {name: a, flow: f, then: refuse, question: ok?}\n", 2, 38, "`question` is for `then: ask`", "its words go in `because`"],
  ["because on an ask", "rules:\n  - {name: a, flow: f, then: ask, question: ok?, because: x}\n", 2, 50, "`because` words a refusal", "its `question`"],
  ["empty question", "rules:\n  - {name: a, flow: f, then: ask, question: ''}\n", 2, 45, "`question` must be the words a person is asked", "go ahead?"],
  ["tools not a list", "rules:\n  - {name: a, flow: f, tools: refund_card, then: refuse}\n", 2, 31, "`tools` must be a list", "leave it out for every tool"],
  ["tools empty", "rules:\n  - {name: a, flow: f, tools: [], then: refuse}\n", 2, 31, "`tools` is empty, so the rule applies to nothing", "leave `tools` out"],
  ["tool not in the catalogue", "rules:\n  - {name: a, flow: f, tools: [refnd_card], then: refuse}\n", 2, 32, "`tools` names `refnd_card`, which is not a tool in the catalogue", "did you mean `refund_card`?"],
  ["tool twice", "rules:\n  - {name: a, flow: f, tools: [get_order, get_order], then: refuse}\n", 2, 43, "`tools` names `get_order` twice", "remove one"],
  ["when not a list", "rules:\n  - {name: a, flow: f, then: refuse, when: {field: facts.x, is: 1}}\n", 2, 44, "`when` must be a list of conditions", "leave it out and the rule always applies"],
  ["unknown operator", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{field: facts.x, equals: 1}]\n", 5, 29, "rule `a`: unknown word `equals`", "known words here"],
  ["operator typo", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{field: facts.x, is_nt: 1}]\n", 5, 29, "unknown word `is_nt`", "did you mean `is_not`?"],
  ["wrong operand type", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{field: facts.x, over: lots}]\n", 5, 35, "`over` must be a number, not a string `lots`", "a number, or `{from: tool.field}`"],
  ["when item not a map", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [facts.x]\n", 5, 12, "`when[0]` must be a map", "a condition"],
  ["two operators", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{field: facts.x, is: 1, over: 2}]\n", 5, 36, "one operator, not both `is` and `over`", "all of a rule's `when` must hold"],
  ["no subject", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{is: 1}]\n", 5, 12, "names no `field`", "`total:` sums a list"],
  ["bad date", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{field: facts.day, before: someday}]\n", 5, 39, "`before` `someday` is not a date", "ISO 8601"],
  ["path that does not parse", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{field: 'facts..x', is: 1}]\n", 5, 20, "`field` path `facts..x` does not parse", "joined by `.`"],
  ["from_row", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{field: facts.x, is: {from_row: y}}]\n", 5, 34, "`from_row`", "use `{from: tool.field}`"],
  ["path outside args and facts", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{field: order_status, is: paid}]\n", 5, 20, "a rule reads `args.<name>`", "write `facts.order_status` or `args.order_status`"],
  ["root typo", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{field: fact.order_status, is: paid}]\n", 5, 20, "not `fact.order_status`", "did you mean `facts.order_status`?"],
  ["root alone", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{count: args, over: 2}]\n", 5, 20, "`args` alone is not a value a rule can compare", "name a field"],
  ["root inside any", "rules:\n  - name: a\n    flow: f\n    then: refuse\n    when: [{any: [{field: facts.a, is: 1}, {field: b, is: 2}]}]\n", 5, 52, "not `b`", "write `facts.b`"],
  ["argument a tool does not take", "rules:\n  - name: a\n    flow: f\n    tools: [refund_card]\n    then: refuse\n    when: [{field: args.amont, over: 5}]\n", 6, 20, "`args.amont` is not an argument of `refund_card`", "did you mean `args.amount`?"],
  ["argument on a rule for every tool", "rules:\n  - name: a\n    flow: f\n    then: ask\n    question: ok?\n    when: [{field: args.amount, over: 5}]\n", 6, 20, "`args.amount` is not an argument of `get_order`, `list_orders`, `read_inbox` and 3 more", "a rule without `tools` applies to every call"],
  ["from a tool not in the catalogue", "rules:\n  - name: a\n    flow: f\n    tools: [refund_card]\n    then: refuse\n    when: [{field: args.amount, over: {from: get_ordr.total}}]\n", 6, 46, "`from` names `get_ordr`, which is not a tool in the catalogue", "name a tool"],
  ["from a field not returned", "rules:\n  - name: a\n    flow: f\n    tools: [refund_card]\n    then: refuse\n    when: [{field: args.amount, over: {from: get_order.totl}}]\n", 6, 46, "`get_order`'s `returns` does not declare `totl`", "add `totl`"],
  ["duplicate key", "rules:\n  - name: a\n    name: b\n    flow: f\n    then: refuse\n", 3, 5, "key `name` appears twice", "each word may appear once"],
  ["two documents", "rules: []\n---\nrules: []\n", 2, 1, "more than one YAML document", "a rulebook is one YAML document"],
];

describe("errors in a YAML rulebook", () => {
  it.each(yamlCases)("%s", (_what, text, line, column, message, hint) => {
    const problems = lintRulebook(text, { file: "rulebook.yaml", catalogue });
    expect(problems.map(brief)).toHaveLength(1);
    const p = problems[0]!;
    expect(brief(p)).toContain(`rulebook.yaml:${line}:${column} `);
    expect(p.message).toContain(message);
    expect(p.hint ?? "").toContain(hint);
  });

  it("reports every problem at once, in file order, and compile throws them all", () => {
    const text = "rules:\n  - {name: A, flow: f, then: refus}\n  - {name: b, flow: f, then: ask}\n";
    const problems = lintRulebook(text, { file: "r.yaml" });
    expect(problems.map((p) => `${p.line}:${p.column}`)).toEqual(["2:12", "2:30", "3:30"]);
    let err: unknown;
    try {
      compileRulebook(text, { file: "r.yaml" });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CatalogueError);
    expect((err as CatalogueError).problems).toEqual(problems);
    expect((err as CatalogueError).message).toMatch(/^r\.yaml:2:12: error: /);
  });

  it("without a catalogue, names of tools, `from` fields and arguments are not checked", () => {
    const text = "rules:\n  - name: a\n    flow: f\n    tools: [anything]\n    then: refuse\n    when: [{field: args.whatever, over: {from: some_tool.some_field}}]\n";
    expect(lintRulebook(text)).toEqual([]);
    expect(lintRulebook(text, { catalogue }).length).toBeGreaterThan(0);
  });

  it("an object's problems name the pointer", () => {
    const problems = lintRulebook({ rules: [{ name: "a", flow: "f", then: "nope" }] });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toContain("(at `/rules/0/then`)");
    expect(problems[0]!.file).toBe("<object>");
  });
});

const HEADER = "name,flow,tools,field,op,value,then,question,because\n";
/** [what, csv, line, column, message contains, hint contains] — exactly one problem each (store catalogue given) */
const csvCases: [string, string, number, number, string, string][] = [
  ["empty spreadsheet", "\n\n", 1, 1, "the spreadsheet is empty", "start with the header row"],
  ["unknown column", "name,flow,then,qustion\n", 1, 16, "unknown column `qustion`", "did you mean `question`?"],
  ["column twice", "name,flow,then,flow\n", 1, 16, "column `flow` appears twice", "remove one"],
  ["a column without a name", "name,flow,,then\n", 1, 11, "column C of the header has no name", "delete the column"],
  ["header without then", "name,flow,field,op,value\n", 1, 1, "the header has no `then` column", "the header is"],
  ["unclosed quote", HEADER + 'a,f,,facts.x,is,"open,refuse\n', 2, 17, "this quoted cell is never closed", 'written `""`'],
  ["stray quote", HEADER + 'a,f,,facts.x,is,o"k,refuse\n', 2, 18, "a `\"` inside a cell that does not start with one", "quote the whole cell"],
  ["row without a name", HEADER + ",f,,facts.x,is,1,refuse\n", 2, 1, "row 2 has no `name`", "rows with the same name are one rule"],
  ["cell past the header", "name,flow,then\na,f,refuse,extra\n", 2, 12, "row 2 has a cell in column D, past the header's last column", "add the column to the header"],
  ["conflicting flow", HEADER + "a,f,,facts.x,is,1,refuse\na,g,,facts.y,is,2,,,\n", 3, 3, "rule `a` (row 3): `flow` is `g` here but `f` in row 2", "write a rule's `flow` once"],
  ["value without op", HEADER + "a,f,,facts.x,,1,refuse\n", 2, 15, "rule `a` (row 2): a `value` with no `op`", "name the operator in the `op` column"],
  ["field without op", HEADER + "a,f,,facts.x,,,refuse\n", 2, 6, "rule `a` (row 2): this condition names no operator", "use one of"],
  ["unknown op at its cell", HEADER + "a,f,,facts.x,equals,1,refuse\n", 2, 14, "rule `a` (row 2): unknown word `equals`", "known words here"],
  ["wrong value type at its cell", HEADER + "a,f,refund_card,args.amount,over,lots,refuse\n", 2, 34, "rule `a` (row 2): `over` must be a number, not a string `lots`", "a number"],
  ["not a finite number", HEADER + "a,f,,facts.x,over,1e999,refuse\n", 2, 19, "`1e999` is not a finite number", "quote it as text"],
  ["a bad field in the second row of a rule", HEADER + "a,f,,facts.x,is,1,refuse\na,,,order_status,is,paid\n", 3, 5, "rule `a` (row 3): a rule reads `args.<name>`", "write `facts.order_status`"],
  ["tool not in the catalogue, in a `|` list", HEADER + "a,f,get_order|refnd_card,,,,refuse\n", 2, 5, "`tools` names `refnd_card`", "did you mean `refund_card`?"],
  ["then typo", HEADER + "a,f,,facts.x,is,1,refuse\nb,f,,facts.x,is,1,refus\n", 3, 19, "rule `b` (row 3): `then` must be one of `refuse`, `ask`", "did you mean `refuse`?"],
  ["ask without question", HEADER + "a,f,,facts.x,is,1,ask\n", 2, 19, "rule `a` (row 2): an asking rule needs a `question`", "add `question:`"],
  ["a rule name a reason code", HEADER + "write,f,,facts.x,is,1,refuse\n", 2, 1, "`write` is a reason code", "name the rule for what it protects"],
];

describe("errors in a rules spreadsheet point at the cell", () => {
  it.each(csvCases)("%s", (_what, text, line, column, message, hint) => {
    const problems = lintRulebook(text, { file: "rules.csv", catalogue });
    expect(problems.map(brief)).toHaveLength(1);
    const p = problems[0]!;
    expect(brief(p)).toContain(`rules.csv:${line}:${column} `);
    expect(p.message).toContain(message);
    expect(p.hint ?? "").toContain(hint);
  });

  it("positions count line breaks inside quoted cells", () => {
    const text = HEADER + 'a,f,,facts.x,is,1,ask,"line one\nline two",\nb,f,,facts.y,ovr,2,refuse\n';
    const problems = lintRulebook(text, { file: "rules.csv" });
    expect(problems.map(brief)).toEqual([expect.stringContaining("rules.csv:4:14 rule `b` (row 3): unknown word `ovr`")]);
  });
});
