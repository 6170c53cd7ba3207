/**
 * The record an adapter keeps for an allowed call whose nested run (an agent run as a tool)
 * stopped for a person, and the test that lets a resumed call be that same check: the session's
 * signed history must still hold it as kept — a check of this tool, on these arguments, allowed,
 * and not reported since. Anything else (a session saved before the check, a call reported since,
 * a record edited to name another step) keeps nothing, and the call is checked anew.
 */
import { canonicalize, sha256Hex, type Entry } from "../../worker/portable/engine/index.js";
import type { PendingApproval } from "./approvals.js";
import { keyOf, sha256Key } from "./data.js";
import type { Verdict } from "./types.js";

/** The record of an allowed call waiting for its nested run, or undefined when there is nothing to keep. */
export function nestedRecord(tool: string, args: unknown, verdict: Verdict): PendingApproval | undefined {
  const key = keyOf(tool, args);
  if (verdict.decision !== "allow" || verdict.check.step < 0 || key === undefined) return undefined;
  return { v: 1, tool, step: verdict.check.step, token: "", reasons: [...verdict.check.reasons], question: "", used: false, call: sha256Key(key), waits: "nested" };
}

/** The kept check as a verdict, when `entries` (the session's verified history) still hold it open. */
export function openCheckOf(p: PendingApproval, tool: string, args: unknown, entries: readonly Entry[]): Verdict | undefined {
  if (p.waits !== "nested" || p.used || p.tool !== tool) return undefined;
  let digest: string;
  try {
    digest = sha256Hex(canonicalize(args));
  } catch {
    return undefined;
  }
  const e = entries[p.step];
  if (e?.kind !== "check" || e.step !== p.step || e.tool !== tool || e.decision !== "allow" || e.args !== digest) return undefined;
  for (let i = p.step + 1; i < entries.length; i++) {
    const r = entries[i]!;
    if (r.kind === "report" && r.of === p.step) return undefined;
  }
  return { decision: "allow", check: { decision: "allow", reasons: [...e.reasons], detail: {}, step: p.step } };
}
