/**
 * A whole argument value that is a scheme-relative reference (`//host/path`, `\\host\path`) is a
 * destination (checks.md step 4): an HTTP tool that takes a path or a link resolves it against its
 * base URL, `new URL(value, "https://api.example.com/")`, and reaches that host (the
 * protocol-relative SSRF). Inside longer text `//host` counts only for a public TLD or an IP, so
 * that prose and code comments (`// TODO`) are not destinations; a whole value is read as the URL
 * parser reads it, whatever its host. A property test builds such values from URL pieces with the
 * characters the parser strips or removes, and holds the check to what `new URL(v, base)` reads.
 */
import { describe, expect, it } from "vitest";
import { destinationAllowed, findDestinations, parseDestinationPattern, scanDestinations } from "../worker/portable/engine/destinations/index.js";
import type { DestinationPattern } from "../worker/portable/engine/catalogue/types.js";
import { resolvedHost as hostFrom } from "./helpers/resolved-host.js";
import { prng } from "./helpers/prng.js";

const patterns = (...ps: string[]): DestinationPattern[] => ps.map((p) => parseDestinationPattern(p)!);
const ALLOW = patterns("*.example.com");
/** Does step 4 refuse `value`, the whole of an argument, under `allow`? */
const refused = (value: string, allow: readonly DestinationPattern[] = ALLOW): boolean =>
  scanDestinations({ path: value }, new Set()).some((d) => !destinationAllowed(d, allow));
const BASE = "https://base.example.com/";

/** The host a tool reaches resolving `value` against its base URL (as `new URL()` writes it); null when it reads none or the base's. */
const resolvedHost = (value: string): string | null => hostFrom(value, BASE);

