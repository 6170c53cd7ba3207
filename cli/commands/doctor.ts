/** `stalwart doctor`: what works, what is missing (licensing.md). Works without a licence. */
import { parseArgs } from "../licence/args.js";
import { doctor } from "../licence/doctor.js";
import { formatDoctor } from "../licence/format.js";
import { fail } from "./licence.js";

export const summary = "what works, what is missing";

export async function run(argv: string[]): Promise<number> {
  let json = false;
  try {
    const { flags } = parseArgs(argv, ["home", "service"], ["json"]);
    json = flags.json === true;
    const r = await doctor({
      ...(typeof flags.home === "string" ? { home: flags.home } : {}),
      ...(typeof flags.service === "string" ? { serviceUrl: flags.service } : {}),
    });
    process.stdout.write((json ? JSON.stringify(r, null, 2) : formatDoctor(r)) + "\n");
    return r.missing.length === 0 ? 0 : 1;
  } catch (err) {
    return fail(err, json);
  }
}
