/**
 * Top-level domains that make a bare name a destination (checks.md step 4): the IANA root zone
 * (the `tlds` package, one release pinned in package.json) plus the special-use names of RFC 6761,
 * RFC 7686 and ICANN's `.internal`, which resolve somewhere on purpose. Every name is held in
 * both forms, Unicode and punycode (`рф` and `xn--p1ai`), lowercased; built once at load.
 */
import ianaTlds from "tlds/index.json" with { type: "json" };

const SPECIAL_USE_TLDS: readonly string[] = [
  "invalid", "test", "example", "localhost", "local", "internal", "onion", "arpa",
];

const set = new Set<string>();
for (const t of [...(ianaTlds as string[]), ...SPECIAL_USE_TLDS]) {
  const lower = t.toLowerCase();
  set.add(lower);
  if (/[^\x00-\x7f]/.test(lower)) {
    const ascii = toAsciiLabel(lower);
    if (ascii) set.add(ascii);
  }
}
const TLDS: ReadonlySet<string> = set;

const ASCII_TLD = /^[a-z0-9-]+$/;

/**
 * Is `label` (the last label of a name, any case) a top-level domain? ASCII labels are looked up
 * as they are; others go through the URL parser first, so full-width letters, soft hyphens and
 * other IDNA mappings (`ｃｏｍ`, `co\u00ADm`) are read the way a tool's URL parser would read them.
 */
export function isTld(label: string): boolean {
  const lower = label.toLowerCase();
  if (ASCII_TLD.test(lower)) return set.has(lower);
  const ascii = toAsciiLabel(lower);
  return ascii !== null && set.has(ascii);
}

function toAsciiLabel(label: string): string | null {
  try {
    const host = new URL(`http://x.${label}/`).hostname;
    const dot = host.lastIndexOf(".");
    return dot <= 0 ? null : host.slice(dot + 1);
  } catch {
    return null;
  }
}
