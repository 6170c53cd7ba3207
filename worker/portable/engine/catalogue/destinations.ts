/**
 * `sends_out` allow-list entries, parsed once at load (checks.md step 4). Accepted forms:
 *   `*`                    any destination
 *   `*.example.com`        a host glob: any host under example.com (not example.com itself)
 *   `api.example.com`      one host name (lowercased, a trailing dot dropped)
 *   `10.0.0.1`             an IPv4 literal
 *   `::1`, `[2001:db8::1]` an IPv6 literal (stored in RFC 5952 form, without brackets)
 *   `receipts@example.com` one e-mail address (lowercased)
 *   `*@example.com`        any address at that domain (the domain may itself be `*.example.com`)
 * Anything else (a URL, a port, a `*` in the middle) is a problem with a hint.
 */
import type { DestinationPattern } from "./types.js";

export type Parsed = { ok: true; pattern: DestinationPattern } | { ok: false; message: string; hint: string };

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

function hostName(h: string): boolean {
  if (h.length === 0 || h.length > 253) return false;
  const labels = h.split(".");
  return labels.every((l) => LABEL.test(l)) && !/^[0-9.]+$/.test(h);
}

export function parseIPv4(s: string): string | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const parts = m.slice(1).map((x) => (x.length > 1 && x.startsWith("0") ? NaN : Number(x)));
  if (parts.some((n) => !(n >= 0 && n <= 255))) return undefined;
  return parts.join(".");
}

/** An IPv6 literal in RFC 5952 canonical text (lowercase, longest zero run compressed), or undefined. */
export function parseIPv6(input: string): string | undefined {
  let s = input.toLowerCase();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  if (!/^[0-9a-f:.]+$/.test(s) || s.length < 2) return undefined;
  const v4 = /(?:^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const ip = parseIPv4(v4[1]!);
    if (!ip) return undefined;
    const b = ip.split(".").map(Number);
    s = s.slice(0, s.length - v4[1]!.length) + ((b[0]! << 8) | b[1]!).toString(16) + ":" + ((b[2]! << 8) | b[3]!).toString(16);
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => (/^[0-9a-f]{1,4}$/.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...head, ...rest].some((n) => Number.isNaN(n))) return undefined;
  const total = head.length + rest.length;
  let groups: number[];
  if (halves.length === 2) {
    if (total > 7) return undefined;
    groups = [...head, ...new Array(8 - total).fill(0), ...rest];
  } else {
    if (total !== 8) return undefined;
    groups = head;
  }
  // longest run of ≥2 zero groups, first on a tie
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(":");
  return hex.slice(0, bestStart).join(":") + "::" + hex.slice(bestStart + bestLen).join(":");
}

/** A non-ASCII host name in its ASCII (punycode) form, as WHATWG URL writes it: `bücher.de` → `xn--bcher-kva.de`. */
function asciiHost(h: string): string {
  if (/^[\x00-\x7f]*$/.test(h)) return h;
  try {
    return new URL(`http://${h}/`).hostname;
  } catch {
    return h;
  }
}

function domainGlob(d: string): string | undefined {
  const lower = d.toLowerCase().replace(/\.$/, "");
  const s = lower.startsWith("*.") ? "*." + asciiHost(lower.slice(2)) : asciiHost(lower);
  if (s.startsWith("*.")) return hostName(s.slice(2)) ? s : undefined;
  if (s.includes("*")) return undefined;
  return hostName(s) ? s : undefined;
}

const LOCAL = /^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}$/i;

export function parseDestination(raw: string): Parsed {
  const s = raw.trim();
  const bad = (message: string, hint: string): Parsed => ({ ok: false, message, hint });
  if (s === "*") return { ok: true, pattern: { kind: "any" } };
  if (s === "") return bad("an empty `sends_out` entry", 'write a host (`api.example.com`), a host glob (`*.example.com`), an address, or `"*"`');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    const host = s.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").split(/[/?#]/)[0]!.replace(/:\d+$/, "");
    return bad(`\`${raw}\` is a URL, not a destination`, `write the host alone: \`${host || "api.example.com"}\``);
  }
  if (s.includes("@")) {
    const at = s.lastIndexOf("@");
    const local = s.slice(0, at);
    const domain = domainGlob(s.slice(at + 1));
    if (!domain) return bad(`\`${raw}\` is not an e-mail address or \`*@domain\``, "write `name@example.com` or `*@example.com`");
    if (local === "*") return { ok: true, pattern: { kind: "address_domain", glob: domain } };
    if (!LOCAL.test(local) || local.includes("*") || local.startsWith(".") || local.endsWith(".") || local.includes("..") || domain.startsWith("*")) {
      return bad(`\`${raw}\` is not an e-mail address`, "write `name@example.com`, or `*@example.com` for any address there");
    }
    return { ok: true, pattern: { kind: "address", address: `${local}@${domain}`.toLowerCase() } };
  }
  const v4 = parseIPv4(s);
  if (v4) return { ok: true, pattern: { kind: "host", glob: v4 } };
  if (s.includes(":")) {
    const v6 = parseIPv6(s);
    if (v6) return { ok: true, pattern: { kind: "host", glob: v6 } };
    if (/^[^:]+:\d+$/.test(s)) return bad(`\`${raw}\` has a port`, `ports are not part of a destination: write \`${s.replace(/:\d+$/, "")}\``);
    return bad(`\`${raw}\` is not a valid IPv6 address`, "write it like `2001:db8::1`");
  }
  if (s.includes("/")) return bad(`\`${raw}\` has a path`, `write the host alone: \`${s.split("/")[0]}\``);
  const glob = domainGlob(s);
  if (glob) return { ok: true, pattern: { kind: "host", glob } };
  if (s.includes("*")) return bad(`\`${raw}\`: \`*\` may only start a host glob`, 'write `*.example.com`, or `"*"` for any destination');
  return bad(`\`${raw}\` is not a host name, an IP address or an e-mail address`, "write `api.example.com`, `*.example.com`, `10.0.0.1` or `name@example.com`");
}
