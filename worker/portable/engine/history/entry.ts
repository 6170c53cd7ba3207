/**
 * History entries (v: 1) and their canonical bytes — what each link's MAC covers
 * (checks.md, "The session history"). Entries are plain JSON objects the caller carries.
 *
 * The canonical bytes are written field by field in a fixed (sorted) order per kind, not by a
 * generic sort: this runs once per entry on every full verification. Unknown or missing fields
 * make an entry unreadable, so an added field is as detectable as an edited one.
 */
import { canonicalize, canonicalNumber, canonicalString, sortKeys } from "../canonical/jcs.js";

export type Decision = "allow" | "confirm" | "refuse";
/** What happened to a checked call, as its caller (or the gateway) reports it. */
export const OUTCOMES = ["ran", "failed", "outcome_unknown", "compensated"] as const;
export type Outcome = (typeof OUTCOMES)[number];

interface Base {
  v: 1;
  /** index of this entry in its history, from 0 */
  step: number;
  /** milliseconds since the epoch, on the runtime's clock */
  at: number;
  /** hex HMAC over the session id, the previous link and this entry's canonical bytes */
  link: string;
}

/** A person's turn, as they typed it. */
export interface TurnEntry extends Base {
  kind: "turn";
  text: string;
}

/** A checked call. */
export interface CheckEntry extends Base {
  kind: "check";
  tool: string;
  agent: string | null;
  /** hex SHA-256 of the JCS canonical arguments */
  args: string;
  /** hex SHA-256 of the JCS canonical origins */
  origins: string;
  /** every label the call carried (sorted, unique) */
  labels: string[];
  decision: Decision;
  reasons: string[];
  /** the ask entry whose confirmation token this allow consumed, else null */
  confirmed: number | null;
  /** the step this call undoes, else null */
  undo_of: number | null;
  /** per argument: hex SHA-256 (first 128 bits) of its canonical value — so an undo can show its
   * arguments come from the step it undoes without the history holding the values */
  values: Record<string, string>;
}

/** The caller's report of what happened to a checked call. */
export interface ReportEntry extends Base {
  kind: "report";
  /** the check entry this reports on */
  of: number;
  outcome: Outcome;
  /** the result, kept to the fields its tool's `returns` schema declares; null when none */
  result: unknown;
}

/**
 * A person's decision on a confirmation (issue 12, beyond the seed): who decided the ask entry
 * `of`, how, and the digest of the signed receipt kept in the approval store, so an audit can
 * show which person approved which exact call.
 */
export interface ReceiptEntry extends Base {
  kind: "receipt";
  /** the ask entry (a `confirm` check) decided */
  of: number;
  decision: "approve" | "deny" | "edit";
  by: string;
  /** hex SHA-256 of the signed receipt's canonical JSON */
  receipt: string;
}

export type Entry = TurnEntry | CheckEntry | ReportEntry | ReceiptEntry;

const KEYS: Record<Entry["kind"], readonly string[]> = {
  turn: ["at", "kind", "link", "step", "text", "v"],
  check: ["agent", "args", "at", "confirmed", "decision", "kind", "labels", "link", "origins", "reasons", "step", "tool", "undo_of", "v", "values"],
  report: ["at", "kind", "link", "of", "outcome", "result", "step", "v"],
  receipt: ["at", "by", "decision", "kind", "link", "of", "receipt", "step", "v"],
};
const DECISIONS = new Set(["allow", "confirm", "refuse"]);
const HEX64 = /^[0-9a-f]{64}$/;
const HEX32 = /^[0-9a-f]{32}$/;

