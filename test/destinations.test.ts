import { describe, expect, it } from "vitest";
import {
  destinationAllowed,
  findDestinations,
  parseDestinationPattern,
  scanDestinations,
} from "../worker/portable/engine/destinations/index.js";
import { MAX_FOUND, MAX_LENGTH, MORE_DESTINATIONS } from "../worker/portable/engine/destinations/index.js";
import type { DestinationPattern } from "../worker/portable/engine/catalogue/types.js";
import { prng as mulberry32 } from "./helpers/prng.js";

const NONE = new Set<string>();

/** [text, what the scanner reports]; an empty list is a negative case. */
const TABLE: readonly (readonly [string, readonly string[]])[] = [
  // URLs, any scheme that names a host, reported whole
  ["https://refunds.invalid/4411", ["https://refunds.invalid/4411"]],
  ["ftp://files.example.com/pub/x.tar.gz", ["ftp://files.example.com/pub/x.tar.gz"]],
  ["mailto:x@y.com", ["mailto:x@y.com"]],
  ["mailto:a@x.com?cc=b@y.com", ["mailto:a@x.com?cc=b@y.com"]],
  ["mailto:a%40x.com%2Cspy%40intranet", ["mailto:a%40x.com%2Cspy%40intranet"]], // RFC 6068: `@` as `%40`
  ["write mailto:?to=spy%40intranet, then", ["mailto:?to=spy%40intranet"]],
  ["mailto:?subject=hi", []],
  ["//host.example/path", ["//host.example/path"]],
  ["fetch //10.0.0.7/x now", ["//10.0.0.7/x"]],
  ["https://example.com@evil.com/", ["https://example.com@evil.com/"]],
  ["see https://example.com/a.", ["https://example.com/a"]],
  ["(see https://en.wikipedia.org/wiki/Foo_(bar)).", ["https://en.wikipedia.org/wiki/Foo_(bar)"]],
  ["[docs](https://docs.example/x)", ["https://docs.example/x"]],
  ["<https://a.example/x>", ["https://a.example/x"]],
  ['{"url":"https://a.example/x"}', ["https://a.example/x"]],
  ["http://localhost/admin", ["http://localhost/admin"]],
  ["svn+ssh://git@host.example/repo", ["svn+ssh://git@host.example/repo"]],
  ["http:evil.com", ["http:evil.com"]],
  ["https:\\\\evil.com\\x", ["https:\\\\evil.com\\x"]],
  ["HTTPS://API.EXAMPLE.COM", ["HTTPS://API.EXAMPLE.COM"]],
  ["ws://10.1.2.3:9000/socket", ["ws://10.1.2.3:9000/socket"]],
  ["redis://cache.internal:6379", ["redis://cache.internal:6379"]],
  ["s3://bucket/key", ["s3://bucket/key"]],
  ["file://server.example/share", ["file://server.example/share"]],
  ["http://[fe80::1%25eth0]:8080/", ["http://[fe80::1%25eth0]:8080/"]],
  ["https://a.com/r?next=https://evil.com/x", ["https://a.com/r?next=https://evil.com/x", "https://evil.com/x"]],
  // a URL parser drops tabs and newlines and keeps spaces and controls as userinfo up to `/ ? # \`
  ["https://a.example.com\t@2130706433/x", ["https://a.example.com\t@2130706433/x"]],
  ["https://a.example.com\r\n@intranet/", ["https://a.example.com\r\n@intranet/"]],
  ["https://a.example.com @intranet", ["https://a.example.com @intranet"]],
  ["https://a.example.com\u0000:pw@127.1/", ["https://a.example.com\u0000:pw@127.1/"]],
  ["see https://a.example.com/x then @ana", ["https://a.example.com/x"]],
  // e-mail addresses
  ["x@y.com", ["x@y.com"]],
  ["Contact ana.silva+refunds@loja.com.br today", ["ana.silva+refunds@loja.com.br"]],
  ["x@y.com, z@w.org", ["x@y.com", "z@w.org"]],
  ["root@localhost", ["root@localhost"]],
  ["user@[10.0.0.1]", ["user@[10.0.0.1]"]],
  ["git@github.com:org/repo.git", ["git@github.com"]],
  ["ana@home", ["ana@home"]], // no public TLD, but the `@` marks it (a mailer or a URL's userinfo)
  // what a URL parser reads as a host, however it is written (issue 9)
  ["evil%2Ecom/steal?d=1", ["evil%2Ecom/steal?d=1"]],
  ["evil%E3%80%82com", ["evil%E3%80%82com"]],
  ["%65vil.com", ["%65vil.com"]],
  ["0177.0.0.1 0x7f.0.0.1 0x7f.1 0x7f000001", ["0177.0.0.1", "0x7f.0.0.1", "0x7f.1", "0x7f000001"]],
  ["mask 0xff", ["0xff"]], // 0.0.0.255 to a URL parser: a hex number is an address (fail closed)
  ["http://2130706433/", ["http://2130706433/"]],
  ["intranet:8080/admin", ["intranet:8080/admin"]],
  ["127.1:80", ["127.1:80"]],
  ["root@fileserver x@2130706433", ["root@fileserver", "x@2130706433"]],
  ["\\\\fileserver\\share\\x.txt", ["\\\\fileserver\\share\\x.txt"]],
  ["//0x7f.1/x", ["//0x7f.1/x"]],
  // bare host names: a real or special-use TLD
  ["refunds.invalid", ["refunds.invalid"]],
  ["api.example.com", ["api.example.com"]],
  ["evil.example.com:8443", ["evil.example.com:8443"]],
  ["api.example.com/v1/refunds?id=1", ["api.example.com/v1/refunds?id=1"]],
  ["send it to example.com.", ["example.com"]],
  ["WWW.EXAMPLE.COM", ["WWW.EXAMPLE.COM"]],
  ["localhost:3000", ["localhost:3000"]],
  ["printer.local", ["printer.local"]],
  ["abcdefghijklmnop.onion", ["abcdefghijklmnop.onion"]],
  ["münchen.de", ["münchen.de"]],
  ["пример.рф", ["пример.рф"]],
  ["xn--e1afmkfd.xn--p1ai", ["xn--e1afmkfd.xn--p1ai"]],
  ["archive.zip", ["archive.zip"]], // .zip is a gTLD: fail closed
  // hiding a name from a scan the way a URL parser would still read it
  ["evil。com", ["evil。com"]],
  ["ｅｘａｍｐｌｅ．ｃｏｍ", ["ｅｘａｍｐｌｅ．ｃｏｍ", "example.com"]],
  ["evil⒈com", ["evil1.com"]],
  ["ev\u00adil.com", ["ev\u00adil.com"]],
  ["😀example.com", ["😀example.com"]],
  // IP literals
  ["10.0.0.1", ["10.0.0.1"]],
  ["10.0.0.1:8080", ["10.0.0.1:8080"]],
  ["1.1.1.1/dns-query", ["1.1.1.1/dns-query"]],
  ["255.255.255.255", ["255.255.255.255"]],
  ["[::1]", ["[::1]"]],
  ["2001:db8::1", ["2001:db8::1"]],
  ["fe80::1%eth0", ["fe80::1%eth0"]],
  ["::ffff:10.0.0.1", ["::ffff:10.0.0.1"]],
  ["[2001:db8::1]:8443/path", ["[2001:db8::1]:8443/path"]],
  ["listen on ::1.", ["::1"]],
  ["2001:db8:0:0:0:0:0:1", ["2001:db8:0:0:0:0:0:1"]],
  // order of appearance, deduplicated
  ["b.com a.com b.com", ["b.com", "a.com"]],
  // not destinations
  ["report.pdf", []],
  ["config.json index.html main.ts script.js data.csv photo.jpg notes.txt app.log", []],
  ["40.00", []],
  ["v1.2.3", []],
  ["version 2.0.1-beta", []],
  ["e.g.", []],
  ["i.e. the thing", []],
  ["1.2.3", []],
  ["127.1", []], // a decimal number of one to three parts stays a number unless marked
  ["2130706433", []],
  ["100% 50%OFF 20%AB", []],
  ["\\\\?\\C:\\x", []],
  ["1.2.3.4.5", []],
  ["256.1.1.1", []],
  ["1.234,56", []],
  ["3.14159", []],
  ["R$ 40,00", []],
  ["US$ 1.000,00", []],
  ["$1,234.56", []],
  ["pedido 4411", []],
  ["12:30", []],
  ["12:30:45", []],
  ["1920:1080", []],
  ["16777215:80", []], // 0.255.255.255: no address anyone reaches
  ["2130706433:80", ["2130706433:80"]], // 127.0.0.1, as 127.1:80 is (outside audit 3, F2)
  ["fetch 16777216:8080 now", ["16777216:8080"]],
  ["10:30 am", []],
  ["ratio 16:9", []],
  ["a:b", []],
  ["::", []],
  ["foo::bar", []],
  ["std::vector<int>", []],
  ["de:ad:be:ef:00:01", []],
  ["2024-05-01T12:30:45Z", []],
  ["Mr.Smith", []],
  ["@ana", []],
  ["https://", []],
  ["file:///etc/passwd", []],
  ["C:\\Users\\ana\\report.pdf", []],
  ["Nota: ver anexo", []],
  ["São Paulo, 12 de maio", []],
  ["e-mail: …", []],
  ["...", []],
];

