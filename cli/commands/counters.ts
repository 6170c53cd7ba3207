/**
 * `stalwart counters status | reset` — the home's counter and session store
 * (cli/sdk/state/STORAGE.md). A damaged store (missing, zeroed, rolled back, unreadable) refuses
 * every counted call until `reset`, which starts a new one and records who, when and why in it.
 */
import { parseArgs } from "../licence/args.js";
import { resolveHome } from "../sdk/home.js";
import { resetState, stateStatus, type StateStatus } from "../sdk/state/index.js";
import { StalwartError } from "../../worker/portable/engine/index.js";
import { fail } from "./licence.js";

export const summary = "status|reset: the home's rate-limit, spend and session store";

const USAGE = `usage: stalwart counters <verb> [--home DIR] [--json]

  status                       whether the store is healthy, what it holds, every reset so far
  reset [--by NAME] [--force]  start a new store (forgets every count; recorded with who and when);
                               --force resets a store that is not damaged`;

export async function run(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  let json = false;
  try {
    const { flags } = parseArgs(rest, ["home", "by"], ["json", "force", "help"]);
    json = flags.json === true;
    const home = resolveHome(typeof flags.home === "string" ? flags.home : undefined);
    const out = (o: unknown, human: string) => process.stdout.write((json ? JSON.stringify(o, null, 2) : human) + "\n");
    switch (verb) {
      case "status": {
        const s = stateStatus(home);
        out(s, formatStatus(s));
        return s.healthy ? 0 : 1;
      }
      case "reset": {
        const r = resetState(home, { ...(typeof flags.by === "string" ? { by: flags.by } : {}), force: flags.force === true });
        out({ reset: true, ...r }, `reset the store under ${r.home} (new store ${r.id})\n  by    ${r.record.by}\n  at    ${r.record.at}\n  was   ${r.record.what}${r.record.aside.map((f) => `\n  kept  ${f}`).join("")}`);
        return 0;
      }
      case undefined:
      case "help":
        process.stdout.write(USAGE + "\n");
        return verb ? 0 : 2;
      default:
        throw new StalwartError("UsageError", `unknown verb \`${verb}\``, { hint: USAGE });
    }
  } catch (err) {
    return fail(err, json);
  }
}

function formatStatus(s: StateStatus): string {
  const lines = [`store        ${s.file}`];
  if (!s.exists) lines.push("state        none yet (the first counted call creates it)");
  else if (s.healthy) lines.push(`state        healthy, generation ${s.generation}`, `rows         ${Object.entries(s.rows ?? {}).map(([k, v]) => `${k} ${v}`).join(", ")}`);
  else lines.push(`state        DAMAGED: ${s.problem!.message}`, `fix          ${s.problem!.hint ?? ""}`);
  for (const r of s.resets) lines.push(`reset        ${r.at} by ${r.by}: ${r.what}`);
  return lines.join("\n");
}
