/**
 * A value read percent-decoded (checks.md step 4): a URL or an address written with `%3A%2F%2F`
 * or `%40` is what a redirect target in a query, or a form-encoded request body, holds; the server
 * decodes it and sends there.
 */
import { describe, expect, it } from "vitest";
import { destinationAllowed, findDestinations, parseDestinationPattern } from "../worker/portable/engine/destinations/index.js";

const allow = ["*.example.com", "*@*.example.com"].map((p) => parseDestinationPattern(p)!);
const refused = (text: string): boolean => findDestinations(text).some((d) => !destinationAllowed(d, allow));

describe("percent-encoded URLs and addresses", () => {
  const cases: readonly (readonly [string, string])[] = [
    ["https://a.example.com/login?next=https%3A%2F%2Fevil.net%2Fx", "https://evil.net/x"],
    ["https://a.example.com/login?next=https%3A%2F%2Fintranet%2Fx", "https://intranet/x"],
    ["callback=https%3A%2F%2Fa.example.com%2Eintranet%2Fx&id=1", "https://a.example.com.intranet/x&id=1"],
    ["to=spy%40intranet&subject=hi", "spy@intranet"],
    ["https://a.example.com/r?u=https%253A%252F%252Fintranet%252F", "https://intranet/"], // encoded twice
  ];
  for (const [value, decoded] of cases) {
    it(`${value} holds ${decoded}: refused under *.example.com`, () => {
      expect(findDestinations(value)).toContain(decoded);
      expect(refused(value)).toBe(true);
    });
  }
  it("an encoded URL to an allowed host is allowed", () => {
    expect(refused("https://a.example.com/login?next=https%3A%2F%2Fb.example.com%2Fhome")).toBe(false);
    expect(refused("to=ana%40b.example.com")).toBe(false);
  });
  it("other escapes add nothing", () => {
    expect(findDestinations("https://a.example.com/files/a%2Fb%20c")).toEqual(["https://a.example.com/files/a%2Fb%20c"]);
    expect(findDestinations("50%25 off, 100%")).toEqual([]);
  });
});

describe("a value a server decodes: an escape of a host's bounds (outside audit F1, F6, F9)", () => {
  // each as a whole value, in prose, or in a JSON body: what it decodes to names a host
  const cases: readonly (readonly [string, string])[] = [
    ["%5C%5Cevil.com", "\\\\evil.com"],
    ["see %5C%5Cevil.com/x", "\\\\evil.com/x"],
    ["%20evil.com", "evil.com"],
    ["%0Aevil.com", "evil.com"],
    ["%7Cevil.com", "evil.com"],
    ["/%2Fintranet", "//intranet"],
    ["%2F/intranet", "//intranet"],
    ["%5C\\intranet", "\\\\intranet"],
    ["%09//intranet", "//intranet"],
    ["/%09/intranet", "//intranet"],
    ["//intranet%2Fx", "//intranet/x"],
    ["%5C%5Cintranet%5Cx", "\\\\intranet\\x"],
    ['{"next":"%5C%5Cevil.com"}', "\\\\evil.com"],
    ['{"next":"%2F%2Fintranet/x"}', "//intranet/x"],
    ['["%2F%2Fintranet"]', "//intranet"],
  ];
  for (const [value, decoded] of cases) {
    it(`${JSON.stringify(value)} holds ${JSON.stringify(decoded)}`, () => {
      expect(findDestinations(value)).toContain(decoded);
      expect(refused(value)).toBe(true);
    });
  }
  it("escapes that bound no host add nothing", () => {
    for (const v of ["a%20b", "order%204411", "50% off", "100%25 sure", "%E2%82%AC 40", "files%2Freport"]) expect(findDestinations(v), v).toEqual([]);
  });
});

describe("the unspecified IPv6 address in brackets is a host, as 0.0.0.0 is (outside audit F2)", () => {
  it("`[::]`, `[::]:80`, `a@[::]` are destinations; a bare `::` (code, prose) is not", () => {
    for (const v of ["[::]", "[::]:80", "[::]:8080/admin", "fetch [::]:6379"]) expect(refused(v), v).toBe(true);
    expect(findDestinations("a@[::]")).toEqual(["[::]"]);
    expect(findDestinations("::")).toEqual([]);
    expect(findDestinations("std::vector")).toEqual([]);
  });
});

describe("hostile input", () => {
  const M = 1 << 20;
  const cases: Record<string, string> = {
    "encoded scheme separators": "a%3A%2F%2F".repeat(M / 10),
    "escapes of escapes": `%${"25".repeat(M / 2)}3A%2F%2Fa`,
    "encoded at signs": "a%40".repeat(M / 4),
    "broken escapes": "%3A%2F%2F%E0%A4%".repeat(M / 16),
  };
  for (const [name, text] of Object.entries(cases)) {
    it(`1 MB of ${name} scans in linear time`, () => {
      findDestinations(text); // the test timeout guards linear time (bench/ measures speed)
    }, 60_000);
  }
});
