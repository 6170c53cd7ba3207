/**
 * Each kind of error: the right file:line:column (an unknown word at its key, a wrong value at
 * the value), a message naming the word in backticks, and a hint; and all problems at once.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { lintCatalogue, lintCatalogueWarnings, loadCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import { CatalogueError, type CatalogueProblem } from "../../worker/portable/engine/errors.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { cfworkerCompiler } from "../../worker/portable/engine/schema/cfworker.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/catalogues/${name}`, import.meta.url), "utf8");
const lint = (text: string, file = "t.yaml") => lintCatalogue(text, { file, schemaCompiler: ajvCompiler });
const brief = (p: CatalogueProblem) => `${p.line}:${p.column} ${p.message} | ${p.hint ?? ""}`;

/** [what, yaml, line, column, message contains, hint contains] — exactly one problem each */
const single: [string, string, number, number, string, string][] = [
  ["unknown word at its key", "tools:\n  - name: a\n    writs: true\n", 3, 5, "unknown word `writs`", "did you mean `writes`?"],
  ["unknown top-level word", "tools: [{name: a}]\ntaks: []\n", 2, 1, "unknown word `taks`", "did you mean `tasks`?"],
  ["unknown settings word", "settings:\n  langauge: en\ntools: [{name: a}]\n", 2, 3, "unknown word `langauge`", "did you mean `language`?"],
  ["unknown word, nothing close", "tools:\n  - name: a\n    zzzzzz: 1\n", 3, 5, "unknown word `zzzzzz`", "known words here:"],
  ["wrong type: boolean", "tools:\n  - name: a\n    writes: 1\n", 3, 13, "`writes` must be true or false, not a number `1`", "expected true or false"],
  ["yes is a string in YAML 1.2", "tools:\n  - name: a\n    irreversible: yes\n    writes: true\n", 3, 19, "`irreversible` must be true or false", "YAML 1.2 reads `yes` as a string"],
  ["a quoted true is text", "tools:\n  - name: a\n    writes: \"true\"\n", 3, 13, "`writes` must be true or false, not a string `true`", "write `true` without quotes: in quotes it is text"],
  ["wrong type: list expected", "tools:\n  - name: a\n    after: get_order\n  - name: get_order\n", 3, 12, "`after` must be a list", "expected a list of tool names or `{tool, bind}`"],
  ["tool given as a string", "tools:\n  - get_order\n", 2, 5, "`tools[0]` must be a map, not a string `get_order`", "expected a tool"],
  ["missing name", "tools:\n  - writes: true\n", 2, 5, "`tools[0]` is missing `name`", "add `name`"],
  ["enum with did-you-mean", "settings: {language: pt}\ntools: [{name: a}]\n", 1, 22, "`language` must be one of `en`, `pt-BR`", "did you mean `pt-BR`?"],
  ["taint_policy enum", "settings: {taint_policy: refused}\ntools: [{name: a}]\n", 1, 26, "`taint_policy` must be one of `confirm`, `refuse`", "did you mean `refuse`?"],
  ["trust enum", "tools: [{name: a, trust: low}]\n", 1, 26, "`trust` must be one of `trusted`, `untrusted`", "expected `trusted` or `untrusted`"],
  ["confirm enum", "tools: [{name: a, writes: true, confirm: never}]\n", 1, 42, "`confirm` must be one of `always`, `when_held`", "expected `always` or `when_held`"],
  ["same: an argument one tool does not declare", "tools:\n  - name: check_stock\n    args: {type: object, properties: {sku: {type: string}}}\n    returns: {type: object, properties: {in_stock: {type: number}}}\n  - name: order\n    writes: true\n    args: {type: object, properties: {item: {type: string}, quantity: {type: number}}}\n    checks: [{field: quantity, at_most: {from: check_stock.in_stock, same: sku}}]\n", 8, 76, "`same: sku` joins on an argument both tools take, but `order` does not declare `sku`", "declare `sku` in the `args` of `order`"],
  ["same outside checks", "tools:\n  - name: read_resume\n    args: {type: object, properties: {who: {type: string}}}\n    returns: {type: object, properties: {skills: {type: array, items: {type: string}}}}\n  - name: search\n    args: {type: object, properties: {who: {type: string}}}\n    filter: {each: \"jobs[]\", keep: [{field: \"skills[]\", one_of: {from: \"read_resume.skills[]\", same: who}}]}\n", 7, 96, "`same` joins on an argument of the call being checked, so it only works in a tool's `checks`", "remove `same` here"],
  ["same beside from_row", "tools:\n  - name: search\n    args: {type: object}\n    filter: {each: \"jobs[]\", keep: [{field: a, is: {from_row: b, same: c}}]}\n", 4, 52, "`is` must name exactly one source", "`{from: tool.field, same: argument}`"],
  ["same without from", "tools:\n  - name: a\n    args: {type: object, properties: {n: {type: number}}}\n    checks: [{field: n, is: {same: n}}]\n", 4, 29, "`is` is missing `from`", "add `from`"],
  ["when_held on an irreversible tool", "tools:\n  - name: trade\n    writes: true\n    irreversible: true\n    confirm: when_held\n", 5, 5, "`confirm: when_held` cannot be used on an `irreversible` tool", "remove `confirm: when_held`"],
  ["when_held on a money tool", "tools:\n  - name: pay\n    writes: true\n    money: true\n    confirm: when_held\n", 5, 5, "`confirm: when_held` cannot be used on a `money` tool", "money keep the synchronous human gate"],
  ["a pool shared by two currencies", "tools:\n  - name: buy_usd\n    writes: true\n    currency: USD\n    spend: [{field: amount, at_most: 500, per: month, pool: trading}]\n  - name: buy_eur\n    writes: true\n    currency: EUR\n    spend: [{field: amount, at_most: 500, per: month, pool: trading}]\n", 9, 61, "spend pool `trading` is shared by `buy_usd` (USD) and `buy_eur` (EUR)", "its own pool, e.g. `pool: trading_eur`"],
  ["a tool's own pool named by another tool of another currency", "tools:\n  - name: wallet\n    writes: true\n    currency: USD\n    spend: [{field: amount, at_most: 5, per: day}]\n  - name: tip\n    writes: true\n    currency: BRL\n    spend: [{field: amount, at_most: 5, per: day, pool: wallet}]\n", 9, 57, "spend pool `wallet` is shared by `wallet` (USD) and `tip` (BRL)", "pool: wallet_brl"],
  ["confirmation_ttl", "settings: {confirmation_ttl: 1 day}\ntools: [{name: a}]\n", 1, 30, "`1 day` is not a valid `confirmation_ttl`", "like `30m`, `12h`, `1d`, `7d`"],
  ["currency", "tools: [{name: a, writes: true, currency: usd}]\n", 1, 43, "`usd` is not a valid `currency`", "ISO 4217"],
  ["at_most 0", "tools: [{name: a, at_most: 0}]\n", 1, 28, "`at_most` must be at least 1", "whole number ≥ 1"],
  ["at_most 1.5", "tools: [{name: a, at_most: 1.5}]\n", 1, 28, "`at_most` must be a whole number", "whole number ≥ 1"],
  ["at_most per", "tools: [{name: a, at_most: [{count: 3, per: days}]}]\n", 1, 45, "`per` must be one of `call`", "did you mean `day`?"],
  ["at_most count missing", "tools: [{name: a, at_most: {per: day}}]\n", 1, 28, "is missing `count`", "add `count`"],
  ["name with a dot", "tools: [{name: get.order}]\n", 1, 16, "`get.order` is not a valid `name`", "no dots"],
  // the state stores keep a tool's name in their keys: a longer one failed every call of the tool, in the store
  ["name of 129 characters", `tools: [{name: t${"x".repeat(128)}}]\n`, 1, 16, "is not a valid `name`", "at most 128 characters"],
  ["name of 128 characters beside it", `tools: [{name: t${"x".repeat(127)}}, {name: u${"x".repeat(128)}}]\n`, 1, 154, "is not a valid `name`", "at most 128 characters"],
  ["http method", "http: [{name: a, method: get, path: /a}]\n", 1, 26, "`method` must be one of `GET`", "did you mean `GET`?"],
  ["http path", "http: [{name: a, method: GET, path: a}]\n", 1, 37, "`a` is not a valid `path`", "starting with `/`"],
  ["http writes word", "http: [{name: a, method: POST, path: /a, writes: true}]\n", 1, 42, "unknown word `writes` in an http entry", "GET reads, the others write"],
  ["code function", "code: [{name: a, function: 'do it'}]\n", 1, 28, "`do it` is not a valid `function`", "the function's name"],
  ["code entry missing function", "code: [{name: a}]\n", 1, 8, "is missing `function`", "add `function`"],
  ["task steps", "tools: [{name: a}]\ntasks: [{name: t, steps: parallel, tools: [a]}]\n", 2, 26, "`steps` must be one of `in_order`, `all_at_once`", "expected `in_order` or `all_at_once`"],
  ["between with one item", "tools:\n  - name: a\n    checks: [{field: q, between: [1]}]\n", 3, 34, "`between` must have at least 2 items", "two-item list"],
  ["condition operand object", "tools:\n  - name: a\n    checks: [{field: q, is: {value: 1}}]\n", 3, 30, "unknown word `value`", "known words here"],
  ["condition unknown operator", "tools:\n  - name: a\n    checks: [{field: q, equals: 1}]\n", 3, 25, "unknown word `equals`", "known words here"],
  ["condition typo'd operator", "tools:\n  - name: a\n    checks: [{field: q, at_mots: 1, is: 2}]\n", 3, 25, "unknown word `at_mots`", "did you mean `at_most`?"],
  ["two operators", "tools:\n  - name: a\n    checks: [{field: q, is: 1, over: 2}]\n", 3, 32, "one operator, not both `is` and `over`", "write two conditions"],
  ["no subject", "tools:\n  - name: a\n    checks: [{is: 1}]\n", 3, 14, "names no `field`", "`total:` sums a list"],
  ["bad date", "tools:\n  - name: a\n    checks: [{field: d, before: someday}]\n", 3, 33, "`before` `someday` is not a date", "ISO 8601"],
  ["bad path", "tools:\n  - name: a\n    checks: [{field: 'a..b', is: 1}]\n", 3, 22, "`field` path `a..b` does not parse", "field names joined by `.`"],
  ["from names unknown tool", "tools:\n  - name: a\n    checks: [{field: q, at_most: {from: stock.n}}]\n", 3, 41, "`from` names `stock`, which is not a tool", "declare"],
  ["from without a dot", "tools:\n  - name: a\n    checks: [{field: q, at_most: {from: stock}}]\n", 3, 41, "`stock` is not a valid `from`", "`tool.field`"],
  ["from field not in returns", "tools:\n  - name: s\n    returns: {type: object, properties: {n: {type: integer}}}\n  - name: a\n    checks: [{field: q, at_most: {from: s.m}}]\n", 5, 41, "`s`'s `returns` does not declare `m`", "add `m`"],
  ["from tool without returns", "tools:\n  - name: s\n  - name: a\n    checks: [{field: q, at_most: {from: s.m}}]\n", 4, 41, "`s` declares no `returns`", "declare the field"],
  ["from_row outside filter", "tools:\n  - name: a\n    checks: [{field: q, is: {from_row: r}}]\n", 3, 30, "`from_row`", "use `{from: tool.field}`"],
  ["undo unknown", "tools:\n  - name: a\n    writes: true\n    undo: cancel_a\n  - name: cancel\n", 4, 11, "`undo` names `cancel_a`", "did you mean `cancel`?"],
  ["after unknown", "tools:\n  - name: a\n    after: [get_ordr]\n  - name: get_order\n", 3, 13, "`after` names `get_ordr`", "did you mean `get_order`?"],
  ["not_after unknown", "tools:\n  - name: a\n    not_after: [read_inbx]\n  - name: read_inbox\n", 3, 17, "`not_after` names `read_inbx`", "did you mean `read_inbox`?"],
  ["bind field not returned", "tools:\n  - name: g\n    returns: {type: object, properties: {id: {type: string}}}\n  - name: a\n    args: {type: object, properties: {order_id: {type: string}}}\n    after: [{tool: g, bind: {order_id: order}}]\n", 6, 40, "`bind` reads `order` from `g`, whose `returns` does not declare it", "add `order`"],
  ["bind argument not declared", "tools:\n  - name: g\n    returns: {type: object, properties: {id: {type: string}}}\n  - name: a\n    args: {type: object, properties: {order_id: {type: string}}}\n    after: [{tool: g, bind: {orderid: id}}]\n", 6, 30, "`bind` names argument `orderid`", "declared arguments: `order_id`"],
  ["filter on a write", "tools:\n  - name: a\n    writes: true\n    filter: {each: 'x[]', keep: [{field: a, is: 1}]}\n", 4, 5, "`filter` is for reads", "remove `filter`"],
  ["filter on a writing http entry", "http:\n  - name: a\n    method: POST\n    path: /a\n    filter: {each: 'x[]', keep: [{field: a, is: 1}]}\n", 5, 5, "`filter` is for reads", "method other than GET writes"],
  ["outcome on a read", "tools:\n  - name: g\n  - name: a\n    outcome: {follow: g, same: id, done_when: [{field: s, is: ok}], give_up_after: 5}\n", 4, 5, "`outcome` is for writes", "add `writes: true`"],
  ["outcome follow unknown", "tools:\n  - name: a\n    writes: true\n    outcome: {follow: get, same: id, done_when: [{field: s, is: ok}], give_up_after: 5}\n", 4, 23, "`follow` names `get`", "declare"],
  ["outcome without done_when", "tools:\n  - name: g\n  - name: a\n    writes: true\n    outcome: {follow: g, same: id, give_up_after: 5}\n", 5, 14, "neither `done_when` nor `failed_when`", "outcome_unknown"],
  ["outcome give_up_after 0", "tools:\n  - name: g\n  - name: a\n    writes: true\n    outcome: {follow: g, same: id, done_when: [{field: s, is: ok}], give_up_after: 0}\n", 5, 84, "`give_up_after` must be greater than 0", "minutes"],
  ["spend without currency", "tools:\n  - name: a\n    writes: true\n    spend: [{field: amount, at_most: 5, per: call}]\n", 4, 5, "`spend` needs the tool's `currency`", "currency: USD"],
  ["spend missing per", "tools:\n  - name: a\n    writes: true\n    currency: USD\n    spend: [{field: amount, at_most: 5}]\n", 5, 13, "is missing `per`", "add `per`"],
  ["irreversible read", "tools:\n  - name: a\n    irreversible: true\n", 3, 5, "`irreversible` is for writes", "add `writes: true`"],
  ["irreversible with undo", "tools:\n  - name: a\n    writes: true\n    irreversible: true\n    undo: b\n  - name: b\n", 5, 5, "an `irreversible` tool cannot declare an `undo`", "remove one"],
  ["sends_out URL", "tools:\n  - name: a\n    sends_out: ['https://x.example.com/hook']\n", 3, 17, "is a URL, not a destination", "write the host alone: `x.example.com`"],
  ["sends_out glob in the middle", "tools:\n  - name: a\n    sends_out: ['api.*.com']\n", 3, 17, "`*` may only start a host glob", "`*.example.com`"],
  ["sends_out port", "tools:\n  - name: a\n    sends_out: ['api.example.com:443']\n", 3, 17, "has a port", "`api.example.com`"],
  ["sends_out bad address", "tools:\n  - name: a\n    sends_out: ['a b@example.com']\n", 3, 17, "is not an e-mail address", "`name@example.com`"],
  ["sandbox network", "code:\n  - name: a\n    function: a\n    sandbox: {network: ['http://x']}\n", 4, 25, "is a URL", "write the host alone"],
  ["lookup_args undeclared", "tools:\n  - name: a\n    args: {type: object, properties: {sender: {type: string}}}\n    lookup_args: [sendr]\n", 4, 19, "`lookup_args` names `sendr`", "did you mean `sender`?"],
  ["args schema keyword typo", "tools:\n  - name: a\n    args:\n      type: object\n      propertes: {a: {type: string}}\n", 5, 7, "`args`: unknown schema keyword `propertes`", "did you mean `properties`?"],
  ["args schema bad type", "tools:\n  - name: a\n    args: {type: object, properties: {a: {type: strng}}}\n", 3, 49, "`type` must be one of", "did you mean `string`?"],
  ["args schema bad pattern", "tools:\n  - name: a\n    args: {type: object, properties: {a: {type: string, pattern: '('}}}\n", 3, 66, "`pattern` is not a valid regular expression", "`u` flag"],
  ["args schema remote ref", "tools:\n  - name: a\n    args: {type: object, properties: {a: {$ref: 'http://x/y.json'}}}\n", 3, 49, "is not a local reference", "nothing is fetched"],
  ["args schema 2020 keyword", "tools:\n  - name: a\n    args: {type: object, unevaluatedProperties: false}\n", 3, 26, "`unevaluatedProperties` is not a draft-07 keyword", "draft-07"],
  ["args not an object type", "tools:\n  - name: a\n    args: {type: string}\n", 3, 18, "its `type` must be `object`", "type: object"],
  ["returns schema typo", "tools:\n  - name: a\n    returns: {type: object, propertys: {}}\n", 3, 29, "`returns`: unknown schema keyword `propertys`", "did you mean `properties`?"],
  ["agent tool unknown", "agents: [{name: b, tools: [get_ordr]}]\ntools: [{name: get_order}]\n", 1, 28, "`tools` names `get_ordr`", "did you mean `get_order`?"],
  ["agent missing tools", "agents: [{name: b}]\ntools: [{name: a}]\n", 1, 10, "is missing `tools`", "add `tools`"],
  ["duplicate agent", "agents: [{name: b, tools: []}, {name: b, tools: []}]\ntools: [{name: a}]\n", 1, 39, "agent `b`: `b` is declared twice", "rename"],
  ["duplicate task", "tools: [{name: a}]\ntasks: [{name: t, steps: in_order, tools: [a]}, {name: t, steps: in_order, tools: [a]}]\n", 2, 56, "task `t`: `t` is declared twice", "rename"],
  ["task tool unknown", "tools: [{name: a}]\ntasks: [{name: t, steps: in_order, tools: [a, b]}]\n", 2, 47, "`tools` names `b`", "declare"],
  ["all_at_once write without undo", "tools: [{name: a, writes: true}]\ntasks: [{name: t, steps: all_at_once, tools: [a]}]\n", 2, 47, "runs all at once, but write `a` has no `undo` or `outcome`", "`steps: in_order`"],
  ["all_at_once money without spend", "tools: [{name: a, writes: true, money: true, undo: b}, {name: b, writes: true}]\ntasks: [{name: t, steps: all_at_once, tools: [a]}]\n", 2, 47, "`a` moves money and declares no `spend`", "spend"],
  ["duplicate tool name", "tools:\n  - name: a\n  - name: a\n", 3, 11, "`a` is declared twice", "the first is at line 2"],
  ["http entry colliding with a tool", "tools:\n  - name: a\nhttp:\n  - {name: a, method: GET, path: /a}\n", 4, 12, "the name `a` is already taken by tool `a`", "line 2"],
  ["code entry colliding with http", "http:\n  - {name: a, method: GET, path: /a}\ncode:\n  - {name: a, function: f}\n", 4, 12, "already taken by http entry `a`", "rename"],
  ["a tool called untrusted", "tools: [{name: untrusted}]\n", 1, 16, "cannot be called `untrusted`", "pick another name"],
  ["no tools", "settings: {language: en}\n", 1, 1, "declares no tools", "add `tools:`"],
  ["empty file", "", 1, 1, "the catalogue is empty", "start with `tools:`"],
  ["comments only", "# nothing\n", 1, 1, "the catalogue is empty", "start with `tools:`"],
  ["not a map", "- a\n- b\n", 1, 1, "must be a map of words", "start with `tools:`"],
  ["duplicate key", "tools:\n  - name: a\n    writes: true\n    writes: false\n", 4, 5, "key `writes` appears twice", "each word may appear once"],
  ["tab indentation", "tools:\n  - name: a\n\twrites: true\n", 3, 1, "tabs", "indent with spaces"],
  ["two documents", "tools: [{name: a}]\n---\ntools: [{name: b}]\n", 2, 1, "more than one YAML document", "remove the `---`"],
  ["unresolved tag", "tools: [{name: !secret a}]\n", 1, 16, "malformed YAML", "plain YAML data"],
  ["a core tag turning text into a boolean", "tools: [{name: a, writes: !!bool \"true\"}]\n", 1, 34, "a YAML tag (`!!bool`) is not part of a catalogue", "plain YAML data"],
  ["a core tag turning a number into text", "tools: [{name: !!str 5}]\n", 1, 22, "a YAML tag (`!!str`) is not part of a catalogue", "write the value itself"],
  ["a tagged list", "tools: !!seq [{name: a}]\n", 1, 14, "a YAML tag (`!!seq`) is not part of a catalogue", "plain YAML data"],
  ["alias cycle", "tools: &t [{name: a, x: *t}]\n", 1, 25, "refers to a value that contains it", "cannot be recursive"],
  ["alias to nothing", "tools: [{name: *nope}]\n", 1, 16, "alias `*nope` names no anchor", "define `&name`"],
  ["non-finite number", "tools: [{name: a, at_most: .inf}]\n", 1, 28, "`.inf` is not a finite number", "JSON numbers"],
  ["complex key", "tools: [{name: a, [x]: 1}]\n", 1, 19, "a key must be a plain word", "word: value"],
];

