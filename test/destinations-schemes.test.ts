/**
 * Step 4 against the URL parser a tool will use: for a string that `new URL()` reads as a URL with a
 * host, the scan must report a destination naming that host, so that an allow-list that does not
 * cover the host refuses. Strings are built from URL pieces with the characters a parser drops or
 * reads past (tabs, newlines, spaces, controls) and the ones that move a host (`@`, `\`, `%`
 * escapes) in random places. A second generator beside destinations-url-parser.test.ts's, with
 * other pieces (schemes spelt otherwise, full-width and ideographic dots, soft hyphens): it found
 * schemes ending in `.` or `+`. Seeded, so a failure reproduces; each failing string found is kept
 * in the table below as a fixed case.
 */
import { describe, expect, it } from "vitest";
import { destinationAllowed, findDestinations, parseDestinationPattern, scanDestinations } from "../worker/portable/engine/destinations/index.js";
import { parseHost, tidy } from "../worker/portable/engine/destinations/host.js";
import { prng } from "./helpers/prng.js";

const ALLOWED = [parseDestinationPattern("example.com")!, parseDestinationPattern("*.example.com")!];
const SPECIAL = new Set(["http:", "https:", "ws:", "wss:", "ftp:"]);

/** The host a URL parser connects to for `s`, when it reads one. */
function parserHost(s: string): string | null {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return null;
  }
  if (u.hostname === "") return null;
  return SPECIAL.has(u.protocol) ? tidy(u.hostname) : parseHost(u.hostname);
}

const underExample = (h: string) => h === "example.com" || h.endsWith(".example.com");

/** Does step 4 refuse `s` under `sends_out: [example.com, *.example.com]`? */
function refused(s: string): boolean {
  return scanDestinations({ to: s }, new Set()).some((d) => !destinationAllowed(d, ALLOWED));
}

const FIXED: readonly string[] = [
  "https://a.example.com\t.intranet/",
  "https://a.example.com\n.intranet/",
  "https://a.example.\ncom.evil.net/",
  "https://a.example.com\r\n.evil.net",
  "https://exa\tmple.com.evil.net",
  "ht\ntps://evil.net",
  " \u0001https://a.example.com\t.evil.net/x \n",
  "wss://a.example.com\t.intranet:8443/",
  "foo://a.example.com\n.intranet/x",
  "wss.://intranet", // a scheme ending in a dot: no word of the scan ran into its colon
  "fooa.example.com..://intranet\t", // and one whose start the scan had reported as a host
];

describe("step 4 reads a whole-string URL as a URL parser does", () => {
  for (const s of FIXED) {
    it(JSON.stringify(s), () => {
      const host = parserHost(s);
      expect(host).not.toBeNull();
      expect(underExample(host!)).toBe(false);
      expect(refused(s)).toBe(true);
    });
  }

  it("a URL that a line break ends in prose is not read on into the next line", () => {
    expect(scanDestinations({ body: "see https://a.example.com\nThanks, Ana" }, new Set()).every((d) => destinationAllowed(d, ALLOWED))).toBe(true);
    // the whole string is no URL to a parser (a space in the host): nothing more to report
    expect(scanDestinations({ body: "https://a.example.com\nThanks, Ana" }, new Set()).every((d) => destinationAllowed(d, ALLOWED))).toBe(true);
  });

  it("finds a scheme that ends in `.` or `+` in text too", () => {
    expect(findDestinations("see x+://intranet/a")).toEqual(["x+://intranet/a"]);
    expect(findDestinations("HTTP.://127.1")).toEqual(["HTTP.://127.1"]);
  });

  const M = 1 << 20;
  for (const [name, text] of Object.entries({
    "schemes ending in a dot": "a.:".repeat(M / 3),
    "scheme-relative after a dotted scheme": "a.://".repeat(M / 5),
    "hosts, each ending in a dotted scheme": "a.example.com..://".repeat(M / 18),
    "one long dotted run before a colon": `${"a.".repeat(M / 2)}:`,
  })) {
    it(`1 MB of ${name} is read in linear time`, () => {
      // guarded by the timeout (a super-linear read of 1 MB takes minutes); speed lives in bench/
      findDestinations(text);
    }, 60_000);
  }

  const SCHEMES = ["https://", "http://", "HTTP://", "wss://", "ftp://", "foo://", "https:", "http:\\\\", "ht\ntps://", "https:/"];
  const HOSTS = ["a.example.com", "example.com", "evil.net", "intranet", "127.1", "0x7f.1", "[::1]", "bücher.de", "exa\tmple.com", "a.example.com%2eevil.net"];
  const PIECES = ["%2F", "%00", "[", "]", "\u3002", "\uff0e", "\uff20", "\uff03", "%252e", "..", "a.example.com@", "\u00ad", "\u200b", "EXAMPLE.COM", "example.com.", "\t", "\n", "\r", " ", "\u0000", "\u001f", "@", "\\", "/", "%40", "%2e", ".", ".intranet", ".evil.net", "evil.net", ":8080", ":", "?q=1", "#f", "user:pw@", "com", "a.example.com"];

  it("holds for 20,000 random strings built from URL pieces", () => {
    const rand = prng(20261204);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
    const misses: string[] = [];
    let urls = 0;
    for (let i = 0; i < 20_000; i++) {
      let s = (rand() < 0.3 ? pick(["\t", " ", "\n", "\u0001"]) : "") + pick(SCHEMES) + pick(HOSTS);
      const edits = Math.floor(rand() * 4);
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(rand() * (s.length + 1));
        s = s.slice(0, at) + pick(PIECES) + s.slice(at);
      }
      if (rand() < 0.5) s += pick(["/x", "/", "?a=b", "#f", "\n", " ", "\t", ""]);
      const host = parserHost(s);
      // a host with an empty label (`..`, `example.com..`) is no name a resolver looks up
      if (host === null || underExample(host) || /(^|\.)\.|\.$/.test(host)) continue;
      urls++;
      if (!refused(s)) misses.push(s);
    }
    expect(urls).toBeGreaterThan(3_000);
    expect(misses.slice(0, 20)).toEqual([]);
  });
});
