/**
 * The caller's input made into a `Call`, once, before the steps run: options of the wrong shape
 * are a typed error; arguments that are not JSON data are kept for step 3 to refuse; labels are
 * merged from the caller and from propagation (origins/labels.ts).
 *
 * Everything a step reads is a copy made here, read from the caller's objects exactly once:
 *   - the arguments are the canonical arguments (the same text as `digest`), so a getter that
 *     answers one thing to the check and another later changes nothing the check sees;
 *   - origins, labels and facts are null-prototype records of the caller's own entries, so an
 *     argument named `constructor`, `toString` or `__proto__` finds only what the caller wrote
 *     for it (checks.md: user input never reaches an object lookup without an own-property check).
 */
import { canonicalize, canonicalizeTop, sortKeys } from "../canonical/jcs.js";
import { defineOwn, own, ownRecord } from "../canonical/own.js";
import { InputError, StalwartError } from "../errors.js";
import { escapeSegment } from "../schema/pointer.js";
import { CALL_OPTION_KEYS, type Call, type CallOptions, type Labels } from "./types.js";
import { checkOptionKeys } from "../options.js";
import { isOriginWord, originWordProblem } from "../origins/origins.js";

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The JSON data `value` holds, read once (any failure to read it is an `InputError` at `pointer`). */
function jsonOf(value: unknown, pointer: string, what: string): { text: string; data: unknown } {
  let text: string;
  try {
    text = canonicalize(value);
  } catch (err) {
    if (err instanceof InputError) throw new InputError(`${what} is not JSON data: ${err.message}`, pointer + (err.pointer ?? ""));
    if (err instanceof StalwartError) throw err;
    throw new InputError(`${what} could not be read: ${String((err as Error)?.message ?? err).slice(0, 200)}`, pointer);
  }
  return { text, data: JSON.parse(text) };
}

/** A null-prototype copy of a JSON map's entries (values kept as parsed). */
function ownMap(data: Record<string, unknown>): Record<string, unknown> {
  return ownRecord(Object.keys(data).map((k) => [k, data[k]] as const));
}

export /**
 * Turn the caller's input into a Call. Arguments that are not JSON data refuse at step 3's place
 * (`argument_schema`, rule `json`); options of the wrong shape are a typed error.
 */
function normaliseCall(tool: unknown, args: unknown, o: CallOptions, defaultAgent: string | null, sha: (s: string) => string): Call {
  if (typeof tool !== "string") throw new InputError("the tool name must be a string", "/tool");
  if (typeof o !== "object" || o === null) throw new InputError("options must be an object", "/options");
  checkOptionKeys(o, CALL_OPTION_KEYS, "the call options", OPTION_BASE);
  const origins = readOrigins(option(o, "origins"));
  const labelsByArg = readLabels(option(o, "labels"));
  const confirmation = option(o, "confirmation");
  const undoOf = option(o, "undoOf");
  const agent = option(o, "agent");
  const explain = option(o, "explain");
  if (explain !== undefined && typeof explain !== "boolean") throw new InputError("`explain` must be true or false", "/options/explain");
  if (confirmation !== undefined && typeof confirmation !== "string") throw new InputError("`confirmation` must be the token string a confirm returned", "/options/confirmation");
  if (undoOf !== undefined && !Number.isSafeInteger(undoOf)) throw new InputError("`undoOf` must be a step number", "/options/undoOf");
  if (agent !== undefined && typeof agent !== "string") throw new InputError("`agent` must be a string", "/options/agent");
  const facts = readFacts(option(o, "facts"));

  const labels = sortedLabels(labelsByArg);
  const call: Call = {
    tool, args: NONE, digest: NO_DIGEST, originsDigest: sha(origins.text), origins: origins.record, labels, labelsByArg,
    agent: agent ?? defaultAgent, facts,
  };
  // set when given rather than spread into the literal (a spread builds the object the slow way)
  if (confirmation !== undefined) call.confirmation = confirmation;
  if (undoOf !== undefined) call.undoOf = undoOf as number;
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    call.args = Object.create(null) as Record<string, unknown>;
    call.argsError = { pointer: "", rule: "type", message: "arguments must be an object" };
    return call;
  }
  let top: ReturnType<typeof canonicalizeTop>;
  try {
    top = canonicalizeTop(args as Record<string, unknown>);
  } catch (err) {
    // not JSON data, or an object that throws when read (a getter, a proxy): refused at step 3
    const pointer = err instanceof InputError ? err.pointer ?? "" : "";
    const message = err instanceof StalwartError ? err.message : `the arguments could not be read: ${String((err as Error)?.message ?? err).slice(0, 200)}`;
    call.args = Object.create(null) as Record<string, unknown>;
    call.argsError = { pointer, rule: "json", message };
    return call;
  }
  // The checked arguments: the canonical text parsed back, in the caller's key order.
  const checked = Object.create(null) as Record<string, unknown>;
  for (const k of top.order) {
    // a string, number, boolean or null is its own copy (-0 canonicalises as 0, so it is parsed)
    const got = top.read[k];
    // `checked` has no prototype: an assignment makes an own property, `__proto__` too (defineOwn's case)
    checked[k] = typeof got === "object" || got === 0 ? JSON.parse(top.parts[k]!) : got;
  }
  call.args = checked;
  call.argNames = Object.keys(checked);
  call.argParts = top.parts;
  call.digest = sha(top.text);
  return call;
}

