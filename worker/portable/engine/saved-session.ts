/**
 * A saved session (`toJSON()` / `resume()`): the header every answer carries, sealed with the
 * installation key, and the head seal over the count of entries and the last link, so that
 * cutting entries off the end shows even when what is left verifies (checks.md, "The session
 * history"); and handing a saved session's entries back to its signed history.
 */
import { canonicalize } from "./canonical/jcs.js";
import { equalBytes, fromBase64Url, fromHex, toBase64Url } from "./canonical/bytes.js";
import type { Language } from "./catalogue/types.js";
import type { Entry } from "./history/entry.js";
import { InputError, StalwartError } from "./errors.js";
import type { KnownPrefix, SignedHistory } from "./history/signed.js";

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

function sealHeader(mac: TextMac, header: SessionHeader): string {
  return toBase64Url(mac(`stalwart-session-v1.${canonicalize(header)}`));
}

function sealHead(mac: TextMac, seal: string, entries: readonly unknown[]): string {
  const last = entries.length ? String((entries[entries.length - 1] as { link?: unknown } | undefined)?.link) : "";
  return toBase64Url(mac(`stalwart-head-v1.${seal}.${entries.length}.${last}`));
}

/** The session to persist: the header, sealed, and the head seal over `entries`. */
/** `seal`: the header's seal when the caller keeps it (a session's header never changes), else made here. */
export function savedOf(mac: TextMac, header: SessionHeader, entries: Entry[], seal: string = sealHeader(mac, header)): SavedSession {
  return { ...header, entries, seal, head: sealHead(mac, seal, entries) };
}

/** The saved session in its parts, for a caller that serialises them itself (the worker's answers). */
export interface SavedParts {
  header: SessionHeader;
  entries: Entry[];
  seal: string;
  head: string;
}

/** `savedOf`'s fields, not yet one object. */
export function savedPartsOf(mac: TextMac, header: SessionHeader, entries: Entry[], seal: string): SavedParts {
  return { header, entries, seal, head: sealHead(mac, seal, entries) };
}

/** The seal `savedOf` puts on `header`. */
export function headerSeal(mac: TextMac, header: SessionHeader): string {
  return sealHeader(mac, header);
}

/** What a saved session claims, its fields read for their types (`entries` as it came). */
export interface ReadSaved {
  header: SessionHeader;
  entries: unknown;
  seal: string;
  head: string;
}

const LANGUAGES: readonly unknown[] = ["en", "pt-BR"] satisfies Language[];
const isPlainObject = (v: unknown): boolean => typeof v === "object" && v !== null && !Array.isArray(v);
const isText = (v: unknown): boolean => typeof v === "string";
const absentOr = (test: (v: unknown) => boolean) => (v: unknown): boolean => v === undefined || test(v);

/**
 * Each header field a saved session carries, with the type `toJSON()` gives it. `entries` is read
 * by the history (restoreSaved), entry by entry.
 */
const SAVED_FIELDS: readonly [field: string, test: (v: unknown) => boolean, expected: string][] = [
  ["v", (v) => v === 1, "1"],
  ["id", (v) => isText(v) && (v as string).length > 0, "the session's id (a string)"],
  ["name", isText, "the session's name (a string)"],
  ["catalogue", isText, "the catalogue digest (a string)"],
  ["seal", isText, "the seal an answer gave (a string)"],
  ["head", isText, "the head seal an answer gave (a string)"],
  ["language", absentOr((v) => LANGUAGES.includes(v)), "`en` or `pt-BR`"],
  ["agent", absentOr((v) => v === null || isText(v)), "an agent name or null"],
  ["context", absentOr((v) => v === null || isPlainObject(v)), "an object"],
  ["taint_model_after_untrusted", absentOr((v) => typeof v === "boolean"), "true or false"],
  ["rulebook", absentOr((v) => v === null || isText(v)), "a rulebook digest or null"],
];

/**
 * The first field of a saved session that is missing or of the wrong type, or undefined: read
 * before anything is looked up by it, so that a caller's mistake is named rather than taken for a
 * changed header (a wrong type cannot be what an answer gave). Own properties only.
 */
export function savedShapeProblem(saved: Record<string, unknown>): { field: string; expected: string } | undefined {
  for (const [field, test, expected] of SAVED_FIELDS) {
    const value = Object.hasOwn(saved, field) ? saved[field] : undefined;
    if (!test(value)) return { field, expected };
  }
  return undefined;
}

/** The header a saved session claims, read with every field checked for its type. */
export function readSaved(saved: unknown): ReadSaved {
  if (!isPlainObject(saved)) throw new InputError("a saved session must be what `toJSON()` returned", "/");
  const problem = savedShapeProblem(saved as Record<string, unknown>);
  if (problem) throw new InputError(`a saved session must be what \`toJSON()\` returned: its \`${problem.field}\` must be ${problem.expected}`, `/${problem.field}`);
  const s = saved as Partial<SavedSession> & { v: 1; id: string; name: string; seal: string; head: string; catalogue: string };
  const header: SessionHeader = {
    v: 1, id: s.id, name: s.name, language: s.language as Language, agent: s.agent ?? null, context: s.context ?? {},
    catalogue: s.catalogue, taint_model_after_untrusted: s.taint_model_after_untrusted === true, rulebook: s.rulebook ?? null,
  };
  return { header, entries: s.entries, seal: s.seal, head: s.head };
}

