/**
 * Inside a URL the scanner reports, each path segment and each query or fragment value is read,
 * decoded once, as a string argument is (url-parts.ts; checks.md step 4): a mail, webhook or proxy
 * API takes its destination there, and an open redirect resolves `http:evil.example` (a special
 * scheme without `//`) to that host. A path segment counts only what marks itself as a host: a
 * file's name is no destination there. `user@host:port/path` is a URL to `host` without its
 * scheme, which an address on the allow-list does not allow. Outside audit 18, F1, F2 and F4.
 */
import { describe, expect, it } from "vitest";
import { destinationAllowed, findDestinations, parseDestinationPattern, scanDestinations } from "../worker/portable/engine/destinations/index.js";
import type { DestinationPattern } from "../worker/portable/engine/catalogue/types.js";

const patterns = (...ps: string[]): DestinationPattern[] => ps.map((p) => parseDestinationPattern(p)!);
const refused = (value: string, allow: readonly DestinationPattern[]): boolean =>
  scanDestinations({ url: value }, new Set()).some((d) => !destinationAllowed(d, allow));
const API = patterns("api.example.com");

/** One case per URL: it holds that destination, and is refused under `api.example.com` alone. */
function refusedHolding(reached: readonly [string, string][]): void {
  for (const [url, dest] of reached) {
    it(`${url} holds ${dest}: refused under api.example.com`, () => {
      expect(findDestinations(url)).toContain(dest);
      expect(refused(url, API)).toBe(true);
    });
  }
}

describe("an open redirect's target without `//` (F1)", () => {
  for (const value of ["http:evil.test", "http%3Aevil.test", "http:/evil.test", "http:intranet", "ws:intranet", "ftp:evil.test", "http:%5C%5Cevil.test", "HTTP:evil.test"]) {
    for (const url of [`https://api.example.com/redirect?to=${value}`, `https://api.example.com/redirect#to=${value}`, `https://api.example.com/r?a=1&to=${value}&b=2`]) {
      it(`${url} is refused under api.example.com`, () => expect(refused(url, API)).toBe(true));
    }
  }
  it("reports the target as the server decodes it", () => {
    expect(findDestinations("https://api.example.com/redirect?to=http%3Aevil.test")).toContain("http:evil.test");
  });
  it("a special scheme's target is one whatever scheme the URL has (fail closed)", () => {
    expect(findDestinations("https://api.example.com/r?to=https:evil.test")).toContain("https:evil.test");
  });
});

describe("addresses, IPs and hosts in a URL's query or path (F2)", () => {
  const reached: [string, string][] = [
    ["https://api.example.com/send?to=bob@evil.com", "bob@evil.com"],
    ["https://api.example.com/send?to=bob%40evil.com", "bob@evil.com"],
    ["https://api.example.com/send?to=mailto:bob@evil.com", "mailto:bob@evil.com"],
    ["https://api.example.com/send?to=mailto%3Abob%40evil.com", "mailto:bob@evil.com"],
    ["https://api.example.com/send?to=x@10.0.0.1", "x@10.0.0.1"],
    ["https://api.example.com/proxy?host=169.254.169.254", "169.254.169.254"],
    ["https://api.example.com/proxy?host=evil.com:8080", "evil.com:8080"],
    ["https://api.example.com/proxy?host=evil.com", "evil.com"],
    ["https://api.example.com/proxy?evil.com", "evil.com"],
    ["https://api.example.com/send/bob@evil.com", "bob@evil.com"],
    ["https://api.example.com/proxy/169.254.169.254/latest", "169.254.169.254"],
    ["https://api.example.com/proxy/evil.com:8080/x", "evil.com:8080"],
    ["https://api.example.com/send?to=a%2Cb+%3Cbob%40evil.com%3E", "bob@evil.com"],
    ["api.example.com/send?to=bob@evil.com", "bob@evil.com"],
  ];
  refusedHolding(reached);
  it("allowed when what the parts hold is allowed", () => {
    expect(refused("https://api.example.com/send?to=receipts@example.com", patterns("api.example.com", "receipts@example.com"))).toBe(false);
    expect(refused("https://api.example.com/search?q=api.example.com&page=2", API)).toBe(false);
  });
  it("what is no destination stays none: file names in a path, scoped packages, words, versions", () => {
    for (const url of [
      "https://api.example.com/files/README.md",
      "https://api.example.com/src/main.py?ref=v1.2.3",
      "https://api.example.com/package/@scope/name",
      "https://api.example.com/@40.7,-74.0,15z",
      "https://api.example.com/v1.2/x?q=hello+world&page=2#section-2.1",
      "https://api.example.com/x?path=/docs/a&q=a//b",
    ]) {
      expect(findDestinations(url), url).toEqual([url]);
    }
  });
  it("a URL in a part of a URL in a part… past three levels is a destination as it stands (fail closed)", () => {
    let url = "bob@evil.com";
    for (let i = 0; i < 6; i++) url = `https://api.example.com/r?to=${encodeURIComponent(url)}`;
    expect(refused(url, API)).toBe(true);
    // three levels are read through
    let three = "bob@evil.com";
    for (let i = 0; i < 3; i++) three = `https://api.example.com/r?to=${encodeURIComponent(three)}`;
    expect(findDestinations(three)).toContain("bob@evil.com");
  });
  it("many parts read once each: one find per part, the list bounded", () => {
    const url = "https://api.example.com/send?" + Array.from({ length: 3000 }, (_, i) => `to=u${i}@evil.com`).join("&");
    const found = findDestinations(url);
    expect(found[1]).toBe("u0@evil.com");
    expect(found.at(-1)).toBe("(more destinations…)");
  });
});