/** Why an entry is unreadable, or null when its shape is right. */
export function entryShapeError(e: unknown): string | null {
  if (typeof e !== "object" || e === null || Array.isArray(e)) return "an entry is not an object";
  const o = e as Record<string, unknown>;
  // `kind` comes from the caller's JSON: `constructor` or `toString` is no kind
  const keys = typeof o.kind === "string" && Object.hasOwn(KEYS, o.kind) ? KEYS[o.kind as Entry["kind"]] : undefined;
  if (!keys) return "an entry has no known `kind`";
  const own = Object.keys(o);
  if (own.length !== keys.length || !keys.every((k) => Object.prototype.hasOwnProperty.call(o, k))) {
    return `a \`${String(o.kind)}\` entry has fields ${own.sort().join(",")}, expected ${keys.join(",")}`;
  }
  if (o.v !== 1) return "an entry is not version 1";
  if (!isIndex(o.step) || typeof o.at !== "number" || !Number.isFinite(o.at)) return "an entry's step or time is unreadable";
  if (typeof o.link !== "string" || !HEX64.test(o.link)) return "an entry's link is unreadable";
  switch (o.kind) {
    case "turn":
      return typeof o.text === "string" ? null : "a turn's text is not a string";
    case "check":
      if (typeof o.tool !== "string" || (o.agent !== null && typeof o.agent !== "string")) return "a check's tool or agent is unreadable";
      if (typeof o.args !== "string" || !HEX64.test(o.args) || typeof o.origins !== "string" || !HEX64.test(o.origins)) return "a check's digests are unreadable";
      if (!isStringList(o.labels) || !isStringList(o.reasons)) return "a check's labels or reasons are unreadable";
      if (!DECISIONS.has(o.decision as string)) return "a check's decision is unreadable";
      if ((o.confirmed !== null && !isIndex(o.confirmed)) || (o.undo_of !== null && !isIndex(o.undo_of))) return "a check's references are unreadable";
      if (typeof o.values !== "object" || o.values === null || Array.isArray(o.values) || !Object.values(o.values).every((h) => typeof h === "string" && HEX32.test(h))) return "a check's value digests are unreadable";
      return null;
    case "report":
      if (!isIndex(o.of) || !OUTCOMES.includes(o.outcome as Outcome)) return "a report's step or outcome is unreadable";
      return null;
    case "receipt":
      if (!isIndex(o.of) || (o.decision !== "approve" && o.decision !== "deny" && o.decision !== "edit")) return "a receipt's step or decision is unreadable";
      if (typeof o.by !== "string" || typeof o.receipt !== "string" || !HEX64.test(o.receipt)) return "a receipt's name or digest is unreadable";
      return null;
  }
  return "an entry has no known `kind`";
}

function isIndex(x: unknown): x is number {
  return typeof x === "number" && Number.isSafeInteger(x) && x >= 0;
}
function isStringList(x: unknown): x is string[] {
  return Array.isArray(x) && x.every((s) => typeof s === "string");
}

// Names from a catalogue and reason codes need no escaping; anything else goes the long way.
const PLAIN = /^[A-Za-z0-9_.:@+-]*$/;
const str = (s: string, p: string) => (PLAIN.test(s) ? `"${s}"` : canonicalString(s, p));

function list(xs: readonly string[], p: string): string {
  let out = "[";
  for (let i = 0; i < xs.length; i++) out += (i ? "," : "") + str(xs[i]!, p);
  return out + "]";
}
const nullable = (n: number | null, p: string) => (n === null ? "null" : canonicalNumber(n, p));

function hexMap(m: Record<string, string>): string {
  const keys = Object.keys(m);
  if (keys.length > 1) sortKeys(keys);
  let out = "{";
  for (let i = 0; i < keys.length; i++) out += (i ? "," : "") + str(keys[i]!, "/values") + `:"${m[keys[i]!]}"`;
  return out + "}";
}

/**
 * The JCS canonical form of an entry without its `link` (equal to `canonicalize` of the entry
 * minus `link`; a test holds the two together). Assumes `entryShapeError(e) === null`.
 */
export function entryCanonical(e: Entry): string {
  switch (e.kind) {
    case "turn":
      return `{"at":${canonicalNumber(e.at, "/at")},"kind":"turn","step":${e.step},"text":${canonicalString(e.text, "/text")},"v":1}`;
    case "check":
      return (
        `{"agent":${e.agent === null ? "null" : str(e.agent, "/agent")},"args":"${e.args}",` +
        `"at":${canonicalNumber(e.at, "/at")},"confirmed":${nullable(e.confirmed, "/confirmed")},` +
        `"decision":"${e.decision}","kind":"check","labels":${list(e.labels, "/labels")},` +
        `"origins":"${e.origins}","reasons":${list(e.reasons, "/reasons")},"step":${e.step},` +
        `"tool":${str(e.tool, "/tool")},"undo_of":${nullable(e.undo_of, "/undo_of")},"v":1,` +
        `"values":${hexMap(e.values)}}`
      );
    case "report":
      return (
        `{"at":${canonicalNumber(e.at, "/at")},"kind":"report","of":${e.of},"outcome":"${e.outcome}",` +
        `"result":${canonicalize(e.result)},"step":${e.step},"v":1}`
      );
    case "receipt":
      return (
        `{"at":${canonicalNumber(e.at, "/at")},"by":${canonicalString(e.by, "/by")},"decision":"${e.decision}",` +
        `"kind":"receipt","of":${e.of},"receipt":"${e.receipt}","step":${e.step},"v":1}`
      );
  }
}
