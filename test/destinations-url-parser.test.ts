/**
 * A value read the way a URL parser reads it (checks.md step 4): `new URL()` and `fetch()` strip
 * leading and trailing C0 controls and spaces and remove every tab, LF and CR anywhere, so
 * `https://a.example.com\t.intranet/` reaches `a.example.com.intranet`. A property test builds
 * strings from URL pieces with tabs, newlines, controls, spaces, `@`, `%`-escapes and backslashes
 * at random places, and holds the scanner to what `new URL()` reads.
 */
import { describe, expect, it } from "vitest";
import { destinationAllowed, findDestinations, parseDestinationPattern, scanDestinations } from "../worker/portable/engine/destinations/index.js";
import type { DestinationPattern } from "../worker/portable/engine/catalogue/types.js";
import { prng } from "./helpers/prng.js";
import { UrlPieces } from "./helpers/url-pieces.js";

const patterns = (...ps: string[]): DestinationPattern[] => ps.map((p) => parseDestinationPattern(p)!);
/** Does the check refuse `text` under `allow`: is some destination found outside it? */
const refused = (text: string, allow: readonly DestinationPattern[]): boolean => findDestinations(text).some((d) => !destinationAllowed(d, allow));

describe("a value that is a URL once tabs and newlines are gone", () => {
  const allow = patterns("*.example.com");
  // [value, the host new URL() reads]
  const cases: readonly (readonly [string, string])[] = [
    ["https://a.example.com\t.intranet/", "a.example.com.intranet"],
    ["https://a.example.com\n.intranet", "a.example.com.intranet"],
    ["https://a.example.\ncom.evil.net/", "a.example.com.evil.net"],
    ["https://a.example.com\r\n.evil.net", "a.example.com.evil.net"],
    ["https://exa\tmple.com.evil.net", "example.com.evil.net"],
    ["https://x.example.com.\nintranet/x", "x.example.com.intranet"],
    ["ht\ntps://intranet/", "intranet"],
    ["http:\t//intranet/x", "intranet"],
    ["\u0000 https://a.example.com\t.intranet \u001f", "a.example.com.intranet"],
    ["https://a.example.com\t.intranet:8080/x?y=1#z", "a.example.com.intranet"],
    ["https:\\\\a.example.com\t.intranet\\x", "a.example.com.intranet"],
    ["wss://a.example.com\n.intranet/socket", "a.example.com.intranet"],
    ["/\t/a.example.com\t.intranet/x", "a.example.com.intranet"], // `//host` against a tool's base URL
    ["git+ssh://a.example.com\t.intranet/repo", "a.example.com.intranet"],
    ["https://a.example.com\nThanks", "a.example.comthanks"], // fetch(value) goes there
    // found by the property test below, before the fix
    ["ws\t://example\r\n.com\r\n", "example.com"],
    ["ftp:\n\t///intranet", "intranet"],
    ["\r\nws:\r//evil.n\net#f", "evil.net"],
    ["wss:/\\%41%2Ea.example.com\r\n%2E%41?next=https://evil.net/ ", "a.a.example.com.a"],
    // found by it after a first fix that took a removal right after the userinfo's `@` for part of the userinfo
    ["\u0000\u0001http://user@\rintranet?next=https://evil.net /", "intranet"],
    ["wss://u:p@\n127/.0.0.1:#f\u0000", "0.0.0.127"],
  ];
  for (const [value, host] of cases) {
    it(`${JSON.stringify(value)} reaches ${host}: reported, and refused under *.example.com`, () => {
      const whatwg = value.startsWith("/") ? new URL(value, "http://base.invalid/") : new URL(value);
      expect(whatwg.hostname).toBe(host);
      expect(refused(value, allow)).toBe(true);
      expect(findDestinations(value).some((d) => destinationAllowed(d, patterns(host)))).toBe(true);
    });
  }

  it("reports the URL as the parser reads it, next to the scan's reading", () => {
    expect(findDestinations("https://a.example.com\t.intranet/x")).toEqual(["https://a.example.com", "https://a.example.com.intranet/x"]);
    expect(findDestinations("ht\ntps://evil.net/x")).toEqual(["tps://evil.net/x", "https://evil.net/x"]);
  });

  it("a URL inside the query, joined by the removal, is read too", () => {
    const value = "https://a.example.com/r?next=https://b.example.com\t.intranet/x";
    expect(findDestinations(value)).toContain("https://b.example.com.intranet/x");
    expect(refused(value, allow)).toBe(true);
  });

  it("a mailto: whose address a tab or newline splits", () => {
    const value = "mailto:ana@a.example.com\t.intranet";
    expect(findDestinations(value)).toContain("mailto:ana@a.example.com.intranet");
    expect(refused(value, patterns("*@*.example.com"))).toBe(true);
    expect(refused("mailto:ana@a.example.com?b\tcc=spy@intranet", patterns("*@*.example.com"))).toBe(true);
  });

  it("in any argument, at any depth, and in keys", () => {
    expect(scanDestinations({ a: { b: ["https://a.example.com\t.intranet/"] } }, new Set())).toContain("https://a.example.com.intranet/");
    expect(scanDestinations({ a: { "https://a.example.com\n.intranet/": 1 } }, new Set())).toContain("https://a.example.com.intranet/");
  });

  it("a tab or newline after the host changes nothing: no second reading", () => {
    expect(findDestinations("https://a.example.com/x\nThanks")).toEqual(["https://a.example.com/x"]);
    expect(findDestinations("https://a.example.com/search?q=a\tb")).toEqual(["https://a.example.com/search?q=a"]);
    expect(findDestinations("https://a.example.com/x\nhttps://b.example.com/y")).toEqual(["https://a.example.com/x", "https://b.example.com/y"]);
    expect(findDestinations("\thttps://a.example.com/x\n")).toEqual(["https://a.example.com/x"]);
  });

  it("prose is still read as text: a URL that ends a line does not run into the next", () => {
    expect(findDestinations("see https://a.example.com\nThanks")).toEqual(["https://a.example.com"]);
    expect(findDestinations("Done.\nIt works: https://a.example.com/x\nOK")).toEqual(["https://a.example.com/x"]);
    expect(refused("see https://a.example.com\nThanks", allow)).toBe(false);
  });
});

