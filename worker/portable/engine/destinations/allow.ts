/**
 * The `sends_out` allow-list (checks.md step 4): holding a destination the scanner found against
 * the patterns (patterns.ts) a tool declares.
 *
 * Hosts are compared as the one host parser (host.ts) reads them, in the destination and in the
 * pattern alike: so `https://example.com@evil.com/` is `evil.com`, `BÜCHER.de.` is
 * `xn--bcher-kva.de`.
 */
import type { DestinationPattern } from "../catalogue/types.js";
import { hostnameOf, mappedIPv4, parseHost, tidy } from "./host.js";
import { hostPattern } from "./patterns.js";
import { CUT } from "./found.js";

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const SPECIAL = new Set(["http", "https", "ws", "wss", "ftp"]);
const TWO_SLASHES = /^[/\\]{2}/;
const BARE_V6 = /^[0-9a-f:.]+(?:%[\w.~-]*)?$/i;
const AUTHORITY_END = /[/?#]/;
const PORT = /:\d*$/;

// ---------------------------------------------------------------------------------------------
// Matching

type Compiled =
  | { kind: "any" }
  | { kind: "host" | "address_domain"; exact: string | null; suffix: string | null }
  | { kind: "address"; address: string | null };

/** Patterns compiled once each (they are frozen catalogue objects): the hot path only compares. */
const compiledPatterns = new WeakMap<DestinationPattern, Compiled>();

function compiled(p: DestinationPattern): Compiled {
  let c = compiledPatterns.get(p);
  if (c !== undefined) return c;
  switch (p.kind) {
    case "any":
      c = { kind: "any" };
      break;
    case "host":
    case "address_domain": {
      const glob = p.glob.trim();
      if (glob.startsWith("*.")) {
        const host = hostPattern(glob.slice(2));
        c = { kind: p.kind, exact: null, suffix: host === null ? null : `.${host}` };
      } else {
        c = { kind: p.kind, exact: hostPattern(glob), suffix: null };
      }
      break;
    }
    case "address": {
      const at = p.address.lastIndexOf("@");
      const host = at > 0 ? hostPattern(p.address.slice(at + 1)) : null;
      c = { kind: "address", address: host === null ? null : `${p.address.slice(0, at).toLowerCase()}@${host}` };
      break;
    }
  }
  compiledPatterns.set(p, c);
  return c;
}

function hostMatches(c: { exact: string | null; suffix: string | null }, host: string): boolean {
  if (c.exact !== null) return host === c.exact;
  return c.suffix !== null && host.length > c.suffix.length && host.endsWith(c.suffix);
}

interface Address {
  local: string;
  domain: string;
}
/** What a destination sends to: hosts, addresses, or (an ambiguous string) both. */
interface Target {
  hosts: string[];
  addresses: Address[];
}
/** Before an `@`, these make a string read as a URL path by one tool, an address by another. */
const PATH_CHARS = /[/?#\\]/;
/** After an address's `@`, these make it a URL's authority and path instead. */
const URL_AFTER_AT = /[:/?#]/;

/**
 * May a tool with this allow-list send to `dest` (one string `scanDestinations` reported)?
 * `"*"` allows anything. A URL, a host or an IP is allowed when its host matches a host pattern;
 * an address (or every address of a `mailto:`, `to`/`cc`/`bcc` included) when it equals an
 * address pattern, ignoring case, or its domain matches an address-domain pattern. Hosts never
 * allow addresses, nor addresses hosts. A string one tool reads as a URL and another as an address
 * (`a.example.com/x@evil.com`) must be allowed both ways. What cannot be read is not allowed.
 */
export function destinationAllowed(dest: string, patterns: readonly DestinationPattern[]): boolean {
  for (const p of patterns) if (p.kind === "any") return true;
  if (dest.endsWith(CUT)) return false; // cut short, or the mark that more were not listed
  const target = readTarget(dest);
  if (target === null) return false;
  return target.hosts.every((h) => hostAllowed(h, patterns)) && target.addresses.every((a) => addressAllowed(a, patterns));
}

/** A host, or the IPv4 address an IPv4-mapped IPv6 host reaches (`[::ffff:10.0.0.1]`), under a host pattern. */
function hostAllowed(host: string, patterns: readonly DestinationPattern[]): boolean {
  if (underHostPattern(host, patterns)) return true;
  const v4 = mappedIPv4(host);
  return v4 !== null && underHostPattern(v4, patterns);
}

function underHostPattern(host: string, patterns: readonly DestinationPattern[]): boolean {
  for (const p of patterns) {
    const c = compiled(p);
    if (c.kind === "host" && hostMatches(c, host)) return true;
  }
  return false;
}

function addressAllowed(a: Address, patterns: readonly DestinationPattern[]): boolean {
  const whole = `${a.local}@${a.domain}`;
  for (const p of patterns) {
    const c = compiled(p);
    if (c.kind === "address" && c.address === whole) return true;
    if (c.kind === "address_domain" && hostMatches(c, a.domain)) return true;
  }
  return false;
}

/** What a reported destination names: a host, or the addresses it sends to; null if unreadable. */
function readTarget(dest: string): Target | null {
  const m = SCHEME.exec(dest);
  if (m) {
    const scheme = m[1]!.toLowerCase();
    const rest = dest.slice(m[0].length);
    if (scheme === "mailto") return mailtoAddresses(rest);
    if (SPECIAL.has(scheme) || TWO_SLASHES.test(rest)) return withRfc3986Host(urlHost(dest), rest);
    // otherwise `localhost:8080`, `example.com:8443/x`: a host and its port
  }
  if (TWO_SLASHES.test(dest)) return withRfc3986Host(urlHost(`http:${dest}`), dest);
  if (dest.startsWith("[")) return urlHost(`http://${dest}`);
  if (BARE_V6.test(dest) && dest.indexOf(":") !== dest.lastIndexOf(":")) {
    const zone = dest.indexOf("%");
    const v6 = zone >= 0 ? dest.slice(0, zone) : dest;
    const host = parseHost(v6);
    return host === null ? null : { hosts: [host], addresses: [] };
  }
  const at = dest.lastIndexOf("@");
  if (at >= 0) {
    const a = address(dest);
    // `user@host:port/path`: a URL to `host` without its scheme (scan.ts), no address
    if (a === null) return URL_AFTER_AT.test(dest.slice(at + 1)) ? urlHost(`http://${dest}`) : null;
    if (!PATH_CHARS.test(dest.slice(0, at))) return relayed(a);
    // `a.example.com/x@evil.com`: a URL to the first name, an address at the second; both
    const h = urlHost(`http://${dest}`);
    return h === null ? null : { hosts: h.hosts, addresses: [a] };
  }
  return urlHost(`http://${dest}`);
}

/**
 * WHATWG ends an authority at `\` in `https://a.example.com\@evil.com`; an RFC 3986 parser (many
 * HTTP clients) reads on to the `@` and connects to `evil.com`; so does one resolving
 * `//a.example.com\@evil.com/` against its base. Where the two differ, both hosts must be allowed.
 */
function withRfc3986Host(target: Target | null, rest: string): Target | null {
  if (target === null || !rest.startsWith("//")) return target;
  const auth = rest.slice(2).split(AUTHORITY_END, 1)[0]!;
  const at = auth.lastIndexOf("@");
  if (at < 0 && !auth.includes("\\")) return target;
  let host = auth.slice(at + 1);
  if (!host.startsWith("[")) host = host.replace(PORT, "");
  const other = hostnameOf(`http://${host}/`);
  if (other === null) return null;
  return other === target.hosts[0] ? target : { hosts: [...target.hosts, other], addresses: [] };
}

function urlHost(url: string): Target | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  // A non-special scheme's host is opaque (percent-encoded, case kept): read it as http does.
  const host = SPECIAL.has(u.protocol.slice(0, -1)) ? tidy(u.hostname) : parseHost(u.hostname);
  return host === null ? null : { hosts: [host], addresses: [] };
}

/** `local@domain`, the domain possibly `[10.0.0.1]` or `[IPv6:…]`; the local part lowercased. */
function address(text: string): Address | null {
  const at = text.lastIndexOf("@");
  if (at <= 0) return null;
  let domain = text.slice(at + 1);
  if (domain.startsWith("[") && domain.endsWith("]")) {
    domain = domain.slice(1, -1);
    if (/^ipv6:/i.test(domain)) domain = `[${domain.slice(5)}]`;
  }
  const host = parseHost(domain);
  return host === null ? null : { local: text.slice(0, at).toLowerCase(), domain: host };
}

/**
 * `evil%evil.example@corp.example.com`: a mail server that still honours the `%` relay hack sends
 * it on to `evil@evil.example`, so that address must be allowed too (outside audit 18, F5). A
 * local part whose last `%` is followed by no host is only an address.
 */
function relayed(a: Address): Target | null {
  const pct = a.local.lastIndexOf("%");
  if (pct <= 0) return { hosts: [], addresses: [a] };
  const on = address(`${a.local.slice(0, pct)}@${a.local.slice(pct + 1)}`);
  return on === null ? null : { hosts: [], addresses: [a, on] };
}

/** Every address a `mailto:` sends to: its path and its `to`, `cc` and `bcc` fields. */
function mailtoAddresses(rest: string): Target | null {
  const q = rest.indexOf("?");
  const lists = [q >= 0 ? rest.slice(0, q) : rest];
  if (q >= 0) {
    for (const field of rest.slice(q + 1).split("&")) {
      const eq = field.indexOf("=");
      let name: string;
      try {
        name = decodeURIComponent(eq >= 0 ? field.slice(0, eq) : field).toLowerCase();
      } catch {
        return null;
      }
      if (name === "to" || name === "cc" || name === "bcc") lists.push(eq >= 0 ? field.slice(eq + 1) : "");
    }
  }
  const addresses: Address[] = [];
  for (const list of lists) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(list);
    } catch {
      return null;
    }
    for (const part of decoded.split(",")) {
      const text = part.trim();
      if (text === "") continue;
      const a = address(text);
      if (a === null) return null;
      addresses.push(a);
    }
  }
  return addresses.length === 0 ? null : { hosts: [], addresses };
}
