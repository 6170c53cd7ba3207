/**
 * A query or fragment value that is a scheme-relative reference is a destination (checks.md step
 * 4): `https://a.example.com/login?next=//intranet/x` reaches intranet through a server that
 * redirects to `next` (an open redirect), which resolves the value against its own URL; a
 * client-side router does the same with `#next=`. The server decodes the value once first, and the
 * URL parser strips and removes what it does for a whole value (whole.ts). A value that is a path
 * (`/docs/a`) or holds `//` later (`a//b`) names no host. A property test holds the check to what
 * `new URL(value, "https://a.example.com/")` reads from the decoded value.
 */
import { describe, expect, it } from "vitest";
import { destinationAllowed, findDestinations, parseDestinationPattern, scanDestinations } from "../worker/portable/engine/destinations/index.js";
import type { DestinationPattern } from "../worker/portable/engine/catalogue/types.js";
import { resolvedHost } from "./helpers/resolved-host.js";
import { prng } from "./helpers/prng.js";

const patterns = (...ps: string[]): DestinationPattern[] => ps.map((p) => parseDestinationPattern(p)!);
const ALLOW = patterns("*.example.com");
/** Does step 4 refuse `value`, the whole of an argument, under `allow`? */
const refused = (value: string, allow: readonly DestinationPattern[] = ALLOW): boolean =>
  scanDestinations({ url: value }, new Set()).some((d) => !destinationAllowed(d, allow));
const BASE = "https://a.example.com/";

describe("a redirect target in a URL's query or fragment", () => {
  const forms = [
    "//intranet/x",
    "//intranet",
    "/\\intranet/x",
    "\\\\intranet\\x",
    "\\/intranet",
    "///intranet/x",
    "%2F%2Fintranet%2Fx",
    "%2f%2fintranet",
    "/%2Fintranet/x",
    "%2F/intranet",
    "%5C%5Cintranet%5Cx",
    "/%5Cintranet",
    "/\t/intranet/x",
    "//intra\nnet/x",
    "/%09/intranet",
    "%20//intranet",
    "+//intranet",
    "//a.example.com@intranet/x",
    "//intranet:8080/x",
  ];
  for (const value of forms) {
    // a bare host is no URL to the parser: its tabs and newlines end it, as in prose
    const bare = /[\t\n]/.test(value) ? [] : [`a.example.com/login?next=${value}`];
    for (const url of [`https://a.example.com/login?next=${value}`, `https://a.example.com/login?a=1&next=${value}&b=2`, `https://a.example.com/app#next=${value}`, ...bare, `/login?next=${value}`]) {
      it(`${JSON.stringify(url)} reaches intranet: refused under *.example.com`, () => {
        expect(refused(url)).toBe(true);
        expect(scanDestinations({ url }, new Set()).some((d) => destinationAllowed(d, patterns("intranet")))).toBe(true);
      });
    }
  }

  it("is reported as the server reads it: decoded, to the end of its path", () => {
    expect(findDestinations("https://a.example.com/login?next=//intranet/x")).toEqual(["https://a.example.com/login?next=//intranet/x", "//intranet/x"]);
    expect(findDestinations("https://a.example.com/login?next=/%2Fintranet%2Fx&y=1")).toEqual(["https://a.example.com/login?next=/%2Fintranet%2Fx&y=1", "//intranet/x"]);
    // and, as every query value is (outside audit 18, F1), read as a string: to the end of the part
    expect(findDestinations("https://a.example.com/#next=%5C%5Cintranet?y=1")).toEqual(["https://a.example.com/#next=%5C%5Cintranet?y=1", "\\\\intranet", "\\\\intranet?y=1"]);
    expect(findDestinations("/login?next=//intranet/x")).toEqual(["//intranet/x"]);
  });

  it("one redirect after another: each target is read", () => {
    const url = "https://a.example.com/login?next=//a.example.com/sso?return_to=//intranet/x";
    expect(refused(url)).toBe(true);
    expect(findDestinations(url)).toContain("//intranet/x");
    expect(refused("https://a.example.com/r?u=https://b.example.com/?next=//intranet")).toBe(true);
  });

  it("under the allow-list, an allowed target is allowed", () => {
    for (const v of ["https://a.example.com/login?next=//b.example.com/x", "https://a.example.com/login?next=%2F%2Fb.example.com", "/login?next=/\\b.example.com", "https://a.example.com/#next=//a.example.com/"]) {
      expect(refused(v), v).toBe(false);
    }
  });

  it("what must not change: paths, `//` inside a value, prose, comments", () => {
    for (const v of [
      "https://a.example.com/x?path=/docs/a",
      "https://a.example.com/x?q=a//b",
      "https://a.example.com/x?q=a%2F%2Fb&r=/%2E",
      "https://a.example.com/x?path=/docs//a&next=/a/b",
      "https://a.example.com/x?next=/%20/intranet",
      "https://a.example.com/x?next=%2B//intranet",
      "https://a.example.com/x?next=",
      "https://a.example.com/x?next=//",
      "https://a.example.com/a=//intranet/b", // a path, not a query
      "/search?q=a//b&path=/docs/a",
      "/a/b",
      "see https://a.example.com/docs?page=2 for more",
      "// TODO?x=//y",
      "a = b //comment",
    ]) {
      expect(refused(v), JSON.stringify(v)).toBe(false);
    }
    expect(findDestinations("https://a.example.com/x?path=/docs/a&q=a//b")).toEqual(["https://a.example.com/x?path=/docs/a&q=a//b"]);
  });
});

