/**
 * The SDK's entry points check what they are handed before doing anything with it: an unknown
 * key (`catalog`), a missing catalogue, a value of the wrong kind is an `InputError` naming the
 * key (its `pointer`) and, for a typo, the key meant. The engine checks a call's options
 * (check/normalise.ts) with the same helper, so the SDK, the worker and the CLI say it alike.
 */
import { checkOptionKeys, InputError } from "../../worker/portable/engine/index.js";

const CLIENT_KEYS = ["home", "now", "url", "key", "timeoutMs", "licence"] as const;
const SESSION_KEYS = ["catalogue", "rulebook", "language", "context", "agent", "taintModelAfterUntrusted"] as const;
const RESUME_KEYS = ["catalogue", "rulebook"] as const;

const CATALOGUE_WORDS = "a path to agent.yaml, its YAML text, or the parsed object";

export function checkClientOptions(o: unknown): void {
  checkOptionKeys(o, CLIENT_KEYS, "the client options", { example: `new Client({ home: "./.stalwart" })` });
  const v = o as Record<string, unknown>;
  expectType(v, "home", "string", "a folder path");
  expectType(v, "url", "string", "a check worker's URL, e.g. `http://127.0.0.1:8787`");
  expectType(v, "key", "string", "the check worker's API key");
  expectType(v, "now", "function", "a function returning a Date");
  // a timer holds at most 2^31 - 1 ms: past it Node fires after 1 ms, so every check would be refused at once
  if (v.timeoutMs !== undefined && !(typeof v.timeoutMs === "number" && Number.isFinite(v.timeoutMs) && v.timeoutMs > 0 && v.timeoutMs <= 2 ** 31 - 1)) {
    throw new InputError("`timeoutMs` must be a positive number of milliseconds, at most 2147483647 (about 24 days)", "/timeoutMs");
  }
}

/** `session(name, options)`: a name, and options holding at least a catalogue. */
export function checkSessionOptions(name: unknown, o: unknown): void {
  if (typeof name !== "string") {
    throw new InputError(`a session's name must be a string, not ${typeof name}`, "/name", `e.g. client.session("billing", { catalogue: "agent.yaml" })`);
  }
  if (name.length === 0 || name.length > 200) {
    throw new InputError(`a session needs a name of 1–200 characters, not ${name.length}`, "/name", `a short name for the conversation, e.g. client.session("billing", { catalogue: "agent.yaml" })`);
  }
  if (o === undefined) {
    throw new InputError(`client.session(${JSON.stringify(name.slice(0, 40))}) needs its options, with the catalogue: ${CATALOGUE_WORDS}`, "/catalogue", `client.session(${JSON.stringify(name.slice(0, 40))}, { catalogue: "agent.yaml" })`);
  }
  checkOptionKeys(o, SESSION_KEYS, "the session options", { example: `{ catalogue: "agent.yaml" }` });
  const v = o as Record<string, unknown>;
  if (v.catalogue === undefined) throw new InputError(`the session options need \`catalogue\`: ${CATALOGUE_WORDS}`, "/catalogue", `{ catalogue: "agent.yaml" }`);
  catalogueKind(v.catalogue, "/catalogue");
  if (v.rulebook !== undefined && (typeof v.rulebook !== "string" || v.rulebook === "") && (typeof v.rulebook !== "object" || v.rulebook === null)) {
    throw new InputError("`rulebook` must be a path, its text, or the parsed object", "/rulebook");
  }
  expectType(v, "agent", "string", "an agent named in the catalogue's `agents`");
  expectType(v, "taintModelAfterUntrusted", "boolean", "true or false");
}

/** `resume(saved, options?)`: options, when given, hold only a catalogue and a rulebook. */
export function checkResumeOptions(o: unknown): void {
  checkOptionKeys(o, RESUME_KEYS, "the resume options", { example: `{ catalogue: "agent.yaml" }` });
  const v = (o ?? {}) as Record<string, unknown>;
  if (v.catalogue !== undefined) catalogueKind(v.catalogue, "/catalogue");
}

function catalogueKind(c: unknown, pointer: string): void {
  const ok = (typeof c === "string" && c.trim() !== "") || (typeof c === "object" && c !== null && !Array.isArray(c));
  if (!ok) throw new InputError(`\`catalogue\` must be ${CATALOGUE_WORDS}`, pointer, `{ catalogue: "agent.yaml" }`);
}

function expectType(v: Record<string, unknown>, key: string, type: string, words: string): void {
  const value = v[key];
  if (value !== undefined && typeof value !== type) throw new InputError(`\`${key}\` must be ${words}, not ${value === null ? "null" : typeof value}`, `/${key}`);
}