describe("findDestinations: the table", () => {
  it("has at least 60 cases", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(60);
  });
  for (const [text, expected] of TABLE) {
    it(`${JSON.stringify(text)} → ${JSON.stringify(expected)}`, () => {
      expect(findDestinations(text)).toEqual(expected);
    });
  }
});

describe("scanDestinations", () => {
  it("finds the spec example", () => {
    expect(scanDestinations({ order_id: "https://refunds.invalid/4411", amount: 40 }, NONE)).toEqual([
      "https://refunds.invalid/4411",
    ]);
  });

  it("reads every string at any depth, object keys included, in order", () => {
    const args = {
      note: "ok",
      items: [{ sku: "A1", link: "shop.example/a" }, ["x", { "mirror.example": 1 }]],
      meta: { deep: { deeper: ["10.0.0.1"] } },
    };
    expect(scanDestinations(args, NONE)).toEqual(["shop.example/a", "mirror.example", "10.0.0.1"]);
  });

  it("skips the top-level lookup arguments, and only those", () => {
    const args = { sender: "boss@corp.example", filter: { sender: "x@y.example" } };
    expect(scanDestinations(args, new Set(["sender"]))).toEqual(["x@y.example"]);
  });

  it("ignores numbers, booleans and null", () => {
    expect(scanDestinations({ a: 10.001, b: true, c: null, d: [1, 2] }, NONE)).toEqual([]);
  });

  it("scans a string, or an array, given as the arguments", () => {
    expect(scanDestinations("a.example", NONE)).toEqual(["a.example"]);
    expect(scanDestinations(["a.example", "b.example"], NONE)).toEqual(["a.example", "b.example"]);
  });

  it("survives 10k-deep nesting (no recursion)", () => {
    let deep: unknown = "https://deep.example/x";
    for (let i = 0; i < 10_000; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(scanDestinations({ a: deep }, NONE)).toEqual(["https://deep.example/x"]);
  });

  it("reads a value reached twice once, and does not loop on a cycle", () => {
    const shared: Record<string, unknown> = { u: "a.example" };
    shared.self = shared;
    expect(scanDestinations({ x: shared, y: [shared, shared] }, NONE)).toEqual(["a.example"]);
  });

  it("bounds what it reports, and what it reports past the bound is never allowed", () => {
    const many = Array.from({ length: MAX_FOUND + 5 }, (_, i) => `h${i}.example`).join(" ");
    const found = scanDestinations({ many }, NONE);
    expect(found.length).toBe(MAX_FOUND + 1);
    expect(found.at(-1)).toBe(MORE_DESTINATIONS);
    const allowAll = [parseDestinationPattern("*.example")!];
    expect(destinationAllowed(found[0]!, allowAll)).toBe(true);
    expect(destinationAllowed(MORE_DESTINATIONS, allowAll)).toBe(false);
    expect(destinationAllowed(MORE_DESTINATIONS, [{ kind: "any" }])).toBe(true);

    const long = `https://a.example/${"x".repeat(MAX_LENGTH)}`;
    const [cut] = findDestinations(long);
    expect(cut!.length).toBe(MAX_LENGTH + 1);
    expect(cut!.endsWith("…")).toBe(true);
    expect(destinationAllowed(cut!, [parseDestinationPattern("a.example")!])).toBe(false);
  });
});

describe("hostile input", () => {
  const M = 1 << 20;
  const cases: Record<string, string> = {
    letters: "a".repeat(M),
    labels: "a.".repeat(M / 2),
    "labels ending in a TLD": `${"a.".repeat(M / 2 - 2)}com`,
    "digits and dots": "1.".repeat(M / 2),
    colons: "a:".repeat(M / 2),
    "hex and double colons": "ab::".repeat(M / 4),
    "IPv6 runs": "1:2:3:4:5:6:7:8:".repeat(M / 16),
    "special schemes with no host": "http::".repeat(M / 6),
    "schemes in a row": "http://".repeat(M / 7),
    "URLs in a URL": `https://a.com/${"x?u=https://b.com/".repeat(M / 18)}`,
    "empty hosts after userinfo": "ab://@".repeat(M / 6),
    "open brackets": "[::".repeat(M / 3),
    "bracketed hosts never closed": "http://[".repeat(M / 8),
    "at signs": "a@".repeat(M / 2),
    "dotted local parts": "a.b@".repeat(M / 4),
    "a long local part": `${"a+".repeat(M / 2)}@x.com`,
    "mailto with nothing": "mailto:".repeat(M / 7),
    "mailto with a query and no address": "mailto:?".repeat(M / 8),
    "scheme-relative starts": " //a".repeat(M / 4),
    parentheses: `https://a.com/${"(".repeat(M)}`,
    "non-ASCII labels": "ção.".repeat(M / 4),
    "full-width dots": "ａ．".repeat(M / 2),
    "a long zone": `fe80::1%${"a".repeat(M)}`,
    "URLs, each followed by a space": "http://a ".repeat(M / 9),
    "URLs and at signs past a space": "http://a @".repeat(M / 10),
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`1 MB of ${name} scans in linear time`, () => {
      // Linear time is guarded by the test timeout (a super-linear scan of 1 MB takes minutes);
      // speed itself lives in bench/.
      findDestinations(text);
    }, 60_000);
  }
});

