/**
 * Start the real check worker under `wrangler dev` for a test file (127.0.0.1, a free port, a
 * temporary state folder, offline), with generated keys, the test clock enabled and the fixture
 * licence (signed with the dev keys, active 2026–2035; worker/workerd/check/LICENCE.md); stop it after.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { workerLicence } from "./licensed-home.js";
// @ts-expect-error — a plain .mjs helper shared with scripts/dev.mjs
import { startWrangler } from "../../scripts/wrangler-server.mjs";

export interface RunningWorker {
  url: string;
  keys: string[];
  stop(): Promise<void>;
  pid: number;
}

/** `licence`: the worker's `STALWART_LICENCE` (default the fixture's; `null`: none). */
export async function startCheckWorker(tenants = ["conformance"], opts: { licence?: string | null } = {}): Promise<RunningWorker> {
  const licence = opts.licence === undefined ? workerLicence : opts.licence;
  const dir = mkdtempSync(join(tmpdir(), "stalwart-worker-"));
  const keys = tenants.map((t) => `sk_test_${t}_${randomBytes(12).toString("hex")}`);
  const envFile = join(dir, "vars.env");
  writeFileSync(
    envFile,
    `STALWART_API_KEYS="${tenants.map((t, i) => `${t}:${keys[i]}`).join(",")}"\nSTALWART_HISTORY_SECRET="${randomBytes(32).toString("hex")}"\nSTALWART_TEST_CLOCK="1"\n${licence === null ? "" : `STALWART_LICENCE='${licence}'\n`}`,
  );
  const w = await startWrangler({ envFile, persistTo: join(dir, "state"), ...(process.env.STALWART_WRANGLER_DEBUG ? { log: (t: string) => process.stderr.write(t) } : {}) });
  return { url: w.url, keys, stop: w.stop, pid: w.pid };
}
