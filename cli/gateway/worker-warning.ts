/**
 * With `--check-url`: what a person setting the gateway up should read when the check worker will
 * refuse its calls — it does not answer, it has no licence or a lapsed one, or it refuses the key.
 * The gateway starts all the same (each call is then refused `check_unavailable` or with the
 * worker's reason: fail closed); this is the line in the MCP host's log that says why, once.
 */
const PROBE_MS = 5000;
/** A catalogue name no gateway registers: asked for, a worker that takes the key answers 404. */
const PROBE_NAME = "stalwart-gateway-start-probe";

export async function workerWarning(url: string, key: string | undefined): Promise<string | undefined> {
  const base = url.replace(/\/+$/, "");
  const get = (path: string, auth: boolean) =>
    fetch(base + path, { redirect: "error", signal: AbortSignal.timeout(PROBE_MS), ...(auth && key ? { headers: { authorization: `Bearer ${key}` } } : {}) });
  let health: { licence?: { stage?: unknown; lapsed_at?: unknown; lease_ends?: unknown; grace_ends?: unknown } };
  try {
    const res = await get("/v1/health", false);
    if (!res.ok) return `the check worker at ${base} answered ${res.status} to \`GET /v1/health\`: is it a stalwart check worker? Its calls may be refused \`check_unavailable\``;
    health = (await res.json()) as typeof health;
  } catch (err) {
    const why = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    return `the check worker at ${base} does not answer (${why}): every call is refused \`check_unavailable\` until it does`;
  }
  const l = typeof health === "object" && health !== null ? health.licence : undefined;
  const stage = l?.stage;
  if (stage === "none" || stage === "invalid") return `the check worker at ${base} has ${stage === "none" ? "no licence" : "a licence it cannot verify"} (its \`STALWART_LICENCE\`): every call is refused`;
  if (stage === "lapsed") return `the check worker at ${base} has a licence that lapsed on ${String(l?.lapsed_at)}: calls are refused \`licence_lapsed\``;
  if (stage === "grace") return `the check worker at ${base} has a lease that ended on ${String(l?.lease_ends)}: calls are checked as usual until ${String(l?.grace_ends)}, then refused`;
  try {
    const res = await get(`/v1/catalogues/${PROBE_NAME}`, true);
    if (res.status === 401 || res.status === 403) return `the check worker at ${base} refuses ${key ? "the key given with `--key`" : "calls without a key: give one with `--key`"} (${res.status}): every call is refused`;
  } catch {
    // it answered its health a moment ago: a call will say what is wrong, if anything is
  }
  return undefined;
}