describe("parseDestinationPattern", () => {
  const ok: readonly (readonly [string, DestinationPattern])[] = [
    ["*", { kind: "any" }],
    ["*.example.com", { kind: "host", glob: "*.example.com" }],
    ["API.Example.COM.", { kind: "host", glob: "api.example.com" }],
    ["10.0.0.1", { kind: "host", glob: "10.0.0.1" }],
    ["::1", { kind: "host", glob: "::1" }],
    ["[2001:0db8:0:0::1]", { kind: "host", glob: "2001:db8::1" }],
    ["*.bücher.de", { kind: "host", glob: "*.xn--bcher-kva.de" }],
    ["localhost", { kind: "host", glob: "localhost" }],
    ["Receipts@Example.com", { kind: "address", address: "receipts@example.com" }],
    ["*@example.com", { kind: "address_domain", glob: "example.com" }],
    ["*@*.example.com", { kind: "address_domain", glob: "*.example.com" }],
  ];
  for (const [text, pattern] of ok) {
    it(`${text} → ${JSON.stringify(pattern)}`, () => expect(parseDestinationPattern(text)).toEqual(pattern));
  }
  for (const text of ["", "https://example.com", "example.com:8443", "example.com/x", "api.*.example.com", "*example.com", "*.1.2.3", "1.2.3", "a..b", "a@*", "*@", "x y@example.com"]) {
    it(`${JSON.stringify(text)} is no pattern`, () => expect(parseDestinationPattern(text)).toBeNull());
  }
});