const OPTION_BASE = { base: "/options" } as const;

/**
 * An option's own value; an options object that throws when read (a proxy, a getter) is a typed
 * error, never a raw one. (A function, not a closure over `o` made per check.)
 */
function option(o: CallOptions, key: string): unknown {
  try {
    return own(o, key);
  } catch (err) {
    throw new InputError(`\`${key}\` could not be read: ${String((err as Error)?.message ?? err).slice(0, 200)}`, `/options/${key}`);
  }
}

/**
 * The empty record a call without labels, facts or origins reads (null prototype, frozen; shared,
 * since a call's records are only ever read or replaced, never written): one fewer dictionary
 * object per record per check.
 */
const NONE: Readonly<Record<string, never>> = Object.freeze(Object.create(null) as Record<string, never>);
const NO_DIGEST = "0".repeat(64);

/** Every label of the call, sorted and unique (none, as a rule: no Set, no copies then). */
function sortedLabels(byArg: Labels): string[] {
  const keys = Object.keys(byArg);
  if (keys.length === 0) return [];
  return [...new Set(keys.flatMap((k) => byArg[k] ?? []))].sort();
}

const NO_ORIGINS = Object.freeze({ text: "{}", record: NONE });

function readOrigins(raw: unknown): { text: string; record: Readonly<Record<string, string>> } {
  if (raw === undefined || raw === null) return NO_ORIGINS;
  const bad = () => new InputError("`origins` must map argument names to origin strings", "/options/origins");
  if (!isMap(raw)) throw bad();
  const quick = plainOrigins(raw);
  if (quick) return quick.words ? quick : checkedWords(quick);
  const { text, data } = jsonOf(raw, "/options/origins", "`origins`");
  if (!isMap(data) || Object.values(data).some((v) => typeof v !== "string")) throw bad();
  return checkedWords({ text, record: ownMap(data) as Record<string, string> });
}

/** A misspelt origin (`typd`) would silently count as untrusted: say so instead, on either path. */
function checkedWords<T extends { record: Readonly<Record<string, string>> }>(origins: T): T {
  for (const name of Object.keys(origins.record)) {
    const problem = originWordProblem(origins.record[name] ?? "");
    if (problem) throw new InputError(problem.message, `/options/origins/${escapeSegment(name)}`, problem.hint);
  }
  return origins;
}

/**
 * The common case without a round trip: a plain object of plain names (argument names and origin
 * words need no escaping), each read once. Anything else (escapes, a getter that throws, a
 * prototype) returns null and takes the general path, which says what is wrong.
 */
function plainOrigins(raw: Record<string, unknown>): { text: string; record: Readonly<Record<string, string>>; words: boolean } | null {
  // a getter that checks another call while this one is read would write over the shared bytes
  if (originsBusy) return null;
  originsBusy = true;
  try {
    return plainOriginsOnce(raw);
  } finally {
    originsBusy = false;
  }
}
let originsBusy = false;

