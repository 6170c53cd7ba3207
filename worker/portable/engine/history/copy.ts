/**
 * Copies of history entries without a JSON round trip (which was a quarter of a full verification
 * and a tenth of a write check). Both keep the source's own key order, so what the caller gets back
 * serialises to the same bytes as before.
 *
 *   - `cloneEntry`: a copy of an entry the engine holds (its shape is known good).
 *   - `readEntry`: a copy of an entry the caller carries, read once field by field and checked as
 *     it is read, or null when anything about it is unusual (then the caller takes the JSON round
 *     trip and `entryShapeError`, which say exactly what is wrong). What this returns is the
 *     engine's own object: later edits of the caller's cannot reach it. It checks as much as
 *     `entryShapeError` but for the hex of the link and of the digests (`args`, `origins`,
 *     `values`): the core checks the link's as it decodes it, the entry writer (entry-bytes.ts)
 *     the digests' as it writes them, each failing the run; a history that fails this way is
 *     verified again the long way, so a refusal says what it always said.
 *     It does not read receipt entries (approvals): a history with one takes the long way.
 */
import { OUTCOMES, type CheckEntry, type Entry, type Outcome, type ReportEntry, type TurnEntry } from "./entry.js";
import { jsonData } from "../canonical/json-data.js";

// Every field of each kind readEntry reads (the compiler holds these lists to the entry types).
const TURN: Record<keyof TurnEntry, true> = { v: true, step: true, at: true, kind: true, text: true, link: true };
const CHECK: Record<keyof CheckEntry, true> = {
  v: true, step: true, at: true, kind: true, tool: true, agent: true, args: true, origins: true, labels: true,
  decision: true, reasons: true, confirmed: true, undo_of: true, values: true, link: true,
};
const REPORT: Record<keyof ReportEntry, true> = { v: true, step: true, at: true, kind: true, of: true, outcome: true, result: true, link: true };
const fieldsOf = <E>(fields: Record<keyof E, true>): readonly (keyof E)[] => Object.keys(fields) as (keyof E)[];
const TURN_FIELDS = fieldsOf<TurnEntry>(TURN);
const CHECK_FIELDS = fieldsOf<CheckEntry>(CHECK);
const REPORT_FIELDS = fieldsOf<ReportEntry>(REPORT);
const KINDS = { turn: TURN_FIELDS.length, check: CHECK_FIELDS.length, report: REPORT_FIELDS.length } as const;

/** A copy of JSON data (a report's result): the round trip is only ever over that value. */
const jsonCopy = (v: unknown): unknown => (v === null || typeof v !== "object" ? v : jsonData(v));

export function cloneEntry(e: Entry): Entry {
  switch (e.kind) {
    case "turn":
      return { ...e };
    case "check":
      return { ...e, labels: e.labels.slice(), reasons: e.reasons.slice(), values: copyValues(e.values) };
    case "report":
      return { ...e, result: jsonCopy(e.result) };
    case "receipt":
      return { ...e }; // every field a string or a number
  }
}

/** Spreading defines own properties, so a key named `__proto__` stays an ordinary entry. */
const copyValues = (v: Record<string, string>): Record<string, string> => ({ ...v });


function plain(o: unknown): o is Record<string, unknown> {
  if (typeof o !== "object" || o === null || Array.isArray(o)) return false;
  const proto = Object.getPrototypeOf(o);
  return proto === Object.prototype || proto === null;
}

const OUTCOME_NAMES: readonly unknown[] = OUTCOMES;
const isOutcome = (x: unknown): x is Outcome => OUTCOME_NAMES.includes(x);

const isIndex = (x: unknown): x is number => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;

/** A string list read once, or null (a hole, a non-string, anything but a plain array). */
function stringList(x: unknown): string[] | null {
  if (!Array.isArray(x) || Object.getPrototypeOf(x) !== Array.prototype) return null;
  const n = x.length;
  // pushed, not preallocated: a packed list, as the engine's own lists are (one shape for the writer)
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (!(i in x)) return null;
    const s: unknown = x[i];
    if (typeof s !== "string") return null;
    out.push(s);
  }
  return out;
}

function hexValues(x: unknown): Record<string, string> | null {
  if (!plain(x)) return null;
  const out: Record<string, string> = {};
  for (const k of Object.keys(x)) {
    const h = x[k];
    if (typeof h !== "string" || h.length !== 32) return null; // the hex: see the header
    if (k === "__proto__") Object.defineProperty(out, k, { value: h, enumerable: true, writable: true, configurable: true });
    else out[k] = h;
  }
  return out;
}

/** The JSON round trip turned -0 into 0; so does this. */
const noNegativeZero = (n: number): number => (n === 0 ? 0 : n);

type BaseFields = Pick<TurnEntry, "v" | "step" | "at" | "link">;