describe("an address with a port or a path is a URL to its host (F4)", () => {
  const mail = patterns("receipts@example.com", "*@corp.example.com");
  for (const value of ["receipts@example.com:8080/steal?d=1", "receipts@example.com/steal?d=1", "receipts@example.com:25", "bob@corp.example.com:8443/x"]) {
    it(`${value} is refused under address entries`, () => {
      expect(findDestinations(value)[0]).toBe(value);
      expect(refused(value, mail)).toBe(true);
    });
  }
  it("an address in prose, before punctuation, is still an address", () => {
    for (const text of ["did you mail receipts@example.com?", "write receipts@example.com: now", "bob@corp.example.com.", "(receipts@example.com)"]) {
      expect(refused(text, mail), text).toBe(false);
    }
  });
  it("a host entry allows it as the URL it is", () => {
    expect(refused("receipts@example.com:8080/x", patterns("example.com"))).toBe(false);
  });
});

describe("the parts of a URL with a query, a fragment, JSON or UTF-8 escapes (outside audit 19, F1–F4)", () => {
  const API = patterns("api.example.com", "github.com");
  it("a query does not stop the path from being read as a path (F1)", () => {
    for (const url of [
      "https://api.example.com/send/bob@evil.example?x=1",
      "https://api.example.com/proxy/169.254.169.254/latest/meta-data?x=1",
      "https://api.example.com/proxy/intranet2:8080?x=1",
      "https://api.example.com/r/http:intranet2?x=1",
      "https://api.example.com/proxy/[::1]#top",
    ]) {
      expect(refused(url, API), url).toBe(true);
    }
  });
  it("nor makes the path a query value: a file's name before `#` or a bare query is none (F2)", () => {
    for (const url of ["https://github.com/o/r/blob/main/README.md#L10", "https://github.com/o/r/blob/main/setup.py#L10", "https://api.example.com/report.zip#page=2", "https://api.example.com/a.md?raw"]) {
      expect(refused(url, API), url).toBe(false);
    }
  });
  it("a JSON body in a query value is read as its data, escaped or not (F3)", () => {
    for (const body of ['{"next":"//intranet2/x"}', '{"next":"\\u002f\\u002fintranet2/x"}', '{"to":"bob\\u0040intranet2"}', '{"u":"evil\\u002eexample"}']) {
      for (const url of [`https://api.example.com/x?body=${body}`, `https://api.example.com/x?body=${encodeURIComponent(body)}`]) {
        expect(refused(url, API), url).toBe(true);
      }
    }
    expect(refused('https://api.example.com/x?body={"ok":"fine","n":1}', API)).toBe(false);
  });
  it("UTF-8 escapes are decoded: full-width `＠ ： ／` are what they map to (F4)", () => {
    for (const url of ["https://api.example.com/x?to=bob%EF%BC%A0evil.example", "https://api.example.com/x?to=http%EF%BC%9A//intranet2/x", "https://api.example.com/intranet2%EF%BC%9A8080"]) {
      expect(refused(url, API), url).toBe(true);
    }
  });
});

describe("a query parameter's name is read for what marks itself as a host (outside audit 19, F13)", () => {
  const reached: [string, string][] = [
    ["https://api.example.com/send?bob@evil.example=1", "bob@evil.example"],
    ["https://api.example.com/send?to[bob@evil.example]=1", "bob@evil.example"],
    ["https://api.example.com/send?to%5Bbob%40evil.example%5D=1", "bob@evil.example"],
    ["https://api.example.com/proxy?169.254.169.254=x", "169.254.169.254"],
    ["https://api.example.com/r?a=1&http://evil.example/=x#frag", "http://evil.example/"],
    ["https://api.example.com/r#bob@evil.example=1", "bob@evil.example"],
  ];
  refusedHolding(reached);
  it("names that only look like hosts once dotted stay none: a name is read for what marks itself", () => {
    for (const url of ["https://api.example.com/search?sort.by=date&page.size=10", "https://api.example.com/x?order.id=5&filter[status]=open", "https://api.example.com/x?utm_source=google&a+b=c"]) {
      expect(findDestinations(url), url).toEqual([url]);
    }
  });
});
