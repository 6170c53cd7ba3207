/**
 * A saved session (`toJSON()` / `resume()`): the header every answer carries, sealed with the
 * installation key, and the head seal over the count of entries and the last link, so that
 * cutting entries off the end shows even when what is left verifies (checks.md, "The session
 * history").
 */
import { canonicalize } from "./canonical/jcs.js";
import { equalBytes, fromBase64Url, fromHex, toBase64Url } from "./canonical/bytes.js";
import type { Language } from "./catalogue/types.js";
import type { Entry } from "./history/entry.js";
import { InputError } from "./errors.js";

/** What `toJSON()` gives and `resume()` takes. */
export interface SavedSession {
  v: 1;
  id: string;
  name: string;
  language: Language;
  agent: string | null;
  context: Record<string, unknown>;
  catalogue: string;
  /** session option, sealed with the rest of the header */
  taint_model_after_untrusted: boolean;
  /** the digest of the rulebook the session was started with, or null */
  rulebook: string | null;
  entries: Entry[];
  /** MAC over everything above but `entries` */
  seal: string;
  /** MAC over the seal, the number of entries and the last link: cutting entries off shows */
  head: string;
}

export type SessionHeader = Omit<SavedSession, "entries" | "seal" | "head">;

/** HMAC of a text under the installation key, base64url. */
export type TextMac = (text: string) => Uint8Array;

export function sealHeader(mac: TextMac, header: SessionHeader): string {
  return toBase64Url(mac(`stalwart-session-v1.${canonicalize(header)}`));
}

export function sealHead(mac: TextMac, seal: string, entries: readonly unknown[]): string {
  const last = entries.length ? String((entries[entries.length - 1] as { link?: unknown } | undefined)?.link) : "";
  return toBase64Url(mac(`stalwart-head-v1.${seal}.${entries.length}.${last}`));
}

/** The header a saved session claims, read with every field checked for its type. */
export function readSaved(saved: unknown): { header: SessionHeader; entries: unknown; seal: string; head: string } {
  const s = saved as Partial<SavedSession> | null;
  if (typeof s !== "object" || s === null || s.v !== 1 || typeof s.id !== "string" || typeof s.name !== "string" || typeof s.seal !== "string" || typeof s.head !== "string" || typeof s.catalogue !== "string") {
    throw new InputError("a saved session must be what `toJSON()` returned", "/");
  }
  const header: SessionHeader = {
    v: 1, id: s.id, name: s.name, language: s.language as Language, agent: s.agent ?? null, context: s.context ?? {},
    catalogue: s.catalogue, taint_model_after_untrusted: s.taint_model_after_untrusted === true, rulebook: s.rulebook ?? null,
  };
  return { header, entries: s.entries, seal: s.seal, head: s.head };
}

/** The last link of a run of entries as bytes, or null when it is not a 32-byte hex link. */
export function lastLinkOf(entries: readonly unknown[]): Uint8Array | null {
  if (entries.length === 0) return new Uint8Array(32);
  const last = (entries[entries.length - 1] as { link?: unknown } | null)?.link;
  const bytes = typeof last === "string" ? fromHex(last) : null;
  return bytes && bytes.length === 32 ? bytes : null;
}

/** Equal base64url MACs (constant-time over the decoded bytes). */
export function sameMac(a: string, b: string): boolean {
  const x = fromBase64Url(a);
  const y = fromBase64Url(b);
  return x !== null && y !== null && equalBytes(x, y);
}
