/**
 * Step 11: every reason a write needs a person, together. A write with none of them is still
 * confirmed, by `write` — unless the tool declares `confirm: when_held`. Reads pass.
 * This module gathers `argument_origin`; `tainted_call` (step 9) and later `gate_clarify` (step 8)
 * arrive in `input.holds`.
 */
import { originProblems } from "../../origins/origins.js";
import { PASS, type Call, type StepInput, type Hold, type ReasonCode, type StepResult } from "../types.js";
import { isWrite } from "./classes.js";

export const PIVOT_ENDING = "Nothing undoes this step, and the steps after it cannot undo it.";

export function confirmReasons(call: Call, input: StepInput): StepResult {
  const { tool, index } = input;
  if (call.undoOf !== undefined) {
    // A bound undo needs no person unless the rulebook asks about it (step 12 allows it).
    const asked = input.holds.filter((h) => h.reason === "gate_clarify");
    return asked.length ? confirmWith(asked, tool.name) : PASS;
  }
  // A read is never held by a label, but the rulebook may ask about it (step 8's gate_clarify).
  if (!isWrite(tool)) {
    const asked = input.holds.filter((h) => h.reason === "gate_clarify");
    return asked.length ? confirmWith(asked, tool.name) : PASS;
  }
  const holds: Hold[] = [];
  const untrusted = originProblems(call, input);
  if (untrusted.length > 0) {
    holds.push({
      reason: "argument_origin",
      detail: { arguments: untrusted },
      wording: `${untrusted.map((a) => `\`${a}\``).join(", ")} ${untrusted.length === 1 ? "was" : "were"} not typed by you or taken from a trusted source.`,
    });
  }
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
