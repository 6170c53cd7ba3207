/**
 * Step 11: every reason a write needs a person, together. A write with none of them is still
 * confirmed, by `write` — unless the tool declares `confirm: when_held`.
 * This module gathers `argument_origin`; `tainted_call` (step 9) and `gate_clarify` (step 8)
 * arrive in `input.holds`.
 * Egress provenance (checks.md, beyond the seed): a destination is egress whatever the tool's
 * class, so a destination argument of any tool — a read included — whose origin is not trusted
 * or that carries an untrusted label is confirmed with `argument_origin` naming it. Labels alone
 * still never hold a read.
 */
import { originProblems, originTrusted } from "../../origins/origins.js";
import { scanDestinations } from "../../destinations/index.js";
import { isUntrustedLabel } from "./labels.js";
import { PASS, type Call, type StepInput, type Hold, type ReasonCode, type StepResult } from "../types.js";
import { isWrite } from "./classes.js";

const PIVOT_ENDING = "Nothing undoes this step, and the steps after it cannot undo it.";

export function confirmReasons(call: Call, input: StepInput): StepResult {
  const { tool, index } = input;
  if (call.undoOf !== undefined) {
    // A bound undo needs no person unless the rulebook asks about it (step 12 allows it).
    const asked = input.holds.filter((h) => h.reason === "gate_clarify");
    return asked.length ? confirmWith(asked, tool.name) : PASS;
  }
  const egress = egressProblems(call, input);
  // A read is never held by a label, but the rulebook may ask about it (step 8's gate_clarify),
  // and a destination it would send to must come from somewhere trusted.
  if (!isWrite(tool)) {
    const asked: Hold[] = input.holds.filter((h) => h.reason === "gate_clarify");
    if (egress.length > 0) asked.push(originHold(egress));
    return asked.length ? confirmWith(asked, tool.name) : PASS;
  }
  const holds: Hold[] = [];
  const origins = originProblems(call, input);
  const untrusted = Object.keys(call.args).filter((a) => origins.includes(a) || egress.includes(a));
  if (untrusted.length > 0) holds.push(originHold(untrusted));
  holds.push(...input.holds);
  if (tool.irreversible) {
    // Earlier writes of this run that would be undone if this one failed.
    const undoable = index.runWrites.filter((s) => {
      const w = index.check(s);
      return w !== undefined && input.catalogue.tools.get(w.tool)?.undo !== undefined && index.counts(s) && !(index.undosOf.get(s) ?? []).some((u) => index.counts(u));
    });
    if (undoable.length > 0) {
      holds.push({
        reason: "irreversible_pivot",
        detail: { undoable_steps: undoable },
        wording: `${tool.name} cannot be undone, and ${undoable.length} earlier step${undoable.length > 1 ? "s" : ""} of this run would be undone if it failed. ${PIVOT_ENDING}`,
      });
    }
  }
  if (!tool.argsClosed) {
    holds.push({ reason: "schema_partial", detail: { schema: "open" }, wording: `${tool.name} accepts arguments its schema does not name.` });
  }
  if (holds.length === 0) {
    if (tool.confirm === "when_held") return PASS;
    holds.push({ reason: "write", wording: `${tool.name} changes something.` });
  }
  return confirmWith(holds, tool.name);
}

function originHold(names: readonly string[]): Hold {
  return {
    reason: "argument_origin",
    detail: { arguments: [...names] },
    wording: `${names.map((a) => `\`${a}\``).join(", ")} ${names.length === 1 ? "was" : "were"} not typed by you or taken from a trusted source.`,
  };
}

/**
 * Arguments holding a destination whose origin is not trusted, or that carry an untrusted label.
 * Only a `sends_out` tool can get here with a destination: step 4 refused any other's.
 */
function egressProblems(call: Call, input: StepInput): string[] {
  if (!input.tool.sendsOut) return [];
  const callLabels = Object.hasOwn(call.labelsByArg, "call") ? (call.labelsByArg.call ?? []) : [];
  const out: string[] = [];
  for (const name of Object.keys(call.args)) {
    const value = call.args[name];
    if (scanDestinations([name, value], NO_SKIP).length === 0) continue;
    const origin = Object.hasOwn(call.origins, name) ? call.origins[name] : undefined;
    const labels = Object.hasOwn(call.labelsByArg, name) ? (call.labelsByArg[name] ?? []) : [];
    if (!originTrusted(origin, value, input) || labels.some(isUntrustedLabel) || callLabels.some(isUntrustedLabel)) out.push(name);
  }
  return out;
}

const NO_SKIP: ReadonlySet<string> = new Set();

function confirmWith(holds: Hold[], toolName: string): StepResult {
  // Order is the contract's list order, so answers compare stably.
  holds.sort((a, b) => ORDER.indexOf(a.reason) - ORDER.indexOf(b.reason));
  const detail: Record<string, unknown> = {};
  for (const h of holds) Object.assign(detail, h.detail);
  // The pivot's question must end with its fixed sentence (checks.md), so it goes last.
  const pivot = holds.find((h) => h.reason === "irreversible_pivot");
  const rest = holds.filter((h) => h !== pivot).map((h) => h.wording);
  detail.wording = [...rest, `Allow ${toolName}?`, ...(pivot ? [pivot.wording] : [])].join(" ");
  return { kind: "confirm", reasons: holds.map((h) => h.reason), detail };
}

const ORDER: ReasonCode[] = ["gate_clarify", "argument_origin", "tainted_call", "irreversible_pivot", "schema_partial", "write"];