/** The last link of a run of entries as bytes, or null when it is not a 32-byte hex link. */
function lastLinkOf(entries: readonly unknown[]): Uint8Array | null {
  if (entries.length === 0) return new Uint8Array(32);
  const last = (entries[entries.length - 1] as { link?: unknown } | null)?.link;
  const bytes = typeof last === "string" ? fromHex(last) : null;
  return bytes && bytes.length === 32 ? bytes : null;
}

/** Equal base64url MACs (constant-time over the decoded bytes). */
function sameMac(a: string, b: string): boolean {
  const x = fromBase64Url(a);
  const y = fromBase64Url(b);
  return x !== null && y !== null && equalBytes(x, y);
}

/** What a resumed session must match besides its seals. */
export interface ResumeWith {
  /** the digest of the catalogue it is resumed with */
  catalogue: string;
  /** the digest of the rulebook it is resumed with, or null */
  rulebook: string | null;
  /** a prefix of its entries this engine verified before (the worker's cache) */
  known?: KnownPrefix;
  /** a header this engine sealed before, with that seal (the worker's cache): the same seal on an equal header is not made again */
  sealed?: SealedHeader;
  /**
   * The head seal this engine made, under `sealed`'s seal, over exactly `known`'s entries (the
   * worker's cache): carried back over a list that is that prefix, it is compared, not made again.
   */
  knownHead?: string;
}

/** A session header and the seal this engine made for it. */
export interface SealedHeader {
  header: SessionHeader;
  seal: string;
}

/**
 * Every header field but `context`, compared with ===. Typed as the header's keys so that a field
 * added to the header (and so to its seal) cannot be left out of `sameHeader` unnoticed.
 */
const HEADER_FIELDS: Record<keyof SessionHeader, "scalar" | "context"> = { v: "scalar", id: "scalar", name: "scalar", language: "scalar", agent: "scalar", context: "context", catalogue: "scalar", taint_model_after_untrusted: "scalar", rulebook: "scalar" };
const SCALAR_HEADER_FIELDS = (Object.keys(HEADER_FIELDS) as (keyof SessionHeader)[]).filter((k) => HEADER_FIELDS[k] === "scalar");

/**
 * Whether `h` is `known` field for field, so that its canonical form, and the seal over it, are
 * the same. A context that cannot be canonicalised is not (the seal is then made, and fails, as always).
 */
function sameHeader(known: SessionHeader, h: SessionHeader): boolean {
  for (const k of SCALAR_HEADER_FIELDS) if (known[k] !== h[k]) return false;
  try {
    return canonicalize(known.context) === canonicalize(h.context);
  } catch {
    return false;
  }
}

function sealInvalid(): StalwartError {
  return new StalwartError("SessionSealInvalid", "the saved session's header was changed (its name, language, agent, context or catalogue), or it was sealed by another installation or tenant", {
    // a deleted history.key is made anew on first use: every session saved before then reads as another installation's
    hint: "if this installation's history key (history.key under its home) or the tenant's history secret changed since the session was saved, restore the old one from a backup to continue it",
  });
}

/**
 * Throws SessionSealInvalid when a saved session's header is not sealed under `mac`: for a caller
 * that could not find what the header names, so that another tenant's session is told as such,
 * not by what this tenant lacks.
 */
export function assertSealedHere(mac: TextMac, saved: unknown): void {
  const { header, seal } = readSaved(saved);
  if (!sameMac(sealHeader(mac, header), seal)) throw sealInvalid();
}

/**
 * Hand a saved session's entries to its signed history. A changed header (name, language, agent,
 * context, catalogue) is a typed error; changed entries, or entries cut off or added, fail step 2
 * at the next check. Answers the header's seal as made here (it verified).
 */
export function restoreSaved(signed: SignedHistory, mac: TextMac, saved: ReadSaved, expect: ResumeWith): string {
  const { header, entries, seal, head } = saved;
  const list = Array.isArray(entries) ? (entries as Entry[]) : [];
  signed.carry(list);
  const sealed = expect.sealed !== undefined && expect.sealed.seal === seal && sameHeader(expect.sealed.header, header) ? seal : sealHeader(mac, header);
  if (!sameMac(sealed, seal)) throw sealInvalid();
  if (header.rulebook !== expect.rulebook) {
    throw new StalwartError("RulebookMismatch", header.rulebook ? `the saved session was checked with rulebook ${header.rulebook.slice(0, 12)}…; resume it with that rulebook` : "the saved session was started without a rulebook; resume it without one");
  }
  if (header.catalogue !== expect.catalogue) {
    throw new StalwartError("CatalogueMismatch", `the saved session was checked against catalogue ${header.catalogue.slice(0, 12)}…, not this one (${expect.catalogue.slice(0, 12)}…)`);
  }
  const known = expect.known;
  if (known && expect.knownHead !== undefined && sealed === expect.sealed?.seal && signed.carriesExactly(list, known) && sameMac(expect.knownHead, head)) {
    // The head seal over these very entries, as this engine made it: what sealHead would make again.
    signed.trustHead(known.count, known.head);
    signed.carry(list, known);
    return sealed;
  }
  const last = lastLinkOf(list);
  if (!Array.isArray(entries) || !last || !sameMac(sealHead(mac, seal, list), head)) {
    // Entries cut off, added or unreadable: the next check refuses `history_invalid`.
    signed.markBroken("the history is not the one this session signed (entries cut off, added or unreadable)");
    return sealed;
  }
  // The head seal covers the count and the last link, so these are what we signed.
  signed.trustHead(list.length, last);
  // A prefix this engine verified before: only what follows it is verified.
  if (known) signed.carry(list, known);
  return sealed;
}