describe("a string that is JSON (a request body) is also read as the JSON it holds", () => {
  const allow = patterns("*.example.com");
  // the server that parses the body reads a.example.com.intranet; the text holds `\t` and `\u002e`
  for (const callback of ["https://a.example.com\t.intranet/", "https://a.example.com.intranet/"]) {
    const escaped = JSON.stringify({ callback }).replace(".intranet", "\\u002eintranet");
    it(`${escaped} is refused under *.example.com`, () => {
      expect(new URL(JSON.parse(escaped).callback).hostname).toBe("a.example.com.intranet");
      expect(refused(escaped, allow)).toBe(true);
      expect(scanDestinations({ body: escaped }, new Set()).some((d) => !destinationAllowed(d, allow))).toBe(true);
    });
  }
  it("its strings as the body holds them, and in arrays", () => {
    expect(findDestinations(String.raw`{"to": "spy@intranet"}`)).toContain("spy@intranet");
    expect(findDestinations(String.raw` [1, {"u": "https:\/\/evil.net\/x"}] `)).toContain("https://evil.net/x");
  });
  it("JSON without escapes reads as its text does: nothing more", () => {
    expect(findDestinations('{"url": "https://a.example.com/x", "n": 1}')).toEqual(["https://a.example.com/x"]);
  });
  it("text that only looks like JSON is read as text", () => {
    expect(findDestinations(String.raw`{not json: . https://a.example.com}`)).toEqual(["https://a.example.com"]);
  });
});

describe("property: what new URL() reads is a destination", () => {
  const SPECIAL = new Set(["http:", "https:", "ws:", "wss:", "ftp:"]);
  const ALL = patterns("*.example.com", "a.example.com", "example.com", "*.evil.net", "evil.net", "127.0.0.1", "localhost", "intranet", "::1");

  it("whenever new URL(s) reads a host, the check refuses s (alone, or in a JSON body) under an allow-list that does not allow that host", () => {
    const g = new UrlPieces(prng(20261204));
    let checked = 0;
    for (let i = 0; i < 100_000; i++) {
      const s = g.next();
      let url: URL;
      try {
        url = new URL(s);
      } catch {
        continue;
      }
      const host = url.hostname.replace(/\.+$/, ""); // `https:..` has no host to speak of
      if (!SPECIAL.has(url.protocol) || host === "") continue;
      checked++;
      // Every pattern that would allow the parsed host is left out: the other readings may be
      // allowed, but this one must not be (the engine compares hosts as new URL() writes them).
      const allow = ALL.filter((p) => !destinationAllowed(`http://${host}/`, [p]));
      if (!refused(s, allow)) throw new Error(`${JSON.stringify(s)} reaches ${host}, but the scanner found only ${JSON.stringify(findDestinations(s))}`);
      // and inside a JSON body, where a tab or control is written as an escape
      const body = JSON.stringify({ url: s });
      if (!refused(body, allow)) throw new Error(`${body} holds a URL to ${host}, but the scanner found only ${JSON.stringify(findDestinations(body))}`);
    }
    expect(checked).toBeGreaterThan(20_000);
  });
});

describe("hostile input", () => {
  const M = 1 << 20;
  const cases: Record<string, string> = {
    "URLs split by tabs": "http://a\t".repeat(M / 9),
    "a URL whose host newlines split": `https://${"a\n.".repeat(M / 3)}com/`,
    "URLs in a URL split by tabs": `https://a.com\t/${"x?u=h\tttps://b\t.com/".repeat(M / 20)}`,
    "mailto split by newlines": `mailto:${"a\n@".repeat(M / 3)}`,
    "scheme-relative starts split by tabs": `/\t/${"a\t@".repeat(M / 3)}`,
    "JSON strings full of escapes": JSON.stringify(Array.from({ length: M / 16 }, () => "h\tt\\p:/\u0000")),
    "JSON in JSON in JSON": JSON.stringify([JSON.stringify([JSON.stringify(["a\t.com\\".repeat(M / 32)])])]),
    "an unclosed JSON array": `[${'"\\t",'.repeat(M / 6)}`,
    "deeply nested JSON arrays": `${"[".repeat(M / 2)}"\\u002e"${"]".repeat(M / 2)}`,
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`1 MB of ${name} scans in linear time`, () => {
      findDestinations(text); // the test timeout guards linear time (bench/ measures speed)
    }, 60_000);
  }
});
