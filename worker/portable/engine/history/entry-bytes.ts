/**
 * An entry's canonical bytes written straight into a byte array (the core's memory), equal to
 * `utf8(entryCanonical(e))` (a property test holds the two together). A full verification writes
 * every carried entry this way: building each entry's text as a string, joining the run and
 * encoding it cost more than the MACs' own JS (docs/perf/engine.round7.md).
 *
 * Plain ASCII strings and integers are written a byte at a time; anything else (escapes, non-ASCII,
 * fractions, a report's result) takes the string path through `jcs.ts` and is encoded, so the bytes
 * are the same by construction and an entry JCS cannot carry throws the same `InputError`.
 */
import { canonicalNumber, canonicalString, sortKeys } from "../canonical/jcs.js";
import { InputError } from "../errors.js";
import { entryCanonical, type CheckEntry, type Entry, type TurnEntry } from "./entry.js";

const encoder = new TextEncoder();

/** The fixed parts of the forms below, as bytes. */
const bytesOf = (s: string): Uint8Array => Uint8Array.from(s, (c) => c.charCodeAt(0));
const AGENT = bytesOf(`{"agent":`);
const ARGS = bytesOf(`,"args":`);
const AGENT_NULL_ARGS = bytesOf(`{"agent":null,"args":`);
const AT = bytesOf(`,"at":`);
const CONFIRMED = bytesOf(`,"confirmed":`);
const CONFIRMED_NULL = bytesOf(`,"confirmed":null`);
const DECISION = bytesOf(`,"decision":`);
const LABELS = bytesOf(`,"kind":"check","labels":`);
/** `,"decision":"…","kind":"check","labels":` for each decision: one constant instead of three parts */
const DECIDED: Readonly<Record<string, Uint8Array>> = {
  allow: bytesOf(`,"decision":"allow","kind":"check","labels":`),
  confirm: bytesOf(`,"decision":"confirm","kind":"check","labels":`),
  refuse: bytesOf(`,"decision":"refuse","kind":"check","labels":`),
};
const ORIGINS = bytesOf(`,"origins":`);
const REASONS = bytesOf(`,"reasons":`);
const STEP = bytesOf(`,"step":`);
const TOOL = bytesOf(`,"tool":`);
const UNDO = bytesOf(`,"undo_of":`);
const VALUES = bytesOf(`,"v":1,"values":`);
const UNDO_NULL_VALUES = bytesOf(`,"undo_of":null,"v":1,"values":`);
const TURN_AT = bytesOf(`{"at":`);
const TURN_KIND = bytesOf(`,"kind":"turn","step":`);
const TURN_TEXT = bytesOf(`,"text":`);
const TURN_END = bytesOf(`,"v":1}`);

/**
 * Write `e`'s canonical form into `u8` from `at`, using no byte at or past `end`: the offset after
 * it, or -1 when it may not fit (conservatively: the caller retries with more room, or streams).
 * Throws as `entryCanonical` does, and for a digest that is not lowercase hex. Assumes the rest of
 * `entryShapeError(e) === null`, as `entryCanonical` does.
 */
export function writeEntry(e: Entry, u8: Uint8Array, at: number, end: number): number {
  if (e.kind === "check") return writeCheck(e, u8, at, end);
  if (e.kind === "turn") return writeTurn(e, u8, at, end);
  return putText(u8, at, end, entryCanonical(e));
}

