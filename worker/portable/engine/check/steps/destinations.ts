/**
 * Step 4: a destination (URL, e-mail address, host name, IP) in any string argument of a tool
 * that does not declare `sends_out`, or outside its allow-list. `lookup_args` are not scanned.
 * Reason `undeclared_destination`, detail `destinations`.
 */
import { destinationAllowed, scanDestinations } from "../../destinations/index.js";
import { PASS, type Call, type StepInput, type StepResult } from "../types.js";

export function destinations(call: Call, input: StepInput): StepResult {
  const tool = input.tool;
  const found = scanDestinations(call.args, tool.lookupArgs);
  if (found.length === 0) return PASS;
  const patterns = tool.sendsOut;
  const outside = patterns ? found.filter((d) => !destinationAllowed(d, patterns)) : found;
  if (outside.length === 0) return PASS;
  return { kind: "refuse", reason: "undeclared_destination", detail: { destinations: outside } };
}
