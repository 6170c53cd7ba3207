/**
 * Step 9: labels less trusted than the tool requires, on a write. Refused here when the
 * catalogue's `taint_policy` is `refuse`; otherwise held for step 11 as `tainted_call`, with the
 * question saying where the label came from. Reads are never held by a label.
 */
import { PASS, type Call, type StepInput, type StepResult } from "../types.js";
import { isWrite } from "./classes.js";

/** A label is trusted only when it says so; anything else (`untrusted:read_inbox`, unknown words) is not. */
export function isUntrustedLabel(label: string): boolean {
  return !(label === "trusted" || label.startsWith("trusted:"));
}

export function labels(call: Call, input: StepInput): StepResult {
  const tool = input.tool;
  // An undo's arguments are bound to the step it undoes (step 6), not to where they came from.
  if (!isWrite(tool) || tool.trust === "untrusted" || call.undoOf !== undefined) return PASS;
  const held = call.labels.filter(isUntrustedLabel);
  if (held.length === 0) return PASS;
  const sources = held.map((l) => (l.includes(":") ? l.slice(l.indexOf(":") + 1) : l));
  const detail = { labels: held };
  if (input.catalogue.settings.taintPolicy === "refuse") return { kind: "refuse", reason: "tainted_call", detail };
  const wording = `This call carries values from outside (${sources.join(", ")}), which ${tool.name} does not trust.`;
  return { kind: "pass", holds: [{ reason: "tainted_call", detail, wording }] };
}