/** A field every kind has, checked as `entryShapeError` checks it and set on `out`; false when it is not one or is wrong. */
function baseField(out: Partial<BaseFields>, k: string, v: unknown): boolean {
  switch (k) {
    case "v":
      if (v !== 1) return false;
      out.v = 1;
      return true;
    case "step":
      if (!isIndex(v)) return false;
      out.step = noNegativeZero(v);
      return true;
    case "at":
      if (typeof v !== "number" || !Number.isFinite(v)) return false;
      out.at = noNegativeZero(v);
      return true;
    case "link":
      // its hex is checked where it is decoded, in the core (a failure there takes the long way)
      if (typeof v !== "string" || v.length !== 64) return false;
      out.link = v;
      return true;
    default:
      return false;
  }
}

/** Every field of `fields` was read: with the count of keys matched, a key repeated by a hostile ownKeys shows here. */
function complete<E>(out: Partial<E>, fields: readonly (keyof E)[]): out is E {
  for (const f of fields) if (out[f] === undefined) return false;
  return true;
}

/**
 * Read a carried entry into a fresh object (see the header), or null. Reads each own property
 * once, in the caller's order (so it serialises as theirs did); a key outside its kind, or a
 * value JSON would not carry as it is, gives null.
 */
export function readEntry(e: unknown): Entry | null {
  if (!plain(e)) return null;
  const keys = Object.keys(e);
  const kind = e.kind;
  if (kind !== "turn" && kind !== "check" && kind !== "report") return null;
  if (keys.length !== KINDS[kind]) return null;
  if (kind === "check") return inOrder(keys, CHECK_ORDER) ? readCheckInOrder(e) : readCheck(e, keys);
  return kind === "turn" ? readTurn(e, keys) : readReport(e, keys);
}

/**
 * The order check/answer.ts builds a check entry's fields in, which `toJSON()` and every saved
 * session keep: such an entry is read field by field without a loop over its keys and copied as
 * one object literal, which also gives it the shape of the engine's own entries (the entry writer
 * then sees one shape, not two). Any other order takes `readCheck`. A test holds this to answer.ts.
 */
export const CHECK_ORDER = [
  "v", "step", "at", "kind", "tool", "agent", "args", "origins", "labels", "decision", "reasons", "confirmed", "undo_of", "link", "values",
] as const satisfies readonly (keyof CheckEntry)[];

function inOrder(keys: readonly string[], order: readonly string[]): boolean {
  for (let i = 0; i < order.length; i++) if (keys[i] !== order[i]) return false;
  return true;
}

/** `readCheck` for an entry whose keys are CHECK_ORDER: each field read once, in that order. */
function readCheckInOrder(e: Record<string, unknown>): CheckEntry | null {
  // `kind` was read by readEntry
  if (e.v !== 1) return null;
  const step = e.step;
  if (!isIndex(step)) return null;
  const at = e.at;
  if (typeof at !== "number" || !Number.isFinite(at)) return null;
  const tool = e.tool;
  if (typeof tool !== "string") return null;
  const agent = e.agent;
  if (agent !== null && typeof agent !== "string") return null;
  // the hex of the digests and of the link: see the header
  const args = e.args;
  if (typeof args !== "string" || args.length !== 64) return null;
  const origins = e.origins;
  if (typeof origins !== "string" || origins.length !== 64) return null;
  const labels = stringList(e.labels);
  if (labels === null) return null;
  const decision = e.decision;
  if (decision !== "allow" && decision !== "confirm" && decision !== "refuse") return null;
  const reasons = stringList(e.reasons);
  if (reasons === null) return null;
  const confirmed = e.confirmed;
  if (confirmed !== null && !isIndex(confirmed)) return null;
  const undo = e.undo_of;
  if (undo !== null && !isIndex(undo)) return null;
  const link = e.link;
  if (typeof link !== "string" || link.length !== 64) return null;
  const values = hexValues(e.values);
  if (values === null) return null;
  return {
    v: 1, step: noNegativeZero(step), at: noNegativeZero(at), kind: "check", tool, agent, args, origins, labels, decision, reasons,
    confirmed: confirmed === null ? null : noNegativeZero(confirmed), undo_of: undo === null ? null : noNegativeZero(undo), link, values,
  };
}

function readTurn(e: Record<string, unknown>, keys: readonly string[]): TurnEntry | null {
  const out: Partial<TurnEntry> = {};
  for (const k of keys) {
    if (k === "kind") out.kind = "turn";
    else if (k === "text") {
      const v = e[k];
      if (typeof v !== "string") return null;
      out.text = v;
    } else if (!baseField(out, k, e[k])) return null;
  }
  return complete(out, TURN_FIELDS) ? out : null;
}