function plainOriginsOnce(raw: Record<string, unknown>): { text: string; record: Readonly<Record<string, string>>; words: boolean } | null {
  if (Object.getPrototypeOf(raw) !== Object.prototype) return null;
  let keys: string[];
  try {
    keys = Object.keys(raw);
  } catch {
    return null;
  }
  // no origins (a call without arguments): the shared empty answer, not "{}" decoded from bytes again
  if (keys.length === 0) return NO_PLAIN_ORIGINS;
  if (keys.length > 1) sortKeys(keys);
  const record = Object.create(null) as Record<string, string>;
  // The text as ASCII bytes, decoded once: a string built piece by piece is a rope, which the
  // digest memo's lookup has to flatten first (that flattening cost more than building it).
  let b = originBytes;
  let at = 0;
  b[at++] = 0x7b; // {
  // every value a plain origin word (the common case): checkedWords would find nothing to say
  let words = true;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    let v: unknown;
    try {
      v = raw[k];
    } catch {
      return null;
    }
    if (typeof v !== "string") return null;
    if (at + k.length + v.length + 8 > b.length) {
      const grown = new Uint8Array(2 * (at + k.length + v.length + 8));
      grown.set(b.subarray(0, at));
      b = originBytes = grown;
    }
    if (i) b[at++] = 0x2c; // ,
    at = plainInto(b, at, k);
    if (at < 0) return null;
    b[at++] = 0x3a; // :
    at = plainInto(b, at, v);
    if (at < 0) return null;
    if (words && !isOriginWord(v)) words = false;
    record[k] = v; // no prototype (as above)
  }
  b[at++] = 0x7d; // }
  return { text: ascii.decode(b.subarray(0, at)), record, words };
}
const NO_PLAIN_ORIGINS = Object.freeze({ text: "{}", record: NONE, words: true });
let originBytes = new Uint8Array(256);
const ascii = new TextDecoder();

/** `s` quoted at `at` when every character is plain (A-Z a-z 0-9 _ . : @ + -): the offset after it, else -1. */
function plainInto(b: Uint8Array, at: number, s: string): number {
  b[at++] = 0x22;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f || PLAIN[c] !== 1) return -1;
    b[at++] = c;
  }
  b[at++] = 0x22;
  return at;
}
const PLAIN = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:@+-") PLAIN[c.charCodeAt(0)] = 1;

function readLabels(raw: unknown): Labels {
  if (raw === undefined || raw === null) return NONE;
  const bad = () => new InputError("`labels` must map `call` or argument names to lists of labels", "/options/labels");
  if (!isMap(raw)) throw bad();
  const { data } = jsonOf(raw, "/options/labels", "`labels`");
  if (!isMap(data) || Object.values(data).some((v) => !Array.isArray(v) || v.some((l) => typeof l !== "string"))) throw bad();
  return ownMap(data) as Record<string, string[]>;
}

function readFacts(raw: unknown): Readonly<Record<string, unknown>> {
  if (raw === undefined || raw === null) return NONE;
  if (!isMap(raw)) throw new InputError("`facts` must be an object", "/options/facts");
  const { data } = jsonOf(raw, "/options/facts", "`facts`");
  return ownMap(data as Record<string, unknown>);
}

/** Add propagated labels to a call (per argument and in its sorted list). */
export function addLabels(call: Call, extra: Readonly<Record<string, string[]>>): void {
  const keys = Object.keys(extra);
  if (keys.length === 0) return;
  const byArg = Object.create(null) as Record<string, string[]>;
  for (const k of Object.keys(call.labelsByArg)) defineOwn(byArg, k, [...(own(call.labelsByArg, k) as readonly string[])]);
  for (const k of keys) defineOwn(byArg, k, [...new Set([...((own(byArg, k) as string[] | undefined) ?? []), ...(own(extra, k) as string[])])]);
  call.labelsByArg = byArg;
  call.labels = sortedLabels(byArg);
}
