/**
 * `sends_out` allow-list entries (checks.md step 4, interfaces.md "Catalogue"), parsed once at
 * load by the one host parser (host.ts). Accepted forms:
 *   `*`                    any destination
 *   `*.example.com`        a host glob: any host under example.com (not example.com itself)
 *   `api.example.com`      one host name (lowercase punycode, a trailing dot dropped)
 *   `10.0.0.1`             an IPv4 address, as a dotted quad
 *   `::1`, `[2001:db8::1]` an IPv6 address (stored in RFC 5952 form, without brackets)
 *   `receipts@example.com` one e-mail address (lowercased)
 *   `*@example.com`        any address at that domain (the domain may itself be `*.example.com`)
 * Anything else (a URL, a port, a path, a `*` in the middle, an IPv4 written another way than its
 * dotted quad) is a problem with a hint.
 */
import type { DestinationPattern } from "../catalogue/types.js";
import { hostKind, hostnameOf, parseHost } from "./host.js";

export type Parsed = { ok: true; pattern: DestinationPattern } | { ok: false; message: string; hint: string };

/** What a catalogue author writes in a pattern's host: no `%`, spaces, `*` or URL punctuation. */
const NOT_IN_PATTERN = /[\s/?#:@\\[\]%*]/;
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;
const LOCAL_PART = /^[^\s@*"(),:;<>[\]\\]+$/;
const SCHEME_URL = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A host as a pattern writes it, normalised; null when it is not one (see `hostProblem` for why). */
export function hostPattern(text: string): string | null {
  if (text.includes(":")) {
    const host = parseHost(text);
    return host !== null && hostKind(host) === "ipv6" ? host : null;
  }
  if (text === "" || NOT_IN_PATTERN.test(text)) return null;
  const host = parseHost(text);
  if (host === null) return null;
  if (hostKind(host) === "ipv4") return host === text.replace(/\.$/, "") ? host : null; // only its dotted quad
  return host.length <= 253 && host.split(".").every((l) => LABEL.test(l)) ? host : null;
}

/** `*.name` or a host pattern, normalised; null when neither (no globs over IP addresses). */
function hostGlob(text: string): string | null {
  if (!text.startsWith("*.")) return hostPattern(text);
  const host = hostPattern(text.slice(2));
  return host === null || hostKind(host) !== "name" ? null : `*.${host}`;
}

export function parsePattern(raw: string): Parsed {
  const s = raw.trim();
  const bad = (message: string, hint: string): Parsed => ({ ok: false, message, hint });
  if (s === "*") return { ok: true, pattern: { kind: "any" } };
  if (s === "") return bad("an empty `sends_out` entry", 'write a host (`api.example.com`), a host glob (`*.example.com`), an address, or `"*"`');
  if (SCHEME_URL.test(s)) return bad(`\`${raw}\` is a URL, not a destination`, `write the host alone: \`${hostnameOf(s.replace(SCHEME_URL, "http://")) ?? "api.example.com"}\``);
  const at = s.lastIndexOf("@");
  if (at >= 0) {
    const local = s.slice(0, at);
    const domain = s.slice(at + 1);
    if (local === "*") {
      const glob = hostGlob(domain);
      return glob === null ? bad(`\`${raw}\` is not an e-mail address or \`*@domain\``, "write `name@example.com` or `*@example.com`") : { ok: true, pattern: { kind: "address_domain", glob } };
    }
    const host = hostPattern(domain);
    if (host === null || !LOCAL_PART.test(local) || local.startsWith(".") || local.endsWith(".") || local.includes("..")) {
      return bad(`\`${raw}\` is not an e-mail address`, "write `name@example.com`, or `*@example.com` for any address there");
    }
    return { ok: true, pattern: { kind: "address", address: `${local.toLowerCase()}@${host}` } };
  }
  const glob = hostGlob(s);
  if (glob !== null) return { ok: true, pattern: { kind: "host", glob } };
  return bad(...hostProblem(raw, s));
}

/** Why `s` (no `@`, not a URL) is not a host pattern: a message and a hint. */
function hostProblem(raw: string, s: string): [string, string] {
  const port = /^(\[[^\]]*\]|[^:]+):\d+$/.exec(s);
  if (port) return [`\`${raw}\` has a port`, `ports are not part of a destination: write \`${port[1]}\``];
  if (s.includes(":")) return [`\`${raw}\` is not a valid IPv6 address`, "write it like `2001:db8::1`"];
  if (s.includes("/")) return [`\`${raw}\` has a path`, `write the host alone: \`${s.split("/")[0]}\``];
  if (s.includes("*")) return [`\`${raw}\`: \`*\` may only start a host glob`, 'write `*.example.com`, or `"*"` for any destination'];
  const host = s.startsWith("*.") ? null : parseHost(s);
  if (host !== null && hostKind(host) === "ipv4") return [`\`${raw}\` is the IPv4 address ${host} written another way`, `write its dotted quad: \`${host}\``];
  return [`\`${raw}\` is not a host name, an IP address or an e-mail address`, "write `api.example.com`, `*.example.com`, `10.0.0.1` or `name@example.com`"];
}

/** One `sends_out` entry as a pattern, or null when it is none (`parsePattern` says why). */
export function parseDestinationPattern(text: string): DestinationPattern | null {
  const r = parsePattern(text);
  return r.ok ? r.pattern : null;
}