describe("destinationAllowed", () => {
  const patterns = ["*.example.com", "api.good.com", "10.0.0.1", "::1", "receipts@example.com", "*@shop.com", "*@*.corp.com", "*.bücher.de"].map(
    (p) => parseDestinationPattern(p)!,
  );
  const cases: readonly (readonly [string, boolean])[] = [
    ["https://a.example.com/x", true],
    ["https://a.b.example.com/x", true],
    ["a.example.com", true],
    ["https://example.com/", false], // *.example.com is not example.com
    ["https://badexample.com", false],
    ["https://A.B.EXAMPLE.COM./", true], // case and the trailing dot
    ["https://example.com@evil.com/", false], // userinfo: the host is evil.com
    ["https://evil.com@a.example.com/", true],
    ["https://a.example.com.evil.com/", false],
    ["https://a.example.com\\@evil.com/", false], // an RFC 3986 client connects to evil.com
    ["https://a.example.com\\x", true],
    ["api.good.com:8443/x", true],
    ["http:api.good.com", true],
    ["//api.good.com/x", true],
    ["evil。example。com", true], // ideographic dots are dots
    ["https://www.bücher.de/", true], // IDN: punycode compared
    ["www.xn--bcher-kva.de", true],
    ["10.0.0.1:80", true],
    ["10.0.0.2", false],
    ["[::1]:8080", true],
    ["::1", true],
    ["receipts@example.com", true],
    ["RECEIPTS@Example.COM", true],
    ["other@example.com", false], // a host glob does not allow addresses
    ["x@shop.com", true],
    ["x@sub.shop.com", false],
    ["x@a.corp.com", true],
    ["x@corp.com", false],
    ["https://a.example.com\t@127.1/", false], // fetch() connects to 127.0.0.1
    ["https://a.example.com\n@evil.com/", false],
    ["https://a.example.com @evil.com", false],
    ["mailto:receipts@example.com", true],
    ["mailto:receipts%40example.com", true],
    ["mailto:receipts%40example.com%2Cspy%40evil.com", false],
    ["mailto:receipts@example.com?bcc=spy@evil.com", false],
    ["mailto:x@shop.com,y@a.corp.com?subject=hi", true],
    ["not a destination at all", false],
  ];
  for (const [dest, allowed] of cases) {
    it(`${dest} → ${allowed}`, () => expect(destinationAllowed(dest, patterns)).toBe(allowed));
  }
  it("the `%` relay hack: the address it is relayed to must be allowed too (outside audit 18, F5)", () => {
    const corp = [parseDestinationPattern("*@corp.example.com")!];
    expect(destinationAllowed("evil%evil.test@corp.example.com", corp)).toBe(false);
    expect(destinationAllowed("evil%evil.test@corp.example.com", [...corp, parseDestinationPattern("*@evil.test")!])).toBe(true);
    expect(destinationAllowed("bob@corp.example.com", corp)).toBe(true);
  });
  it("a name with a path before an `@` must be allowed as a host and as an address", () => {
    // and its path segment is an address too (outside audit 18, F2)
    expect(findDestinations("a.example.com/x@evil.com")).toEqual(["a.example.com/x@evil.com", "x@evil.com"]);
    const host = [parseDestinationPattern("*.example.com")!];
    const both = [...host, parseDestinationPattern("*@evil.com")!];
    expect(destinationAllowed("a.example.com/x@evil.com", host)).toBe(false);
    expect(destinationAllowed("a.example.com/x@evil.com", both)).toBe(true);
    expect(destinationAllowed("evil.com/x@a.example.com", [parseDestinationPattern("*@*.example.com")!])).toBe(false);
  });
  it('"*" allows anything', () => {
    expect(destinationAllowed("https://evil.com", [{ kind: "any" }])).toBe(true);
  });
  it("an empty allow-list allows nothing", () => {
    expect(destinationAllowed("https://a.example.com", [])).toBe(false);
  });
  it("accepts patterns in the catalogue's stored form (IPv6 without brackets)", () => {
    expect(destinationAllowed("http://[2001:db8::1]/", [{ kind: "host", glob: "2001:db8::1" }])).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Property tests, seeded


class Gen {
  constructor(private readonly rnd: () => number) {}
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.rnd() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(0, xs.length - 1)]!;
  }
  chars(alphabet: string, lo: number, hi: number): string {
    let s = "";
    for (let i = this.int(lo, hi); i > 0; i--) s += alphabet[this.int(0, alphabet.length - 1)];
    return s;
  }
  label(): string {
    const inner = this.chars("abcdefghijklmnopqrstuvwxyz0123456789-", 0, 8);
    return this.chars("abcdefghijklmnopqrstuvwxyz", 1, 1) + inner.replace(/-+$/, "") + (this.rnd() < 0.5 ? this.chars("0123456789", 1, 2) : "");
  }
  host(): string {
    const labels = Array.from({ length: this.int(1, 3) }, () => this.label());
    return [...labels, this.pick(["com", "org", "net", "io", "example", "invalid", "test", "com.br", "co.uk", "de", "internal", "dev", "app"])].join(".");
  }
  ipv4(): string {
    return Array.from({ length: 4 }, () => this.int(0, 255)).join(".");
  }
  ipv6(): string {
    const groups = Array.from({ length: 8 }, () => this.int(0, 0xffff).toString(16));
    if (this.rnd() < 0.5) return groups.join(":");
    const cut = this.int(0, 6);
    const len = this.int(1, 7 - cut);
    return `${groups.slice(0, cut).join(":")}::${groups.slice(cut + len).join(":")}`;
  }
  path(): string {
    return this.rnd() < 0.4 ? "" : "/" + this.chars("abcdefghijklmnopqrstuvwxyz0123456789_-/", 1, 12).replace(/\/+$/, "") + (this.rnd() < 0.3 ? `?id=${this.int(1, 9999)}` : "");
  }
  port(): string {
    return this.rnd() < 0.3 ? `:${this.int(1, 65535)}` : "";
  }
  destination(): string {
    switch (this.int(0, 7)) {
      case 0:
        return `${this.pick(["https", "http", "ftp", "wss", "sftp", "git+ssh"])}://${this.rnd() < 0.2 ? "user@" : ""}${this.host()}${this.port()}${this.path()}`;
      case 1:
        return `${this.chars("abcdefghijklmnopqrstuvwxyz", 1, 1)}${this.chars("abcdefghijklmnopqrstuvwxyz0123456789_+-", 0, 6)}${this.rnd() < 0.3 ? "." + this.label() : ""}@${this.host()}`;
      case 2:
        return `mailto:${this.label()}@${this.host()}`;
      case 3:
        return `${this.host()}${this.port()}${this.path()}`;
      case 4:
        return `${this.ipv4()}${this.port()}`;
      case 5:
        return this.ipv6();
      case 6:
        return `[${this.ipv6()}]${this.port()}${this.path()}`;
      default:
        return `https://${this.ipv4()}${this.port()}${this.path()}`;
    }
  }
  /** Text that holds no destination: words, numbers in both languages, times, versions, files. */
  prose(): string {
    const words = ["estorne", "o", "pedido", "do", "cliente", "refund", "the", "order", "please", "São", "Paulo", "amanhã", "então", "total", "e.g.", "i.e.", "report.pdf", "data.csv", "v1.2.3", "Mr.", "Smith", "nº", "R$"];
    const parts: string[] = [];
    for (let i = this.int(1, 12); i > 0; i--) {
      switch (this.int(0, 6)) {
        case 0:
          parts.push(`${this.int(0, 999)},${String(this.int(0, 99)).padStart(2, "0")}`);
          break;
        case 1:
          parts.push(`${this.int(1, 999)}.${String(this.int(0, 999)).padStart(3, "0")},${String(this.int(0, 99)).padStart(2, "0")}`);
          break;
        case 2:
          parts.push(`${this.int(0, 23)}:${String(this.int(0, 59)).padStart(2, "0")}`);
          break;
        case 3:
          parts.push(`$${this.int(1, 9)},${String(this.int(0, 999)).padStart(3, "0")}.${String(this.int(0, 99)).padStart(2, "0")}`);
          break;
        default:
          parts.push(this.pick(words));
      }
      parts.push(this.pick([" ", ", ", ". ", "; ", " (", ") ", "\n", " - "]));
    }
    return parts.join("");
  }
}

describe("properties", () => {
  it("a generated destination embedded in prose is always found, as written", () => {
    const g = new Gen(mulberry32(20260401));
    for (let i = 0; i < 3000; i++) {
      const d = g.destination();
      const before = g.pick([" ", "\n", " (", " <", ": ", "\t"]);
      const after = g.pick([" ", ". ", ", ", ") ", "> ", "\n", ".\n", "; "]);
      const text = `${g.prose()}${before}${d}${after}${g.prose()}`;
      const found = findDestinations(text);
      if (!found.includes(d)) throw new Error(`${JSON.stringify(d)} not found in ${JSON.stringify(text)}: ${JSON.stringify(found)}`);
    }
  });

  it("prose and numbers without a destination never yield one", () => {
    const g = new Gen(mulberry32(7));
    for (let i = 0; i < 3000; i++) {
      const text = g.prose();
      const found = findDestinations(text);
      if (found.length > 0) throw new Error(`${JSON.stringify(text)} yielded ${JSON.stringify(found)}`);
    }
  });

  it("a generated host is allowed by itself and by its parent glob, not by a sibling", () => {
    const g = new Gen(mulberry32(99));
    for (let i = 0; i < 1000; i++) {
      const host = g.host();
      const exact = parseDestinationPattern(host)!;
      const parent = parseDestinationPattern(`*.${host}`)!;
      expect(destinationAllowed(`https://${host}/x`, [exact])).toBe(true);
      expect(destinationAllowed(`https://sub.${host}/x`, [parent])).toBe(true);
      expect(destinationAllowed(`https://${host}/x`, [parent])).toBe(false);
      expect(destinationAllowed(`https://x${host}/x`, [exact, parent])).toBe(false);
    }
  });
});