function writeCheck(e: CheckEntry, u8: Uint8Array, at: number, end: number): number {
  // After each string (which bounds itself), room for the fixed parts and numbers up to the next
  // one: a number is at most 25 bytes, the longest run of fixed parts and numbers 116 (`at` to
  // `labels`). The common values (a null agent, reference or undo, each decision) are written with
  // the fixed parts around them as one constant: fewer, longer copies.
  if (at + AGENT_NULL_ARGS.length > end) return -1;
  if (e.agent === null) at = put(u8, at, AGENT_NULL_ARGS);
  else {
    at = put(u8, at, AGENT);
    at = putString(u8, at, end, e.agent, "/agent");
    if (at < 0 || at + 16 > end) return -1;
    at = put(u8, at, ARGS);
  }
  at = putHex(u8, at, end, e.args, 64);
  if (at < 0 || at + 120 > end) return -1;
  at = put(u8, at, AT);
  at = putNumber(u8, at, e.at, "/at");
  if (e.confirmed === null) at = put(u8, at, CONFIRMED_NULL);
  else {
    at = put(u8, at, CONFIRMED);
    at = putNumber(u8, at, e.confirmed, "/confirmed");
  }
  const decided = e.decision === "allow" || e.decision === "confirm" || e.decision === "refuse" ? DECIDED[e.decision] : undefined;
  if (decided !== undefined) at = put(u8, at, decided);
  else {
    at = put(u8, at, DECISION);
    at = putString(u8, at, end, e.decision, "/decision");
    if (at < 0 || at + 32 > end) return -1;
    at = put(u8, at, LABELS);
  }
  at = putList(u8, at, end, e.labels, "/labels");
  if (at < 0 || at + 16 > end) return -1;
  at = put(u8, at, ORIGINS);
  at = putHex(u8, at, end, e.origins, 64);
  if (at < 0 || at + 16 > end) return -1;
  at = put(u8, at, REASONS);
  at = putList(u8, at, end, e.reasons, "/reasons");
  if (at < 0 || at + 48 > end) return -1;
  at = put(u8, at, STEP);
  at = putStep(u8, at, e.step);
  at = put(u8, at, TOOL);
  at = putString(u8, at, end, e.tool, "/tool");
  if (at < 0 || at + 60 > end) return -1;
  if (e.undo_of === null) at = put(u8, at, UNDO_NULL_VALUES);
  else {
    at = put(u8, at, UNDO);
    at = putNumber(u8, at, e.undo_of, "/undo_of");
    at = put(u8, at, VALUES);
  }
  at = putValues(u8, at, end, e.values);
  if (at < 0 || at + 1 > end) return -1;
  u8[at] = 0x7d; // }
  return at + 1;
}

function writeTurn(e: TurnEntry, u8: Uint8Array, at: number, end: number): number {
  if (at + 120 > end) return -1;
  at = put(u8, at, TURN_AT);
  at = putNumber(u8, at, e.at, "/at");
  at = put(u8, at, TURN_KIND);
  at = putStep(u8, at, e.step);
  at = put(u8, at, TURN_TEXT);
  at = putString(u8, at, end, e.text, "/text");
  if (at < 0 || at + TURN_END.length > end) return -1;
  return put(u8, at, TURN_END);
}

/** A constant part (the caller made room). A loop: shorter than what `set` costs per call. */
function put(u8: Uint8Array, at: number, b: Uint8Array): number {
  const n = b.length;
  for (let i = 0; i < n; i++) u8[at + i] = b[i]!;
  return at + n;
}

/** A string as `canonicalString` writes it, in UTF-8; -1 when it may not fit before `end`. */
function putString(u8: Uint8Array, at: number, end: number, s: string, pointer: string): number {
  const n = s.length;
  if (at + n + 2 <= end) {
    let o = at + 1;
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      // printable ASCII but `"` and `\`: JSON.stringify leaves it as it is
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) break;
      u8[o++] = c;
    }
    if (i === n) {
      u8[at] = 0x22;
      u8[o] = 0x22;
      return o + 1;
    }
  }
  return putText(u8, at, end, canonicalString(s, pointer));
}

/**
 * A digest: `len` lowercase hex characters, quoted (what `entryCanonical` writes for one). Anything
 * else is not one and throws: readEntry (copy.ts) leaves the digests' hex to this check, and a
 * run that fails here is verified again the long way, whose shape check names what is wrong.
 */
function putHex(u8: Uint8Array, at: number, end: number, s: string, len: number): number {
  if (at + len + 2 > end) return -1;
  if (s.length !== len) throw new InputError(`a digest is not ${len} hex characters`, "");
  let bad = 0;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    // a table, not two range tests: with digits and letters at random those branches mispredict
    // (the bench's digests repeat, so only other histories show it: docs/perf/engine-d.round9.md)
    bad |= NOT_HEX[c & 0xff]! | (c >> 8);
    u8[at + 1 + i] = c;
  }
  if (bad !== 0) throw new InputError(`a digest is not ${len} hex characters`, "");
  u8[at] = 0x22;
  u8[at + len + 1] = 0x22;
  return at + len + 2;
}