describe("a whole value that is a scheme-relative reference", () => {
  // [value, the host new URL(value, base) reads]
  const cases: readonly (readonly [string, string])[] = [
    ["//a.example.com.intranet/x", "a.example.com.intranet"],
    ["//intranet/x", "intranet"],
    ["//intranet", "intranet"],
    ["\\\\intranet\\x", "intranet"],
    ["/\\intranet/x", "intranet"],
    ["\\/intranet", "intranet"],
    ["///intranet/x", "intranet"], // a special base skips any number of slashes
    [" //intra\tnet/x", "intranet"],
    ["//intranet\t/x", "intranet"],
    ["//intra\nnet/x", "intranet"],
    ["\u0000 //intranet/x \u001f", "intranet"],
    ["\t\n//intranet:8080/x?y=1#z", "intranet"],
    ["//127.1/x", "127.0.0.1"],
    ["//2130706433/", "127.0.0.1"],
    ["//%69ntranet/", "intranet"],
    ["//a.example.com@intranet/x", "intranet"],
    ["//user:pw@intranet/x", "intranet"],
    ["//a.example.com:443@intranet", "intranet"],
    ["//a.example.com\u3002intranet/", "a.example.com.intranet"],
    ["//ＩＮＴＲＡＮＥＴ/x", "intranet"],
    ["//a.example.com.evil.net/x", "a.example.com.evil.net"],
    ["//todo", "todo"],
  ];
  for (const [value, host] of cases) {
    it(`${JSON.stringify(value)} reaches ${host}: refused under *.example.com, and on a tool with no sends_out`, () => {
      expect(new URL(value, BASE).hostname).toBe(host);
      expect(refused(value)).toBe(true);
      expect(scanDestinations({ path: value }, new Set()).length).toBeGreaterThan(0);
      expect(scanDestinations({ path: value }, new Set()).some((d) => destinationAllowed(d, patterns(host)))).toBe(true);
    });
  }

  it("is reported as the parser reads it, up to the end of its URL", () => {
    expect(findDestinations("//intranet/x")).toEqual(["//intranet/x"]);
    expect(findDestinations(" //intra\tnet/x ")).toEqual(["//intranet/x"]);
    expect(findDestinations("\\\\intranet\\x")).toEqual(["\\\\intranet\\x"]);
    // the scan of the text comes first, then the whole reading
    expect(findDestinations("//intranet/x?next=https://evil.net/")).toEqual(["https://evil.net/", "//intranet/x?next=https://evil.net/"]);
    // `user@intranet/x` is a URL to intranet without its scheme (outside audit 18, F4)
    expect(findDestinations("//user@intranet/x")).toEqual(["user@intranet/x", "//user@intranet/x"]);
    // a tab or newline past the host changes no host: reported up to it, as the scan reads it
    expect(findDestinations("//evil.net/x\ny")).toEqual(["//evil.net/x"]);
    expect(findDestinations("//evil.net/x.\nThanks")).toEqual(["//evil.net/x"]);
    expect(findDestinations("//intranet/x\ty")).toEqual(["//intranet/x"]);
  });

  it("under the allow-list, it is allowed", () => {
    for (const v of ["//a.example.com/x", "\\\\a.example.com\\x", " //a.example.com\t/x", "//user@a.example.com/x", "//a.example.com", "///a.example.com"]) {
      expect(refused(v), JSON.stringify(v)).toBe(false);
    }
  });

  it("in any argument, at any depth, and in keys", () => {
    expect(scanDestinations({ a: { b: ["//intranet/x"] } }, new Set())).toEqual(["//intranet/x"]);
    expect(scanDestinations({ a: { "//intranet/x": 1 } }, new Set())).toEqual(["//intranet/x"]);
  });

  it("what the parser reads as no host is no destination: comments, code, paths", () => {
    for (const v of [
      "// TODO: fix",
      "// TODO fix later",
      "// a comment\nconst x = 1;\n",
      "//go:build linux\n\npackage main\n",
      "/// <reference types=\"node\" />",
      "//",
      "///",
      "\\\\",
      "/x/y",
      "/\\",
      " / /intranet",
      "//:8080/x",
      "// intranet/x",
      "//intra net/x",
    ]) {
      expect(resolvedHost(v), JSON.stringify(v)).toBeNull();
      expect(findDestinations(v), JSON.stringify(v)).toEqual([]);
    }
  });

  it("inside longer text, `//host` stays what it was: a destination only for a public TLD or an IP", () => {
    expect(findDestinations("see //intranet/x")).toEqual([]);
    expect(findDestinations("x = 1; //intranet")).toEqual([]);
    expect(findDestinations("see //evil.net/x")).toEqual(["//evil.net/x"]);
  });

  it("an RFC 3986 resolver reads `//a.example.com\\@intranet/` as intranet: both hosts must be allowed", () => {
    // WHATWG ends the authority at `\`; a resolver that follows RFC 3986 reads on to the `@`
    expect(new URL("//a.example.com\\@intranet/", BASE).hostname).toBe("a.example.com");
    expect(refused("https://a.example.com\\@intranet/")).toBe(true);
    expect(refused("//a.example.com\\@intranet/")).toBe(true);
    expect(refused("see //a.example.com\\@evil.net/")).toBe(true);
    expect(refused("//a.example.com\\x")).toBe(false);
  });
});

describe("a JSON body whose string is a scheme-relative reference", () => {
  // the server that parses the body reads each string whole, as a tool reads an argument
  for (const body of [
    JSON.stringify({ url: "//intranet/x" }),
    JSON.stringify({ url: "//a.example.com.intranet/x" }, null, 2),
    JSON.stringify([" //intranet/x"]),
    JSON.stringify({ "//intranet/x": 1 }),
    JSON.stringify({ a: { b: ["\\\\intranet\\x"] } }),
  ]) {
    it(`${body} is refused under *.example.com`, () => {
      expect(refused(body)).toBe(true);
    });
  }
  it("holds no destination where its strings hold none", () => {
    expect(findDestinations(JSON.stringify({ note: "// TODO: fix", path: "/a/b" }))).toEqual([]);
    expect(refused(JSON.stringify({ url: "//a.example.com/x" }))).toBe(false);
  });
});