function readCheck(e: Record<string, unknown>, keys: readonly string[]): CheckEntry | null {
  const out: Partial<CheckEntry> = {};
  for (const k of keys) {
    if (k === "kind") {
      out.kind = "check";
      continue;
    }
    const v = e[k];
    switch (k) {
      case "tool":
        if (typeof v !== "string") return null;
        out.tool = v;
        break;
      case "agent":
        if (v !== null && typeof v !== "string") return null;
        out.agent = v;
        break;
      case "args":
      case "origins":
        // the hex: see the header
        if (typeof v !== "string" || v.length !== 64) return null;
        out[k] = v;
        break;
      case "labels":
      case "reasons": {
        const list = stringList(v);
        if (list === null) return null;
        out[k] = list;
        break;
      }
      case "decision":
        if (v !== "allow" && v !== "confirm" && v !== "refuse") return null;
        out.decision = v;
        break;
      case "confirmed":
      case "undo_of":
        if (v !== null && !isIndex(v)) return null;
        out[k] = v === null ? null : noNegativeZero(v);
        break;
      case "values": {
        const values = hexValues(v);
        if (values === null) return null;
        out.values = values;
        break;
      }
      default:
        if (!baseField(out, k, v)) return null;
    }
  }
  return complete(out, CHECK_FIELDS) ? out : null;
}

function readReport(e: Record<string, unknown>, keys: readonly string[]): ReportEntry | null {
  const out: Partial<ReportEntry> = {};
  for (const k of keys) {
    if (k === "kind") {
      out.kind = "report";
      continue;
    }
    const v = e[k];
    switch (k) {
      case "of":
        if (!isIndex(v)) return null;
        out.of = noNegativeZero(v);
        break;
      case "outcome":
        if (!isOutcome(v)) return null;
        out.outcome = v;
        break;
      case "result":
        // JSON data only; anything else (undefined, a Date, a cycle) takes the long way
        if (!isJson(v, 0)) return null;
        out.result = jsonCopy(v);
        break;
      default:
        if (!baseField(out, k, v)) return null;
    }
  }
  return complete(out, REPORT_FIELDS) ? out : null;
}

/** Plain JSON data (what the JSON round trip would copy unchanged), shallowly bounded in depth. */
function isJson(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(v) && !Object.is(v, -0);
    case "object":
      break;
    default:
      return false;
  }
  if (v === null) return true;
  if (depth > 64) return false;
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) return false;
    for (let i = 0; i < v.length; i++) if (!(i in v) || !isJson(v[i], depth + 1)) return false;
    return true;
  }
  if (!plain(v) || Object.hasOwn(v, "toJSON")) return false;
  for (const k of Object.keys(v)) if (!isJson(v[k], depth + 1)) return false;
  return true;
}

/** Every carried entry read by `readEntry`, or null when any one is unusual (or reading throws). */
export function readEntries(list: unknown): Entry[] | null {
  try {
    if (!Array.isArray(list) || Object.getPrototypeOf(list) !== Array.prototype) return null;
    const n = list.length;
    const out: Entry[] = new Array(n);
    for (let i = 0; i < n; i++) {
      if (!(i in list)) return null;
      const e = readEntry(list[i]);
      if (e === null) return null;
      out[i] = e;
    }
    return out;
  } catch {
    return null;
  }
}

/**
 * Do the caller's entries start with `count` entries equal, field for field, to `known` (entries
 * the engine verified)? Reads each field of the caller's once and compares it with ours; any
 * difference, odd shape or throwing read is a no (the whole history is then verified).
 */
export function samePrefix(list: unknown, known: readonly Entry[], count: number): boolean {
  try {
    if (!Array.isArray(list) || Object.getPrototypeOf(list) !== Array.prototype || list.length < count) return false;
    for (let i = 0; i < count; i++) {
      if (!(i in list) || !sameEntry(list[i], known[i]!)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

function sameEntry(e: unknown, k: Entry): boolean {
  // receipts (approvals) are left to the full verification, as readEntry leaves them
  if (!plain(e) || k.kind === "receipt") return false;
  const keys = Object.keys(e);
  if (keys.length !== KINDS[k.kind]) return false;
  for (const key of keys) {
    if (!Object.hasOwn(k, key)) return false;
    const mine: unknown = Reflect.get(k, key);
    const theirs = e[key];
    if (mine === theirs) continue;
    if (key === "labels" || key === "reasons") {
      if (k.kind !== "check" || !sameStrings(theirs, k[key])) return false;
    } else if (key === "values") {
      if (k.kind !== "check" || !sameValues(theirs, k.values)) return false;
    } else if (key === "result") {
      // JSON data compared by its serialisation (report results are small: kept to `returns`)
      if (!isJson(theirs, 0) || JSON.stringify(theirs) !== JSON.stringify(mine)) return false;
    } else return false;
  }
  return true;
}

function sameStrings(x: unknown, mine: readonly string[]): boolean {
  if (!Array.isArray(x) || Object.getPrototypeOf(x) !== Array.prototype || x.length !== mine.length) return false;
  for (let i = 0; i < mine.length; i++) if (!(i in x) || x[i] !== mine[i]) return false;
  return true;
}

function sameValues(x: unknown, mine: Record<string, string>): boolean {
  if (!plain(x)) return false;
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(mine).length) return false;
  for (const k of keys) if (!Object.hasOwn(mine, k) || x[k] !== mine[k]) return false;
  return true;
}
