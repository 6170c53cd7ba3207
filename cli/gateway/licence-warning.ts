/**
 * What a person setting the gateway up should read when it starts on a home whose licence stops
 * calls. The gateway still starts, and every call it cannot check is refused with why and what
 * fixes it (fail closed); but an MCP host shows a server's stderr in its log, and the first lines
 * are where a person looks when every call comes back refused.
 */
import { licenceView } from "../../worker/portable/licensing/index.js";
import { loadInstallation, stateOf } from "../licence/installation.js";
import { DEV_SERVICE_URL } from "../licence/service.js";

/** What the gateway reads of the home's licence as it starts. */
export interface LicenceAtStart {
  /** a line about the licence when it refuses calls now or soon (in its grace) */
  warning?: string;
  /** whether the first answer will renew its lease from a licence service (a development licence's is not) */
  renews: boolean;
}

/** The home's licence as the gateway starts: a warning when it refuses calls now or soon. */
export async function licenceAtStart(home: string, now: Date): Promise<LicenceAtStart> {
  let inst;
  try {
    inst = await loadInstallation(home);
  } catch (err) {
    const e = err as { message?: unknown; hint?: unknown };
    const hint = typeof e.hint === "string" ? ` — ${e.hint}` : "";
    return { warning: `${String(e.message ?? err)}: every call is refused until the home has a licence${hint}`, renews: false };
  }
  const renews = inst.stored.service_url !== DEV_SERVICE_URL;
  const view = licenceView(stateOf(inst), now);
  if (view.stage === "active") return { renews };
  if (view.stage === "grace") {
    return { renews, warning: `the licence's lease ended on ${view.leaseEnds} and was not renewed: calls are checked as usual until ${view.graceEnds}, then ${view.onLapse === "refuse" ? "every call is refused" : "writes are refused"} (\`stalwart licence status\`)` };
  }
  return { renews, warning: `the licence lapsed on ${view.lapsedAt ?? view.graceEnds}: ${view.onLapse === "refuse" ? "every call is refused" : "writes are refused; reads run"} (\`stalwart licence status\`)` };
}
