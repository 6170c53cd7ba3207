/**
 * Issue 9, "Egress the scanner misses": generated host forms, each cross-checked with `new URL()`
 * (what a tool's fetch() resolves), then held to the rule of checks.md step 4 — every string a URL
 * parser, a mailer or a resolver would turn into a host is a destination, compared by its parsed
 * host. No published copy of the web-platform-tests URL corpus is on npm (`wpt-url-test-data` and
 * the like do not exist; whatwg-url ships none), so the host forms of the WHATWG host parser are
 * generated here: IPv4 in every radix and length, percent-escapes, ideographic dots, IPv4-mapped
 * IPv6, and names without a public TLD behind a scheme, a port, an `@` or `\\`.
 */
import { describe, expect, it } from "vitest";
import { destinationAllowed, findDestinations, parseDestinationPattern, parseHost } from "../worker/portable/engine/destinations/index.js";
import { ajvCompiler } from "../cli/sdk/ajv-compiler.js";
import { loadCatalogue } from "../worker/portable/engine/catalogue/index.js";
import { prng } from "./helpers/prng.js";

const rand = prng(9);
const int = (n: number): number => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
const hostname = (url: string): string => new URL(url).hostname.replace(/\.$/, "").replace(/^\[(.*)\]$/, "$1");
const allowOnly = (p: string) => [parseDestinationPattern(p)!];

/** A part of an IPv4 address written in a radix a URL parser reads: decimal, 0-octal or 0x-hex. */
function inRadix(n: number): string {
  switch (int(3)) {
    case 0: return String(n);
    case 1: return n === 0 ? "0" : "0" + n.toString(8);
    default: return "0x" + (rand() < 0.5 ? n.toString(16) : n.toString(16).toUpperCase());
  }
}

/** An IPv4 address as 1 to 4 parts, the last part carrying the remaining bytes (WHATWG IPv4 parser). */
function ipv4Form(bytes: readonly number[], parts: number): { text: string; hex: boolean } {
  const lead = bytes.slice(0, parts - 1);
  const rest = bytes.slice(parts - 1).reduce((a, b) => a * 256 + b, 0);
  const written = [...lead, rest].map(inRadix);
  return { text: written.join(rand() < 0.2 ? "。" : "."), hex: written.some((w) => /^0x/i.test(w)) };
}

describe("IPv4 in every form the host parser reads", () => {
  const cases = Array.from({ length: 400 }, () => {
    const bytes = [1 + int(254), int(256), int(256), int(256)];
    return { dotted: bytes.join("."), ...ipv4Form(bytes, 1 + int(4)), parts: 0 };
  }).map((c) => ({ ...c, parts: c.text.split(/[.。]/).length }));

  it("the generator writes what new URL() reads as that address", () => {
    for (const c of cases) expect(hostname(`http://${c.text}/`), c.text).toBe(c.dotted);
  });

  it("behind a scheme, an `@` or `\\\\`: a destination, allowed only by its own dotted quad", () => {
    for (const c of cases) {
      for (const text of [`http://${c.text}/x`, `ops@${c.text}`, `\\\\${c.text}\\share`]) {
        const [found, ...more] = findDestinations(`send to ${text} now`);
        expect(found, text).toBe(text);
        expect(more).toEqual([]);
        expect(destinationAllowed(found!, allowOnly(c.dotted)), text).toBe(!text.includes("@"));
        expect(destinationAllowed(found!, allowOnly(c.dotted === "10.0.0.1" ? "10.0.0.2" : "10.0.0.1")), text).toBe(false);
      }
    }
  });

  it("bare: four parts or a hex part are an address; a one- to three-part decimal is a number", () => {
    for (const c of cases) {
      const found = findDestinations(`go to ${c.text} now`);
      if (c.parts === 4 || c.hex) {
        expect(found, c.text).toEqual([c.text]);
        expect(destinationAllowed(c.text, allowOnly(c.dotted))).toBe(true);
      } else {
        expect(found, c.text).toEqual([]);
      }
    }
  });

  it("with a port: two parts or more, a hex part, or one number past 0.255.255.255 (`12:30` is a time)", () => {
    for (const c of cases) {
      const text = `${c.text}:8080`;
      expect(findDestinations(text), text).toEqual(c.parts >= 2 || c.hex || !c.dotted.startsWith("0.") ? [text] : []);
    }
  });

  it("IPv4-mapped IPv6 is a destination that reaches its IPv4 address", () => {
    for (const c of cases.slice(0, 100)) {
      expect(hostname(`http://[::ffff:${c.dotted}]/`)).toMatch(/^::ffff:[0-9a-f]+:[0-9a-f]+$/);
      for (const text of [`::ffff:${c.dotted}`, `[::ffff:${c.dotted}]`, `http://[::ffff:${c.dotted}]/`]) {
        expect(findDestinations(`at ${text} now`), text).toEqual([text]);
        expect(destinationAllowed(text, allowOnly(c.dotted)), text).toBe(true);
        expect(destinationAllowed(text, allowOnly("192.0.2.1")), text).toBe(false);
      }
    }
  });
});

