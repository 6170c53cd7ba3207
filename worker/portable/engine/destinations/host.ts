/**
 * The one host parser of step 4 (checks.md): every host — of a `sends_out` pattern, of a
 * destination the scanner found, of a URL — is read by the WHATWG URL host parser (`new URL`), the
 * way a tool's `fetch()` will read it: lowercase, IDN to punycode, ideographic and full-width dots
 * to `.`, percent-decoded, IPv4 in any form (`0x7f.1`, `0177.0.0.1`, `2130706433`) as its dotted
 * quad, IPv6 in RFC 5952 form. Then one trailing dot is dropped and IPv6 loses its brackets, which
 * is how the catalogue stores hosts (`2001:db8::1`).
 */

/** Characters that end or change a host inside `http://…/`: a host must not hold them. */
const NOT_A_HOST = /[/?#@\\]/;

/** `text` (one host: a name, IPv4 in any form, or IPv6 bare or in brackets) as a URL parser resolves it; null when it is none. */
export function parseHost(text: string): string | null {
  if (text === "" || NOT_A_HOST.test(text)) return null;
  let t = text;
  if (t.includes(":")) {
    if (!(t.startsWith("[") && t.endsWith("]"))) t = `[${t}]`;
    if (t.indexOf("]") !== t.length - 1) return null; // `[::1]:80`: a port is not part of a host
  }
  return hostnameOf(`http://${t}/`);
}

/** The host of a URL with a special scheme (http, https, ws, wss, ftp), tidied; null when it has none. */
export function hostnameOf(url: string): string | null {
  try {
    return tidy(new URL(url).hostname);
  } catch {
    return null;
  }
}

/** One trailing dot and IPv6 brackets dropped; null for the empty host. */
export function tidy(hostname: string): string | null {
  let h = hostname;
  if (h.endsWith(".")) h = h.slice(0, -1);
  if (h.startsWith("[") && h.endsWith("]")) h = h.slice(1, -1);
  return h === "" ? null : h;
}

const DOTTED_QUAD = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** What a parsed host is (the parser writes every IPv4 as a dotted quad and every IPv6 with colons). */
export function hostKind(host: string): "ipv4" | "ipv6" | "name" {
  return host.includes(":") ? "ipv6" : DOTTED_QUAD.test(host) ? "ipv4" : "name";
}

const MAPPED = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/** The IPv4 address an IPv4-mapped IPv6 host (`::ffff:a00:1`, as the parser writes it) reaches; else null. */
export function mappedIPv4(host: string): string | null {
  const m = MAPPED.exec(host);
  if (!m) return null;
  const hi = parseInt(m[1]!, 16);
  const lo = parseInt(m[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}
