/**
 * Print the check worker's `STALWART_LICENCE` (worker/workerd/check/LICENCE.md) for an activated
 * installation: its signed licence and lease, never its private key.
 *
 *   STALWART_HOME=/path/to/worker-home stalwart licence activate     # the worker's own seat
 *   npm run licence:worker -- --home /path/to/worker-home | npx wrangler secret put STALWART_LICENCE
 *
 * Run it again after each renewal of that home (`stalwart licence status` renews) and put the new
 * value: the worker holds the lease it was given, through its term and then the grace.
 */
import { readInstallation, verifyStored } from "../cli/licence/installation.js";
import { resolveHome } from "../cli/licence/files.js";
import { workerLicenceOf } from "../worker/workerd/check/licence.js";

const i = process.argv.indexOf("--home");
const home = resolveHome(i >= 0 ? process.argv[i + 1] : undefined);
const stored = readInstallation(home);
if (!stored || stored.released_at) {
  process.stderr.write(`worker-licence: no activated installation in \`${home}\`\n  hint: STALWART_HOME=${home} stalwart licence activate (a seat of its own for the worker)\n`);
  process.exit(1);
}
await verifyStored(stored); // a licence that does not verify here would not verify in the worker
process.stdout.write(JSON.stringify(workerLicenceOf(stored)) + "\n");