describe("percent-escaped and IDNA-dotted names", () => {
  const DOTS = ["%2E", "%2e", "%E3%80%82", "。", "．"];
  const escape = (name: string): string =>
    [...name].map((ch) => (ch === "." ? pick(DOTS) : rand() < 0.3 ? "%" + ch.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase() : ch)).join("");
  const names = Array.from({ length: 300 }, (_, i) => {
    const label = Array.from({ length: 3 + int(8) }, () => pick([..."abcdefghijklmnopqrstuvwxyz0123456789"])).join("");
    return pick([`${label}.evil.com`, `${label}${i}.com`, `a.${label}.example.com`, `${label}.org`]);
  });

  it("the generator writes what new URL() reads as that name", () => {
    for (const name of names) {
      const text = escape(name);
      expect(hostname(`http://${text}/`), text).toBe(name);
      expect(parseHost(text), text).toBe(name);
    }
  });

  it("bare, with a path: a destination, compared decoded against the allow-list", () => {
    const allow = allowOnly("*.example.com");
    for (const name of names) {
      const text = `${escape(name)}/steal?d=1`;
      const found = findDestinations(`fetch ${text}`);
      expect(found.length, text).toBeGreaterThan(0);
      expect(found.every((d) => destinationAllowed(d, allow)), text).toBe(name.endsWith(".example.com"));
    }
  });
});

describe("names without a public TLD, marked as an address", () => {
  const labels = Array.from({ length: 200 }, () => Array.from({ length: 2 + int(10) }, () => pick([..."abcdefghijklmnopqrstuvwxyz-_0123456789"])).join(""))
    .filter((l) => /^[a-z]/.test(l) && !/[-_]$/.test(l));

  it("behind a scheme, a port, an `@` or `\\\\`: a destination; bare: a word", () => {
    for (const l of labels) {
      expect(hostname(`http://${l}:8080/`)).toBe(l);
      for (const text of [`http://${l}/x`, `${l}:8080`, `root@${l}`, `\\\\${l}\\share`]) {
        expect(findDestinations(`use ${text} now`), text).toEqual([text]);
        expect(destinationAllowed(text, allowOnly(`*.${l}.example`)), text).toBe(false);
      }
      expect(findDestinations(`use ${l} now`)).toEqual(l === "localhost" ? ["localhost"] : []);
    }
  });

  it("an allow-list naming the host allows it in each form", () => {
    expect(destinationAllowed("\\\\fileserver\\share", allowOnly("fileserver"))).toBe(true);
    expect(destinationAllowed("intranet:8080", allowOnly("intranet"))).toBe(true);
    expect(destinationAllowed("root@intranet", allowOnly("*@intranet"))).toBe(true);
    expect(destinationAllowed("root@intranet", allowOnly("intranet"))).toBe(false); // a host does not allow addresses
  });
});

describe("lookup_args on a tool that declares sends_out", () => {
  it("exempt nothing: the allow-list covers every argument", () => {
    const catalogue = loadCatalogue(
      [
        "tools:",
        "  - {name: send_receipt, writes: true, sends_out: [receipts@example.com], lookup_args: [to], args: {type: object, properties: {to: {type: string}}}}",
        "  - {name: find_customer, lookup_args: [email], args: {type: object, properties: {email: {type: string}}}}",
      ].join("\n"),
      { schemaCompiler: ajvCompiler },
    );
    const tool = (name: string) => catalogue.tools.get(name)!;
    expect([...tool("send_receipt").lookupArgs]).toEqual([]);
    expect([...tool("find_customer").lookupArgs]).toEqual(["email"]);
  });
});
