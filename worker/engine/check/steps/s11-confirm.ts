/**
 * Step 11: every reason a write needs a person, together. A write with none of them is still
 * confirmed, by `write` — unless the tool declares `confirm: when_held`. Reads pass.
 * This module gathers `argument_origin`; `tainted_call` (step 9) and later `gate_clarify` (step 8)
 * arrive in `ctx.holds`.
 */
import { originProblems } from "../../origins/origins.js";
import { PASS, type Call, type CheckContext, type Hold, type ReasonCode, type StepResult } from "../types.js";
import { isWrite } from "./classes.js";

export function confirmReasons(call: Call, ctx: CheckContext): StepResult {
  const tool = ctx.tool!;
  if (!isWrite(tool)) return PASS;
  const holds: Hold[] = [];
  const untrusted = originProblems(call, ctx);
  if (untrusted.length > 0) {
    holds.push({
      reason: "argument_origin",
      detail: { arguments: untrusted },
      wording: `${untrusted.map((a) => `\`${a}\``).join(", ")} ${untrusted.length === 1 ? "was" : "were"} not typed by you or taken from a trusted source.`,
    });
  }
  holds.push(...ctx.holds);
  if (holds.length === 0) {
    if (tool.confirm === "when_held") return PASS;
    holds.push({ reason: "write", wording: `${tool.name} changes something.` });
  }
  // Order is the contract's list order, so answers compare stably.
  holds.sort((a, b) => ORDER.indexOf(a.reason) - ORDER.indexOf(b.reason));
  const detail: Record<string, unknown> = {};
  for (const h of holds) Object.assign(detail, h.detail);
  detail.wording = `${holds.map((h) => h.wording).join(" ")} Allow ${tool.name}?`;
  return { kind: "confirm", reasons: holds.map((h) => h.reason), detail };
}

const ORDER: ReasonCode[] = ["gate_clarify", "argument_origin", "tainted_call", "irreversible_pivot", "schema_partial", "write"];
