/**
 * A tool's own `needsApproval`, asked about a call the check allowed (both adapters). Put to a
 * person, the call has not run, and may never — a denial, an answer that never comes, and neither
 * framework tells the adapter of either: the denied call reaches no hook of ours. So its allowed
 * check is reported `failed` as it is asked, and what it reserved (a spend, a rate limit, an
 * `at_most`) is not held for it; the call is checked afresh when the person's approval comes.
 */
import type { CheckResult } from "../../worker/portable/engine/index.js";
import type { CallGuard } from "./guard.js";

/**
 * Whether the tool's own `needsApproval` (`own`) asks about this allowed call. With the person's
 * approval on hand already (`approved`) nothing is given back: the kept allow is what runs. One
 * that throws stops the call as it would unguarded (the error goes on), and gives back the same.
 */
export async function toolAsks(core: CallGuard, callId: string, check: CheckResult, own: () => unknown, approved: boolean): Promise<boolean> {
  let asks: boolean;
  try {
    asks = Boolean(await own());
  } catch (err) {
    await release(core, callId, check);
    throw err;
  }
  if (asks && !approved) await release(core, callId, check);
  return asks;
}

async function release(core: CallGuard, callId: string, check: CheckResult): Promise<void> {
  core.settle(callId);
  await core.failed(check);
}