describe("a whole value that is only a query, a relative path or a form body", () => {
  it("its values are read as a URL's: a tool resolves it against its base URL, or posts it", () => {
    const cases: [string, string][] = [
      ["?next=//intranet/x", "//intranet/x"],
      ["#next=//intranet", "//intranet"],
      ["login?next=//intranet/x", "//intranet/x"],
      ["login?return_to=%2F%2Fintranet", "//intranet"],
      ["next=//intranet", "//intranet"],
      ["user=bob&next=/\\intranet&x=1", "/\\intranet"],
      ["a.example.com/login?next=/\t/intranet/x", "//intranet/x"],
      ['{"form":"next=//intranet"}', "//intranet"],
      ['["login?next=//intranet"]', "//intranet"],
    ];
    for (const [v, d] of cases) {
      expect(findDestinations(v), JSON.stringify(v)).toContain(d);
      expect(refused(v), JSON.stringify(v)).toBe(true);
      expect(refused(v, patterns("*.example.com", "intranet")), JSON.stringify(v)).toBe(false);
    }
  });

  it("prose, values with no two leading slashes, a scheme URL's own reading and JSON without them are what they were", () => {
    for (const v of ["a=1&b=2", "q=a//b", "token=abc==", "user=bob&pass=x//y", "next=/docs/a", "a = b //comment", "set x=//y in the config", '{"a":"b=c"}', "// TODO?x=//y"]) {
      expect(findDestinations(v), JSON.stringify(v)).toEqual([]);
    }
  });

  it("a 1 MB value of `=//` and `&` is read in linear time", () => {
    for (const unit of ["=//a", "a=//", "&=/", "?=%2F%2F", "==//"]) {
      const v = unit.repeat(Math.ceil((1 << 20) / unit.length));
      expect(Array.isArray(findDestinations(v))).toBe(true);
    }
  });
});

