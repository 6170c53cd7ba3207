/**
 * The caller's input made into a `Call`, once, before the steps run: options of the wrong shape
 * are a typed error; arguments that are not JSON data are kept for step 3 to refuse; labels are
 * merged from the caller and from propagation (origins/labels.ts).
 */
import { canonicalize, canonicalizeTop } from "../canonical/jcs.js";
import { InputError } from "../errors.js";
import type { Call, CallOptions, Labels } from "./types.js";

export /**
 * Turn the caller's input into a Call. Arguments that are not JSON data refuse at step 3's place
 * (`argument_schema`, rule `json`); options of the wrong shape are a typed error.
 */
function normaliseCall(tool: unknown, args: unknown, o: CallOptions, defaultAgent: string | null, sha: (s: string) => string): Call {
  if (typeof tool !== "string") throw new InputError("the tool name must be a string", "/tool");
  if (typeof o !== "object" || o === null) throw new InputError("options must be an object", "/options");
  const origins = o.origins ?? {};
  if (typeof origins !== "object" || origins === null || Array.isArray(origins) || Object.values(origins).some((v) => typeof v !== "string")) {
    throw new InputError("`origins` must map argument names to origin strings", "/options/origins");
  }
  const labelsByArg: Labels = o.labels ?? {};
  if (typeof labelsByArg !== "object" || labelsByArg === null || Array.isArray(labelsByArg) || Object.values(labelsByArg).some((v) => !Array.isArray(v) || v.some((l) => typeof l !== "string"))) {
    throw new InputError("`labels` must map `call` or argument names to lists of labels", "/options/labels");
  }
  if (o.confirmation !== undefined && typeof o.confirmation !== "string") throw new InputError("`confirmation` must be the token string a confirm returned", "/options/confirmation");
  if (o.undoOf !== undefined && !Number.isSafeInteger(o.undoOf)) throw new InputError("`undoOf` must be a step number", "/options/undoOf");
  if (o.agent !== undefined && typeof o.agent !== "string") throw new InputError("`agent` must be a string", "/options/agent");
  const facts = o.facts ?? {};
  if (typeof facts !== "object" || facts === null || Array.isArray(facts)) throw new InputError("`facts` must be an object", "/options/facts");

  const labels = [...new Set(Object.values(labelsByArg).flat())].sort();
  const originsCanonical = canonicalize(origins);
  const call: Call = {
    tool, args: {}, digest: "0".repeat(64), originsDigest: sha(originsCanonical), origins, labels, labelsByArg,
    agent: o.agent ?? defaultAgent, facts,
    ...(o.confirmation !== undefined ? { confirmation: o.confirmation } : {}),
    ...(o.undoOf !== undefined ? { undoOf: o.undoOf } : {}),
  };
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    call.argsError = { pointer: "", rule: "type", message: "arguments must be an object" };
    return call;
  }
  let canonical: string;
  try {
    const top = canonicalizeTop(args as Record<string, unknown>);
    canonical = top.text;
    call.argParts = top.parts;
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    call.argsError = { pointer: err.pointer ?? "", rule: "json", message: err.message };
    return call;
  }
  call.args = args as Record<string, unknown>;
  call.digest = sha(canonical);
  return call;
}


/** Add propagated labels to a call (per argument and in its sorted list). */
export function addLabels(call: Call, extra: Record<string, string[]>): void {
  const keys = Object.keys(extra);
  if (keys.length === 0) return;
  const byArg: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(call.labelsByArg)) byArg[k] = [...v];
  for (const k of keys) byArg[k] = [...new Set([...(byArg[k] ?? []), ...extra[k]!])];
  call.labelsByArg = byArg;
  call.labels = [...new Set(Object.values(byArg).flat())].sort();
}