describe("property: what new URL(v, base) reads from a scheme-relative whole value is a destination", () => {
  const ALL = patterns("*.example.com", "a.example.com", "example.com", "*.evil.net", "evil.net", "127.0.0.1", "localhost", "intranet", "::1");
  const STRIPPED = ["", "", "", " ", "\t", "\n", "\u0000", "\u001f", " \u0001", "\r\n"];
  const STARTS = ["//", "//", "//", "\\\\", "/\\", "\\/", "///", "\\\\\\", "/\t/", "/\n\\"];
  const USERS = ["", "", "", "user@", "a.example.com@", "u:p@", "@", "a.example.com:443@", "x%40y@", "a.example.com\\@"];
  const HOSTS = ["intranet", "a.example.com", "a.example.com.intranet", "example.com", "evil.net", "127.1", "0x7f.1", "2130706433", "[::1]", "[::ffff:7f00:1]", "%69ntranet", "localhost", "bücher.de", "ＩＮＴＲＡＮＥＴ", "todo", "a.example.com%2eevil.net", "a\u3002example.com"];
  const TAILS = ["", "/", "/x", "\\x", ":8080/x", ":", "?q=1", "#f", "/x?next=https://evil.net/", " TODO: fix", "\nconst x = 1;", " /x"];
  const NOISE = ["\t", "\n", "\r", " ", "\u0000", "@", "\\", "/", ".", ":", "%2e", "%", "\u00ad"];

  it("whenever a whole value starting with `//` or `\\\\` (after what the parser strips) resolves to a host the allow-list does not name, the check refuses", () => {
    const rand = prng(20261204);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    let checked = 0;
    for (let i = 0; i < 50_000; i++) {
      let v = pick(STARTS) + pick(USERS) + pick(HOSTS) + pick(TAILS);
      for (let k = Math.floor(rand() * 3); k > 0; k--) {
        const at = Math.floor(rand() * (v.length + 1));
        v = v.slice(0, at) + pick(NOISE) + v.slice(at);
      }
      v = pick(STRIPPED) + v + pick(STRIPPED);
      const host = resolvedHost(v);
      // a host with an empty label (`a..b`, `x.`) is no name a resolver looks up
      if (host === null || /(^|\.)\.|\.$/.test(host)) continue;
      checked++;
      // every pattern that would allow the resolved host is left out
      const allow = ALL.filter((p) => !destinationAllowed(`http://${host}/`, [p]));
      if (!refused(v, allow)) throw new Error(`${JSON.stringify(v)} resolves to ${host}, but the scan found only ${JSON.stringify(findDestinations(v))}`);
      if (!refused(v, [])) throw new Error(`${JSON.stringify(v)} resolves to ${host}: a tool with no sends_out carries a destination`);
    }
    expect(checked).toBeGreaterThan(15_000);
  });
});

describe("hostile input", () => {
  const M = 1 << 20;
  const cases: Record<string, string> = {
    "one scheme-relative host": `//${"a".repeat(M)}`,
    "a scheme-relative host split by tabs": `//${"a\t".repeat(M / 2)}`,
    "spaces before a scheme-relative start": `${" ".repeat(M)}//intranet`,
    "slashes": "/".repeat(M),
    "backslashes and at signs": `\\\\${"a@".repeat(M / 2)}`,
    "a scheme-relative URL holding URLs": `//intranet/${"?u=https://b/".repeat(M / 13)}`,
    "a scheme-relative URL holding scheme-relative starts": `//intranet/${"//a\t".repeat(M / 4)}`,
    "a JSON array of scheme-relative strings": JSON.stringify(Array.from({ length: M / 16 }, () => "//intranet/x")),
    "a JSON string of quotes and spaces": `["${'" "  '.repeat(M / 5)}"]`,
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`1 MB of ${name} scans in linear time`, () => {
      scanDestinations({ path: text }, new Set()); // the test timeout guards linear time (bench/ measures speed)
    }, 60_000);
  }
});
