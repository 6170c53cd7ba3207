/**
 * `stalwart licence activate | status | release | request | answer FILE | install FILE`
 * (licensing.md). Human output by default, `--json` for machines; errors say how to fix them.
 */
import { StalwartError } from "../../worker/portable/engine/index.js";
import { activate, release } from "../licence/activate.js";
import { parseArgs } from "../licence/args.js";
import { formatStatus } from "../licence/format.js";
import { openLicence } from "../licence/handle.js";
import { installAnswer, writeAnswer, writeRequest } from "../licence/offline.js";

export const summary = "activate|status|release|request|answer|install: this machine's licence";

const USAGE = `usage: stalwart licence <verb> [--json] [--home DIR] [--service URL]

  activate              create this machine's installation and take a seat (needs QLS_API_KEY)
  status [--refresh]    the licence, the lease, the grace, what remains of each meter
  release               free this machine's seat (what a CI job does last)
  request [-o FILE]     offline machine: write activation-request.json
  answer FILE [-o OUT]  connected machine: post the request, write activation-answer.json
  install FILE          offline machine: install the answer`;

export async function run(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  let json = false;
  try {
    const { positional, flags } = parseArgs(rest, ["home", "service", "out"], ["json", "refresh", "help"]);
    json = flags.json === true;
    const base = {
      ...(typeof flags.home === "string" ? { home: flags.home } : {}),
      ...(typeof flags.service === "string" ? { serviceUrl: flags.service } : {}),
    };
    const out = (o: unknown, human: string) => process.stdout.write((json ? JSON.stringify(o, null, 2) : human) + "\n");
    switch (verb) {
      case "activate": {
        const inst = await activate(base);
        const h = await openLicence({ ...base, renew: false });
        const s = h.status();
        await h.close();
        out({ activated: true, ...s }, `activated installation ${inst.stored.installation_id} on licence ${inst.stored.licence_id}\n${formatStatus(s)}`);
        return 0;
      }
      case "status": {
        const h = await openLicence({ ...base, renew: false });
        const renewal = flags.refresh ? await h.renew() : undefined;
        const s = h.status();
        await h.close();
        out(renewal ? { ...s, renewal } : s, formatStatus(s) + (renewal && !renewal.ok ? `\nrenewal      failed: ${renewal.code} — ${renewal.message}` : ""));
        return s.stage === "lapsed" ? 1 : 0;
      }
      case "release": {
        const r = await release(base);
        out({ released: true, ...r }, `released the seat of installation ${r.installation_id}${r.already ? " (it was already free)" : ""}; \`stalwart licence activate\` takes one again`);
        return 0;
      }
      case "request": {
        const file = typeof flags.out === "string" ? flags.out : "activation-request.json";
        const r = await writeRequest({ ...base, out: file });
        out({ written: file, installation_id: r.installation_id }, `wrote ${file} (installation ${r.installation_id})\nnext: on a machine that reaches the service, \`stalwart licence answer ${file}\``);
        return 0;
      }
      case "answer": {
        const file = positional[0];
        if (!file) throw new StalwartError("UsageError", "`stalwart licence answer` needs the request file", { hint: "stalwart licence answer activation-request.json" });
        const target = typeof flags.out === "string" ? flags.out : "activation-answer.json";
        const a = await writeAnswer(file, { ...base, out: target });
        out({ written: target, installation_id: a.installation_id }, `wrote ${target} (a lease for the whole licence term)\nnext: on the offline machine, \`stalwart licence install ${target}\``);
        return 0;
      }
      case "install": {
        const file = positional[0];
        if (!file) throw new StalwartError("UsageError", "`stalwart licence install` needs the answer file", { hint: "stalwart licence install activation-answer.json" });
        await installAnswer(file, base);
        const h = await openLicence({ ...base, renew: false });
        const s = h.status();
        await h.close();
        out({ installed: true, ...s }, `installed the offline activation\n${formatStatus(s)}`);
        return 0;
      }
      case undefined:
      case "help":
      case "--help":
        process.stdout.write(USAGE + "\n");
        return verb ? 0 : 2;
      default:
        throw new StalwartError("UsageError", `unknown verb \`${verb}\``, { hint: "stalwart licence activate|status|release|request|answer|install" });
    }
  } catch (err) {
    return fail(err, json);
  }
}

export function fail(err: unknown, json: boolean): number {
  if (!(err instanceof StalwartError)) throw err;
  if (json) {
    process.stdout.write(JSON.stringify({ error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } }, null, 2) + "\n");
  } else {
    process.stderr.write(`stalwart: ${err.code}: ${err.message}${err.hint ? `\n  hint: ${err.hint}` : ""}\n`);
  }
  return err.code === "UsageError" ? 2 : 1;
}
