/**
 * Good catalogues compile (the full examples of interfaces.md and checks.md), into the shape of
 * types.ts, identically whichever schema adapter builds the validators.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { lintCatalogue, loadCatalogue } from "../../worker/portable/engine/catalogue/index.js";
import type { CompiledCatalogue, SchemaCompiler } from "../../worker/portable/engine/catalogue/types.js";
import { ajvCompiler } from "../../cli/sdk/ajv-compiler.js";
import { cfworkerCompiler } from "../../worker/portable/engine/schema/cfworker.js";

const fixture = (name: string) => readFileSync(new URL(`../fixtures/catalogues/${name}`, import.meta.url), "utf8");

const adapters: [string, SchemaCompiler][] = [
  ["ajv", ajvCompiler],
  ["cfworker", cfworkerCompiler],
];

describe.each(adapters)("good catalogues (%s)", (_name, schemaCompiler) => {
  const load = (text: string, file = "agent.yaml"): CompiledCatalogue => loadCatalogue(text, { file, schemaCompiler });

  it("the store catalogue of interfaces.md", () => {
    const c = load(fixture("store.yaml"), "store.yaml");
    expect(c.file).toBe("store.yaml");
    expect([...c.tools.keys()]).toEqual(["get_order", "read_inbox", "refund_card", "charge_card", "create_order", "cancel_order", "send_receipt"]);
    expect(c.settings).toEqual({ language: "pt-BR", taintPolicy: "confirm", onLicenceLapse: "reads_only", confirmationTtlMs: 86_400_000 });
    const refund = c.tools.get("refund_card")!;
    expect(refund.writes).toBe(true);
    expect(refund.undo).toBe("charge_card");
    expect(refund.after).toEqual([{ tool: "get_order" }]);
    expect(refund.notAfter).toEqual(["untrusted"]);
    expect(refund.confirm).toBe("always");
    expect(refund.trust).toBe("trusted");
    expect(refund.sendsOut).toBeUndefined();
    expect(refund.argsClosed).toBe(true);
    expect(refund.source).toEqual({ file: "store.yaml", line: 20, column: 5 }); // `- name: refund_card`
    expect(refund.validateArgs({ order_id: "4411", amount: 40 })).toEqual({ ok: true });
    expect(refund.validateArgs({ order_id: "4411", amount: 40, note: "cortesia" })).toMatchObject({ ok: false, pointer: "/note", rule: "additionalProperties" });
    // get_order has no additionalProperties: undeclared arguments are refused all the same
    const get = c.tools.get("get_order")!;
    expect(get.argsClosed).toBe(true);
    expect(get.validateArgs({ order_id: "1", extra: 1 })).toMatchObject({ ok: false, pointer: "/extra", rule: "additionalProperties" });
    expect(get.returnsDeclares("status")).toBe(true);
    expect(get.returnsDeclares("missing")).toBe(false);
    expect(get.keepDeclared({ status: "paid", total: 40, secret: "x" })).toEqual({ status: "paid", total: 40 });
    // a tool without args accepts only {}
    const inbox = c.tools.get("read_inbox")!;
    expect(inbox.readsOutside).toBe(true);
    expect(inbox.validateArgs({})).toEqual({ ok: true });
    expect(inbox.validateArgs({ q: 1 })).toMatchObject({ ok: false, pointer: "/q", rule: "additionalProperties" });
    expect(inbox.argsClosed).toBe(true);
    expect(inbox.keepDeclared({ a: 1 })).toBeUndefined();
    expect(c.tools.get("send_receipt")!.sendsOut).toEqual([
      { kind: "host", glob: "*.example.com" },
      { kind: "address", address: "receipts@example.com" },
    ]);
    const charge = c.tools.get("charge_card")!;
    expect(charge.money).toBe(true);
    expect(charge.spend).toEqual([{ field: "amount", atMost: 500, per: "day" }]);
    expect(charge.currency).toBe("BRL");
    expect(c.agents.get("billing")).toEqual({ name: "billing", tools: new Set(["get_order", "refund_card", "charge_card"]), trust: "trusted" });
    expect(c.tasks).toEqual([{ name: "checkout", steps: "all_at_once", tools: ["create_order", "charge_card"] }]);
    expect(c.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it("the conditions, limits, spend and outcome example of checks.md", () => {
    const c = load(fixture("conditions.yaml"), "conditions.yaml");
    const create = c.tools.get("create_order")!;
    expect(create.checks).toEqual([
      { kind: "compare", subject: { kind: "field", path: "quantity" }, op: "at_most", operand: { kind: "from", tool: "check_stock", path: "in_stock" }, source: { file: "conditions.yaml", line: 16, column: 9 } },
      { kind: "compare", subject: { kind: "field", path: "zip" }, op: "one_of", operand: { kind: "list", values: ["94110", "94114"] }, because: "We only deliver there.", source: { file: "conditions.yaml", line: 17, column: 9 } },
    ]);
    const search = c.tools.get("search_jobs")!;
    expect(search.filter).toMatchObject({
      each: "jobs[]",
      unknown: "drop",
      keep: [
        { op: "at_least", subject: { kind: "field", path: "salary_min" }, operand: { kind: "value", value: 70000 } },
        { op: "one_of", subject: { kind: "field", path: "required_skills[]" }, operand: { kind: "from", tool: "read_resume", path: "skills[]" } },
      ],
    });
    expect(search.rateLimits).toEqual([{ count: 30, per: "hour" }, { count: 200, per: "day" }]);
    expect(search.atMostPerSession).toBeUndefined();
    const place = c.tools.get("place_order")!;
    expect(place.irreversible).toBe(true);
    expect(place.spend).toEqual([
      { field: "amount", atMost: 25, per: "call" },
      { field: "amount", atMost: 500, per: "month", pool: "trading" },
    ]);
    expect(place.currency).toBe("USD");
    expect(place.outcome).toMatchObject({ follow: "get_order", same: "order_id", giveUpAfterMinutes: 60, failedWhen: [], doneWhen: [{ op: "is", operand: { kind: "value", value: "filled" } }] });
  });

  it("settings default to en, confirm, reads_only, one day", () => {
    const c = load("tools:\n  - name: a\n");
    expect(c.settings).toEqual({ language: "en", taintPolicy: "confirm", onLicenceLapse: "reads_only", confirmationTtlMs: 86_400_000 });
    expect(c.agents.size).toBe(0);
    expect(c.tasks).toEqual([]);
    expect(load("settings: {confirmation_ttl: 30m}\ntools: [{name: a}]\n").settings.confirmationTtlMs).toBe(30 * 60_000);
    expect(load("settings: {confirmation_ttl: 12h}\ntools: [{name: a}]\n").settings.confirmationTtlMs).toBe(12 * 3_600_000);
    expect(load("settings: {confirmation_ttl: 7d}\ntools: [{name: a}]\n").settings.confirmationTtlMs).toBe(7 * 86_400_000);
  });

  it("every tool word, http and code entries", () => {
    const text = `
settings: {language: en, taint_policy: refuse, on_licence_lapse: refuse}
tools:
  - name: get_order
    args: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
    returns:
      type: object
      properties:
        order_id: {type: string}
        status: {type: string}
        transactions: {type: array, items: {type: object, properties: {amount: {type: number}}}}
  - name: find_mail
    lookup_args: [sender]
    args: {type: object, properties: {sender: {type: string}}}
    reads_outside: true
  - name: refund
    writes: true
    irreversible: true
    money: true
    trust: untrusted
    confirm: always
    after: [{tool: get_order, bind: {order_id: order_id}}]
    not_after: [find_mail, untrusted]
    at_most: 1
    args:
      type: object
      properties: {order_id: {type: string}, amount: {type: number}}
      additionalProperties: true
    checks:
      - any:
          - {field: amount, under: 100}
          - {total: "items[].price", between: [1, 50], because: "small orders only"}
        because: either
      - {count: items, at_most: 3}
      - {field: when, before: "2030-01-01"}
    spend: [{field: amount, at_most: 100, per: week}]
    currency: EUR
    sends_out: ["*", "10.0.0.1", "[2001:DB8::1]", "*@example.com"]
http:
  - {name: list_orders, method: GET, path: /orders}
  - {name: delete_order, method: DELETE, path: "/orders/{id}", undo: restore_order}
  - {name: restore_order, method: POST, path: "/orders/{id}/restore"}
code:
  - name: summarise
    function: reports.summarise
    writes: false
    sandbox: {network: [api.example.com], secrets: [API_KEY], mounts: [/data], allow: [clock_gettime], limits: {cpu_ms: 100, memory_mb: 64, timeout_s: 5}, level: advanced}
  - {name: tidy, function: tidy}
`;
    const c = load(text);
    const refund = c.tools.get("refund")!;
    expect(refund).toMatchObject({ irreversible: true, money: true, trust: "untrusted", confirm: "always", atMostPerSession: 1, argsClosed: false, currency: "EUR" });
    expect(refund.after).toEqual([{ tool: "get_order", bind: { order_id: "order_id" } }]);
    expect(refund.notAfter).toEqual(["find_mail", "untrusted"]);
    expect(refund.sendsOut).toEqual([{ kind: "any" }, { kind: "host", glob: "10.0.0.1" }, { kind: "host", glob: "2001:db8::1" }, { kind: "address_domain", glob: "example.com" }]);
    expect(refund.checks[0]).toMatchObject({ kind: "any", because: "either", conditions: [{ op: "under" }, { op: "between", subject: { kind: "total", path: "items[].price" }, operand: { kind: "list", values: [1, 50] }, because: "small orders only" }] });
    expect(refund.checks[1]).toMatchObject({ subject: { kind: "count", path: "items" }, op: "at_most" });
    expect(c.tools.get("find_mail")!.lookupArgs).toEqual(new Set(["sender"]));
    expect(c.tools.get("list_orders")).toMatchObject({ writes: false, http: { method: "GET", path: "/orders" } });
    expect(c.tools.get("delete_order")).toMatchObject({ writes: true, undo: "restore_order", http: { method: "DELETE", path: "/orders/{id}" } });
    expect(c.tools.get("summarise")).toMatchObject({ writes: false, code: { function: "reports.summarise" } });
    expect(c.tools.get("tidy")).toMatchObject({ writes: true, code: { function: "tidy" } }); // a code entry writes unless it says otherwise
    expect(c.settings.taintPolicy).toBe("refuse");
    const get = c.tools.get("get_order")!;
    expect(get.returnsDeclares("transactions[2].amount")).toBe(true);
    expect(get.returnsDeclares("transactions[].amount")).toBe(true);
    expect(get.returnsDeclares("transactions")).toBe(true);
    expect(get.returnsDeclares("transactions.amount")).toBe(false);
    expect(get.returnsDeclares("transactions[2].fee")).toBe(false);
    expect(get.returnsDeclares("status[0]")).toBe(false);
    expect(get.returnsDeclares("bad..path")).toBe(false);
    expect(get.keepDeclared({ order_id: "1", secret: 2, transactions: [{ amount: 3, card: "4111" }, { amount: 4 }] })).toEqual({ order_id: "1", transactions: [{ amount: 3 }, { amount: 4 }] });
  });

  it("is deep-frozen", () => {
    const c = load(fixture("store.yaml"));
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.settings)).toBe(true);
    const t = c.tools.get("refund_card")!;
    expect(Object.isFrozen(t)).toBe(true);
    expect(Object.isFrozen(t.after)).toBe(true);
    expect(Object.isFrozen(t.argsSchema)).toBe(true);
    expect(() => (c.tools as Map<string, unknown>).set("x", t)).toThrow();
    expect(() => (t.lookupArgs as Set<string>).add("x")).toThrow();
    expect(() => {
      (t as { writes: boolean }).writes = false;
    }).toThrow();
    // the compiled validators still work on a frozen catalogue (cfworker annotates its own copy)
    expect(t.validateArgs({ order_id: "x" }).ok).toBe(false);
  });
});

describe("digest", () => {
  it("is SHA-256 of the canonical JSON, the same for text and object input, and for key order", () => {
    const text = fixture("store.yaml");
    const a = loadCatalogue(text, { schemaCompiler: ajvCompiler });
    const b = loadCatalogue(parse(text) as object, { schemaCompiler: ajvCompiler });
    expect(b.digest).toBe(a.digest);
    const reordered = loadCatalogue("tools: [{writes: true, name: a}]\nsettings: {language: en}\n", { schemaCompiler: ajvCompiler });
    const ordered = loadCatalogue("settings: {language: en}\ntools: [{name: a, writes: true}]\n", { schemaCompiler: ajvCompiler });
    expect(reordered.digest).toBe(ordered.digest);
    const canonical = '{"settings":{"language":"en"},"tools":[{"name":"a","writes":true}]}';
    expect(ordered.digest).toBe(createHash("sha256").update(canonical).digest("hex"));
  });

  it("uses the injected sha256 when given", () => {
    const seen: number[] = [];
    const c = loadCatalogue("tools: [{name: a}]", {
      schemaCompiler: ajvCompiler,
      sha256: (b) => {
        seen.push(b.length);
        return new Uint8Array(32).fill(0xab);
      },
    });
    expect(seen.length).toBe(1);
    expect(c.digest).toBe("ab".repeat(32));
  });

});

describe("object input", () => {
  it("loads a parsed object; positions are <object>:1:1 with the pointer in the message", () => {
    const problems = lintCatalogue({ tools: [{ name: "a", writes: "yes" }] }, { schemaCompiler: ajvCompiler });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: "<object>", line: 1, column: 1, pointer: "/tools/0/writes" });
    expect(problems[0]!.message).toContain("(at `/tools/0/writes`)");
  });

  it("refuses what is not plain data", () => {
    const cyclic: Record<string, unknown> = { tools: [] };
    (cyclic.tools as unknown[]).push(cyclic);
    const cases: object[] = [cyclic, { tools: [{ name: "a", f: () => 1 }] }, { tools: [{ name: "a", n: Infinity }] }, { tools: [{ name: "a", d: new Date() }] }, { tools: [{ name: "a", u: undefined }] }];
    for (const c of cases) expect(lintCatalogue(c, { schemaCompiler: ajvCompiler }).length).toBeGreaterThan(0);
    // said in words a person reads: not "a undefined", not "a Object instance"
    const said = (c: object) => lintCatalogue(c, { schemaCompiler: ajvCompiler }).map((p) => p.message).join("\n");
    expect(said({ tools: [{ name: "a", u: undefined }] })).toContain("`undefined` is not plain data");
    expect(said({ tools: [{ name: "a", d: new Date() }] })).toContain("an instance of `Date` is not plain data");
    expect(said({ tools: [{ name: "a", f: () => 1 }] })).toContain("a function is not plain data");
  });

  it("a __proto__ key is data, not a prototype", () => {
    const problems = lintCatalogue('tools: [{name: a, "__proto__": {writes: true}}]', { schemaCompiler: ajvCompiler });
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toContain("unknown word `__proto__`");
  });
});
