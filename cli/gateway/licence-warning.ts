/**
 * What a person setting the gateway up should read when it starts on a home whose licence stops
 * calls. The gateway still starts, and every call it cannot check is refused with why and what
 * fixes it (fail closed); but an MCP host shows a server's stderr in its log, and the first lines
 * are where a person looks when every call comes back refused.
 */
import { licenceView } from "../../worker/portable/licensing/index.js";
import { loadInstallation, stateOf } from "../licence/installation.js";

/** A line about the home's licence when it refuses calls now or soon (in its grace), else undefined. */
export async function licenceWarning(home: string, now: Date): Promise<string | undefined> {
  let state;
  try {
    state = stateOf(await loadInstallation(home));
  } catch (err) {
    const e = err as { message?: unknown; hint?: unknown };
    const hint = typeof e.hint === "string" ? ` — ${e.hint}` : "";
    return `${String(e.message ?? err)}: every call is refused until the home has a licence${hint}`;
  }
  const view = licenceView(state, now);
  if (view.stage === "active") return undefined;
  if (view.stage === "grace") {
    return `the licence's lease ended on ${view.leaseEnds} and was not renewed: calls are checked as usual until ${view.graceEnds}, then ${view.onLapse === "refuse" ? "every call is refused" : "writes are refused"} (\`stalwart licence status\`)`;
  }
  return `the licence lapsed on ${view.lapsedAt ?? view.graceEnds}: ${view.onLapse === "refuse" ? "every call is refused" : "writes are refused; reads run"} (\`stalwart licence status\`)`;
}
