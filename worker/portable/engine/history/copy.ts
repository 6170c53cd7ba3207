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
 *     `entryShapeError` but for the link's hex, which the core checks as it decodes it; a history
 *     that fails this way is verified again the long way, so a refusal says what it always said.
 *     It does not read receipt entries (approvals): a history with one takes the long way.
 */
import type { CheckEntry, Entry, ReportEntry } from "./entry.js";

const KINDS = { turn: 6, check: 15, report: 8 } as const;

/** A copy of JSON data (a report's result): the round trip is only ever over that value. */
const jsonCopy = (v: unknown): unknown => (v === null || typeof v !== "object" ? v : JSON.parse(JSON.stringify(v)));

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

const HEX64 = /^[0-9a-f]{64}$/;
const HEX32 = /^[0-9a-f]{32}$/;

function plain(o: unknown): o is Record<string, unknown> {
  if (typeof o !== "object" || o === null || Array.isArray(o)) return false;
  const proto = Object.getPrototypeOf(o);
  return proto === Object.prototype || proto === null;
}

const isIndex = (x: unknown): x is number => typeof x === "number" && Number.isSafeInteger(x) && x >= 0;

/** A string list read once, or null (a hole, a non-string, anything but a plain array). */
function stringList(x: unknown): string[] | null {
  if (!Array.isArray(x) || Object.getPrototypeOf(x) !== Array.prototype) return null;
  const n = x.length;
  const out: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    if (!(i in x)) return null;
    const s: unknown = x[i];
    if (typeof s !== "string") return null;
    out[i] = s;
  }
  return out;
}

function hexValues(x: unknown): Record<string, string> | null {
  if (!plain(x)) return null;
  const out: Record<string, string> = {};
  for (const k of Object.keys(x)) {
    const h = x[k];
    if (typeof h !== "string" || !HEX32.test(h)) return null;
    if (k === "__proto__") Object.defineProperty(out, k, { value: h, enumerable: true, writable: true, configurable: true });
    else out[k] = h;
  }
  return out;
}

/** The fields every kind has, checked as `entryShapeError` checks them. */
function base(k: string, v: unknown): boolean {
  switch (k) {
    case "v":
      return v === 1;
    case "step":
      return isIndex(v);
    case "at":
      return typeof v === "number" && Number.isFinite(v);
    case "link":
      // its hex is checked where it is decoded, in the core (a failure there takes the long way)
      return typeof v === "string" && v.length === 64;
    default:
      return false;
  }
}

/**
 * Read a carried entry into a fresh object (see the header), or null. Reads each own property
 * once; a key outside its kind, or a value JSON would not carry as it is, gives null.
 */
export function readEntry(e: unknown): Entry | null {
  if (!plain(e)) return null;
  const keys = Object.keys(e);
  const kind = e.kind;
  if (kind !== "turn" && kind !== "check" && kind !== "report") return null;
  if (keys.length !== KINDS[kind]) return null;
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const v = k === "kind" ? kind : e[k];
    let copy: unknown = v;
    let ok: boolean;
    if (k === "v" || k === "step" || k === "at" || k === "link") ok = base(k, v);
    else if (k === "kind") ok = true;
    else if (kind === "turn") ok = k === "text" && typeof v === "string";
    else if (kind === "check") {
      switch (k) {
        case "tool":
          ok = typeof v === "string";
          break;
        case "agent":
          ok = v === null || typeof v === "string";
          break;
        case "args":
        case "origins":
          ok = typeof v === "string" && HEX64.test(v);
          break;
        case "labels":
        case "reasons":
          ok = (copy = stringList(v)) !== null;
          break;
        case "decision":
          ok = v === "allow" || v === "confirm" || v === "refuse";
          break;
        case "confirmed":
        case "undo_of":
          ok = v === null || isIndex(v);
          break;
        case "values":
          ok = (copy = hexValues(v)) !== null;
          break;
        default:
          ok = false;
      }
    } else {
      switch (k) {
        case "of":
          ok = isIndex(v);
          break;
        case "outcome":
          ok = v === "ran" || v === "failed" || v === "outcome_unknown" || v === "compensated";
          break;
        case "result":
          // JSON data only; anything else (undefined, a Date, a cycle) takes the long way
          ok = isJson(v, 0);
          if (ok) copy = jsonCopy(v);
          break;
        default:
          ok = false;
      }
    }
    if (!ok) return null;
    // the round trip turned -0 into 0; so does this
    out[k] = copy === 0 ? 0 : copy;
  }
  // a key repeated by a hostile ownKeys, or one missing: the count matched but the set did not
  if (Object.keys(out).length !== keys.length) return null;
  return out as unknown as CheckEntry | ReportEntry | Entry;
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
  const o = k as unknown as Record<string, unknown>;
  for (const key of keys) {
    if (!Object.hasOwn(o, key)) return false;
    const mine = o[key];
    const theirs = e[key];
    if (mine === theirs) continue;
    if (key === "labels" || key === "reasons") {
      if (!sameStrings(theirs, mine as string[])) return false;
    } else if (key === "values") {
      if (!sameValues(theirs, mine as Record<string, string>)) return false;
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