describe("one problem, in the right place, with a hint", () => {
  it("covers many kinds", () => expect(single.length).toBeGreaterThanOrEqual(80));
  for (const [what, yaml, line, column, message, hint] of single) {
    it(what, () => {
      const problems = lint(yaml);
      expect(problems.map(brief), yaml).toHaveLength(1);
      const p = problems[0]!;
      expect(p.file).toBe("t.yaml");
      expect(p.message).toContain(message);
      expect(p.hint ?? "").toContain(hint);
      expect(`${p.line}:${p.column}`, `${brief(p)}\n${yaml}`).toBe(`${line}:${column}`);
      // the same problems whichever adapter compiles the schemas
      expect(lintCatalogue(yaml, { file: "t.yaml", schemaCompiler: cfworkerCompiler })).toEqual(problems);
    });
  }
});

describe("every problem at once", () => {
  it("bad-words.yaml: ten problems, in file order", () => {
    const problems = lint(fixture("bad-words.yaml"), "bad-words.yaml");
    expect(problems.map((p) => `${p.line}:${p.column}`)).toEqual(["2:13", "3:21", "6:5", "9:13", "10:11", "11:48", "12:5", "12:46", "13:17", "14:14"]);
    expect(problems.every((p) => p.file === "bad-words.yaml" && /`[^`]+`/.test(p.message) && p.hint)).toBe(true);
  });

  it("a problem at one YAML value does not hide the shape and meaning problems after it (outside audit 12, R9)", () => {
    const yaml = [
      "tools:",
      "  - name: pay",
      "    writes: true",
      "    spend: [{field: amount, at_most: .inf, per: day}]",
      "    currency: usd",
      "    at_most: [{count: 0, per: year}]",
      "    args: {type: object, properties: {amount: {type: number}}}",
      "  - name: tagged",
      "    writes: !!bool \"true\"",
      "    currency: usd",
      "",
    ].join("\n");
    const problems = lint(yaml);
    expect(problems.map((p) => `${p.line}:${p.column} ${p.pointer}`)).toEqual([
      "4:38 /tools/0/spend/0/at_most",
      "5:15 /tools/0/currency",
      "6:23 /tools/0/at_most/0/count",
      "6:31 /tools/0/at_most/0/per",
      "9:20 /tools/1/writes",
      "10:15 /tools/1/currency",
    ]);
    expect(problems[0]!.message).toMatch(/`\.inf` is not a finite number/);
    expect(problems[4]!.message).toMatch(/a YAML tag \(`!!bool`\)/);
    // a problem the YAML pass stops at the root still hides the rest: there is no rest to read
    expect(lint("!!map {tools: [{name: a, writes: maybe}]}\n").map((p) => p.pointer)).toEqual([""]);
  });

  it("a currency that no ISO 4217 list of this runtime has is a warning, never an error (outside audit 12, R9)", () => {
    const yaml = (currency: string) => `tools:\n  - name: pay\n    writes: true\n    currency: ${currency}\n    spend: [{field: amount, at_most: 10, per: day}]\n    args: {type: object, properties: {amount: {type: number}}}\n`;
    const abc = lintCatalogueWarnings(yaml("ABC"), { file: "t.yaml", schemaCompiler: ajvCompiler });
    expect(abc.problems).toEqual([]);
    expect(abc.warnings.map((w) => `${w.line}:${w.column} ${w.pointer}`)).toEqual(["4:15 /tools/0/currency"]);
    expect(abc.warnings[0]!.message).toMatch(/`ABC` is not an ISO 4217 currency/);
    for (const known of ["USD", "EUR", "BRL", "JPY"]) expect(lintCatalogueWarnings(yaml(known), { file: "t.yaml", schemaCompiler: ajvCompiler }), known).toEqual({ problems: [], warnings: [] });
  });

  it("bad-meaning.yaml: the meaning problems", () => {
    const problems = lint(fixture("bad-meaning.yaml"), "bad-meaning.yaml");
    expect(problems.map((p) => `${p.line}:${p.column}`)).toEqual(["7:5", "9:43", "11:5", "11:23", "12:11", "14:50", "14:50", "14:64"]);
  });

  it("loadCatalogue throws one CatalogueError carrying every problem, positioned at the first", () => {
    let err: unknown;
    try {
      loadCatalogue(fixture("bad-words.yaml"), { file: "bad-words.yaml", schemaCompiler: ajvCompiler });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CatalogueError);
    const ce = err as CatalogueError;
    expect(ce.code).toBe("CatalogueError");
    expect(ce.problems).toHaveLength(10);
    expect([ce.file, ce.line, ce.column]).toEqual(["bad-words.yaml", 2, 13]);
    expect(ce.message.split("\n")[0]).toBe("bad-words.yaml:2:13: error: settings: `language` must be one of `en`, `pt-BR`, not a string `pt`");
  });

  it("input that is neither text nor an object", () => {
    for (const bad of [null, undefined, 42, true]) {
      const problems = lintCatalogue(bad as unknown as object, { schemaCompiler: ajvCompiler });
      expect(problems).toHaveLength(1);
      expect(problems[0]!.message).toContain("a catalogue is YAML text or an object");
    }
  });
});
