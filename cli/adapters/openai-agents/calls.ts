/**
 * What the adapter reads of an Agents JS function call: its arguments as data, and the namespace
 * of the tool it reaches (outside audit 7, F14).
 */
import { duplicateKey } from "../../../worker/portable/engine/index.js";
import { nameText } from "../../gateway/words.js";
import type { Verdict } from "../types.js";

/**
 * The namespace a tool was put in (`toolNamespace`): Agents JS 0.20 keeps it on the tool under a
 * symbol of its own (`functionToolNamespace`), which the guarded copy keeps. Read without importing
 * the framework; a namespace it does not find is caught at the call (`otherNamespace`).
 */
export function namespaceOf(t: object): string | undefined {
  for (const s of Object.getOwnPropertySymbols(t)) {
    const v: unknown = (t as Record<symbol, unknown>)[s];
    if (s.description === "functionToolNamespace" && typeof v === "string" && v !== "") return v;
  }
  return undefined;
}

/**
 * A call that names a namespace other than this tool's: refused. The framework finds the tool by
 * the call's namespace, so they agree; if not (a framework that keeps the namespace elsewhere),
 * the approval bound to this tool's namespace cannot be said to be of this call. A deferred tool
 * the model calls by its own name as namespace is outside any.
 */
export function otherNamespace(call: { name: string; namespace?: unknown }, name: string, ns: string | undefined): Verdict | undefined {
  const called = calledNamespace(call);
  if (called === ns) return undefined;
  const where = (n: string | undefined) => (n === undefined ? "no namespace" : `namespace \`${nameText(n)}\``);
  const why = `${name} did not run: the call names ${where(called)}, and the tool it reached is in ${where(ns)}.`;
  return { decision: "refuse", check: { decision: "refuse", reasons: [], detail: { message: why }, step: -1 }, message: why };
}

/**
 * The model's argument text as data; undefined when it is not JSON, or gives a key twice in one
 * object (JSON.parse keeps the last; a tool that reads the text itself may take the first, and
 * the call checked must be the call run).
 */
export function parseArgs(text: string): unknown {
  try {
    const args: unknown = JSON.parse(text === "" ? "{}" : text);
    return duplicateKey(text) ? undefined : args;
  } catch {
    return undefined;
  }
}


/** The namespace a call names; none for a deferred tool called by its own name as namespace. */
export function calledNamespace(call: { name: string; namespace?: unknown }): string | undefined {
  return typeof call.namespace === "string" && call.namespace !== "" && call.namespace !== call.name ? call.namespace : undefined;
}