/** 0 for the lowercase hex digits, 1 for every other byte */
const NOT_HEX = new Uint8Array(256).fill(1);
for (const c of "0123456789abcdef") NOT_HEX[c.charCodeAt(0)] = 0;

/** A text as UTF-8 (at most 3 bytes per UTF-16 unit); -1 when it may not fit. */
function putText(u8: Uint8Array, at: number, end: number, text: string): number {
  if (at + text.length * 3 > end) return -1;
  return at + encoder.encodeInto(text, u8.subarray(at, end)).written;
}

function putList(u8: Uint8Array, at: number, end: number, xs: readonly string[], pointer: string): number {
  if (at + 2 > end) return -1;
  u8[at++] = 0x5b; // [
  for (let i = 0; i < xs.length; i++) {
    if (i > 0) {
      if (at + 1 > end) return -1;
      u8[at++] = 0x2c; // ,
    }
    at = putString(u8, at, end, xs[i]!, pointer);
    if (at < 0 || at + 1 > end) return -1;
  }
  u8[at] = 0x5d; // ]
  return at + 1;
}

function putValues(u8: Uint8Array, at: number, end: number, m: Record<string, string>): number {
  const keys = Object.keys(m);
  if (keys.length > 1) sortKeys(keys);
  if (at + 2 > end) return -1;
  u8[at++] = 0x7b; // {
  for (let i = 0; i < keys.length; i++) {
    if (i > 0) u8[at++] = 0x2c; // ,
    at = putString(u8, at, end, keys[i]!, "/values");
    if (at < 0 || at + 2 > end) return -1;
    u8[at++] = 0x3a; // :
    at = putHex(u8, at, end, m[keys[i]!]!, 32);
    if (at < 0 || at + 2 > end) return -1;
  }
  u8[at] = 0x7d; // }
  return at + 1;
}

/**
 * A number as `canonicalNumber` writes it (JSON.stringify: ECMAScript's shortest form, -0 → 0).
 * Integers below 2^53 are their digits, written here; anything else is formatted by the string
 * path (at most 25 characters, which the callers' bounds leave room for).
 */
function putNumber(u8: Uint8Array, at: number, n: number, pointer: string): number {
  if (Number.isSafeInteger(n)) {
    if (n < 0) {
      u8[at++] = 0x2d; // -
      n = -n;
    }
    return putDigits(u8, at, n);
  }
  return putAscii(u8, at, canonicalNumber(n, pointer));
}

/** `step` as entryCanonical writes it: `${step}`, which is the same for the integers a step is. */
function putStep(u8: Uint8Array, at: number, n: number): number {
  if (Number.isSafeInteger(n) && n >= 0) return putDigits(u8, at, n);
  return putAscii(u8, at, String(n));
}

/** A non-negative safe integer's decimal digits (0 for -0). */
function putDigits(u8: Uint8Array, at: number, n: number): number {
  if (n < 10) {
    u8[at] = 48 + n;
    return at + 1;
  }
  // in two halves below 1e8 each (then 2^53 has 16 digits), so the divisions are small-integer ones
  const hi = Math.floor(n / 1e8);
  let lo = n - hi * 1e8;
  let len = 0;
  if (hi > 0) {
    len = 8 + digitCount(hi);
  } else len = digitCount(lo);
  let o = at + len;
  const stop = hi > 0 ? at + len - 8 : at;
  while (o > stop) {
    const q = (lo / 10) | 0;
    u8[--o] = 48 + lo - q * 10;
    lo = q;
  }
  let h = hi;
  while (o > at) {
    const q = (h / 10) | 0;
    u8[--o] = 48 + h - q * 10;
    h = q;
  }
  return at + len;
}

function digitCount(n: number): number {
  let d = 1;
  while (n >= 10) {
    n = (n / 10) | 0;
    d++;
  }
  return d;
}

/** A short ASCII text (a formatted number). */
function putAscii(u8: Uint8Array, at: number, s: string): number {
  for (let i = 0; i < s.length; i++) u8[at + i] = s.charCodeAt(i);
  return at + s.length;
}