describe("property: what new URL(value, base) reads from a decoded query value is a destination", () => {
  const ALL = patterns("*.example.com", "a.example.com", "example.com", "*.evil.net", "evil.net", "127.0.0.1", "intranet", "::1");
  const LEADS = ["", "", "+", "%20", "\t", "%09", "\n", "%0A", "%00"];
  const SLASHES = ["//", "//", "\\\\", "/\\", "\\/", "///", "%2F%2F", "/%2F", "%2F/", "%5C%5C", "/%5C", "%5c/", "/\t/", "/%09/", "/ /", "/", "a//", "%2F"];
  const USERS = ["", "", "", "user@", "a.example.com@", "u:p@", "a.example.com%40"];
  const HOSTS = ["intranet", "a.example.com", "a.example.com.intranet", "evil.net", "127.1", "0x7f.1", "[::1]", "%69ntranet", "intra\tnet", "intra%09net", "docs", "b.example.com"];
  const TAILS = ["", "/", "/x", "\\x", "%2Fx", ":8080/x", "?y=1", "#f", "%3Fy", "%23f", "%20x"];
  const URLS = ["https://a.example.com/login?next=", "https://a.example.com/login?a=1&next=", "https://a.example.com/#next=", "/login?next=", "a.example.com/x?r="];
  const AFTER = ["", "", "&b=2", "#f", "&next=/docs/a"];

  /** The host the server's redirect reaches: the value split off at `&` or `#`, decoded once, resolved against the base. */
  function redirectHost(value: string): string | null {
    let decoded: string;
    try {
      decoded = decodeURIComponent(value.replace(/^\+/, " "));
    } catch {
      return null;
    }
    return resolvedHost(decoded, BASE);
  }

  it("whenever the decoded value resolves to a host the allow-list does not name, the check refuses", () => {
    const rand = prng(20261205);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    let checked = 0;
    for (let i = 0; i < 30_000; i++) {
      const user = pick(USERS);
      const h = pick(HOSTS);
      const value = pick(LEADS) + pick(SLASHES) + user + h + pick(TAILS);
      if (/[&#]/.test(value)) continue; // the server's value ends there
      const host = redirectHost(value);
      // a bare host is no URL to the parser: its tabs and newlines end it, as in prose
      const after = pick(AFTER);
      const url = (/[\t\n]/.test(value) ? pick(URLS.slice(0, 4)) : pick(URLS)) + value + after;
      if (host === null || /(^|\.)\.|\.$/.test(host)) {
        // no host: the value adds no destination beyond the URL's own
        // (only where the text holds no other: a port, an address or a public name the scan reads
        // anyway, or a newline or space the whole string's decoding (arguments.ts) puts in its text,
        // where `\\docs x` reads as prose does; in text, `//a.example.com&b=2` has the host
        // `a.example.com&b=2`, as before)
        if (user === "" && !after.includes("&") && ["docs", "a.example.com", "b.example.com"].includes(h) && !/:8080|%0A|%09|%00|%20/i.test(value)) {
          if (refused(url, patterns("*.example.com", "a.example.com"))) throw new Error(`${JSON.stringify(url)} names no other host, but the scan found ${JSON.stringify(findDestinations(url))}`);
        }
        continue;
      }
      checked++;
      const allow = ALL.filter((p) => !destinationAllowed(`http://${host}/`, [p]));
      if (!refused(url, allow)) throw new Error(`${JSON.stringify(url)} redirects to ${host}, but the scan found only ${JSON.stringify(findDestinations(url))}`);
    }
    expect(checked).toBeGreaterThan(8_000);
  });
});

describe("hostile input", () => {
  const M = 1 << 20;
  const cases: Record<string, string> = {
    "nested redirect targets": `https://a.example.com/?${"n=//a?".repeat(M / 6)}`,
    "targets with no ampersand": `https://a.example.com/?n=//${"a=//a".repeat(M / 5)}`,
    "leads that end in no slash": `https://a.example.com/?${"n=+ %20%09".repeat(M / 10)}`,
    "one long encoded target": `https://a.example.com/?n=%2F%2F${"%61".repeat(M / 3)}`,
    "equals signs": `https://a.example.com/?${"=".repeat(M)}`,
    "a path whose query is all targets": `/x?${"n=//a&".repeat(M / 6)}`,
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`1 MB of ${name} scans in linear time`, () => {
      scanDestinations({ url: text }, new Set()); // the test timeout guards linear time (bench/ measures speed)
    }, 60_000);
  }
});
