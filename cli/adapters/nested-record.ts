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

/**
 * One guard's nested waits. Only an agent tool's record is ever taken: such a call's own effect is
 * its nested run, whose every call is checked (and committed) on its own, so a record replayed or
 * written by hand can at most start that run again. A function tool's call is always checked anew.
 */
export class NestedWaits {
  private readonly tools = new Set<string>();
  /** call ids whose record is to go once they settle (it can answer nothing more) */
  private readonly ids = new Set<string>();

  /** `tool` is an agent tool of a guarded agent (`asTool`): its waits may be kept. */
  resumable(tool: string): void {
    this.tools.add(tool);
  }

  /** The record to keep for this call, or undefined when there is none to keep. */
  record(callId: string, tool: string, args: unknown, verdict: Verdict): PendingApproval | undefined {
    const r = this.tools.has(tool) ? nestedRecord(tool, args, verdict) : undefined;
    if (r) this.ids.add(callId);
    return r;
  }

  /** The kept check as this call's verdict, when the record is an agent tool's and `entries` back it. */
  resume(callId: string, p: PendingApproval, tool: string, args: unknown, entries: readonly Entry[]): Verdict | undefined {
    const v = this.tools.has(tool) ? openCheckOf(p, tool, args, entries) : undefined;
    if (v) this.ids.add(callId);
    return v;
  }

  /** The call settled: whether a record of it is to be dropped. */
  settled(callId: string): boolean {
    return this.ids.delete(callId);
  }
}

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
