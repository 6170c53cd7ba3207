/** Destination patterns, field paths, durations: the small parsers of the catalogue. */
import { describe, expect, it } from "vitest";
import { declares, parseDuration, parsePath } from "../../worker/portable/engine/catalogue/index.js";
import { parsePattern as parseDestination } from "../../worker/portable/engine/destinations/index.js";

describe("sends_out patterns", () => {
  it.each([
    ["*", { kind: "any" }],
    ["*.example.com", { kind: "host", glob: "*.example.com" }],
    ["API.Example.COM.", { kind: "host", glob: "api.example.com" }],
    ["10.0.0.1", { kind: "host", glob: "10.0.0.1" }],
    ["::1", { kind: "host", glob: "::1" }],
    ["[2001:DB8:0:0:0:0:0:1]", { kind: "host", glob: "2001:db8::1" }],
    ["2001:db8:0:0:1:0:0:1", { kind: "host", glob: "2001:db8::1:0:0:1" }],
    ["Receipts@Example.com", { kind: "address", address: "receipts@example.com" }],
    ["*@example.com", { kind: "address_domain", glob: "example.com" }],
    ["*@*.example.com", { kind: "address_domain", glob: "*.example.com" }],
    ["bücher.de", { kind: "host", glob: "xn--bcher-kva.de" }],
    ["*.BÜCHER.de", { kind: "host", glob: "*.xn--bcher-kva.de" }],
  ])("%s", (raw, pattern) => expect(parseDestination(raw)).toEqual({ ok: true, pattern }));

  it.each(["", "https://x.com/a", "a.*.com", "host:443", "a b", "x@*.example.com", "1:2:3:4:5:6:7:8:9", "a/b", "-bad-.com", "*.", "@example.com"])("refuses %j", (raw) => {
    const r = parseDestination(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.hint.length).toBeGreaterThan(0);
  });

  it("IPv6 in RFC 5952 form, IPv4 only as its dotted quad", () => {
    expect(parseDestination("0:0:0:0:0:0:0:0")).toEqual({ ok: true, pattern: { kind: "host", glob: "::" } });
    expect(parseDestination("1:0:0:1:0:0:0:1")).toEqual({ ok: true, pattern: { kind: "host", glob: "1:0:0:1::1" } });
    expect(parseDestination("::ffff:10.0.0.1")).toEqual({ ok: true, pattern: { kind: "host", glob: "::ffff:a00:1" } });
    expect(parseDestination("1::2::3").ok).toBe(false);
    for (const other of ["0x7f.1", "0177.0.0.1", "2130706433", "127.1"]) {
      expect(parseDestination(other)).toMatchObject({ ok: false, hint: "write its dotted quad: `127.0.0.1`" });
    }
  });
});

describe("field paths", () => {
  it("parses names, [i] and []", () => {
    expect(parsePath("transactions[2].amount")).toEqual([{ kind: "field", name: "transactions" }, { kind: "index", index: 2 }, { kind: "field", name: "amount" }]);
    expect(parsePath("jobs[]")).toEqual([{ kind: "field", name: "jobs" }, { kind: "each" }]);
    expect(parsePath("a[0][1]")).toEqual([{ kind: "field", name: "a" }, { kind: "index", index: 0 }, { kind: "index", index: 1 }]);
    for (const bad of ["", ".a", "a.", "a..b", "[0]", "a[x]", "a b", "a[0]b"]) expect(parsePath(bad), bad).toBeUndefined();
  });

  it("declares walks properties, items, local $ref and combinators", () => {
    const returns = {
      type: "object",
      definitions: { money: { type: "object", properties: { amount: { type: "number" } } } },
      properties: {
        total: { $ref: "#/definitions/money" },
        pair: { type: "array", items: [{ type: "string" }, { $ref: "#/definitions/money" }] },
        either: { anyOf: [{ properties: { a: {} } }, { properties: { b: {} } }] },
      },
    };
    expect(declares(returns, "total.amount")).toBe(true);
    expect(declares(returns, "total.currency")).toBe(false);
    expect(declares(returns, "pair[1].amount")).toBe(true);
    expect(declares(returns, "pair[0].amount")).toBe(false);
    expect(declares(returns, "pair[5]")).toBe(false);
    expect(declares(returns, "either.b")).toBe(true);
    expect(declares(returns, "either.c")).toBe(false);
    expect(declares(undefined, "x")).toBe(false);
  });
});

describe("durations", () => {
  it("30m, 12h, 1d, 7d", () => {
    expect(parseDuration("30m")).toBe(1_800_000);
    expect(parseDuration("12h")).toBe(43_200_000);
    expect(parseDuration("1d")).toBe(86_400_000);
    expect(parseDuration("7d")).toBe(604_800_000);
  });
});
