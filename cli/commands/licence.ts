/**
 * `stalwart licence dev | activate | status | release | request | answer FILE | install FILE`
 * (licensing.md). Human output by default, `--json` for machines; errors say how to fix them.
 */
import { activate, release } from "../licence/activate.js";
import { formatStatus } from "../licence/format.js";
import { openLicence, type OpenLicenceOptions } from "../licence/handle.js";
import { installAnswer, writeAnswer, writeRequest } from "../licence/offline.js";
import { defineCommand, runGroup, type Group, type Io } from "../command.js";
import { homeOptions, serviceBase } from "./licence-options.js";

const json = { type: "boolean", help: "print the result (or the error) as JSON" } as const;
const options = { ...homeOptions, json };

function printer(io: Io, asJson: boolean | undefined) {
  return (o: unknown, human: string) => io.stdout.write((asJson ? JSON.stringify(o, null, 2) : human) + "\n");
}

/** The licence as it now stands, for the line after an activation or an install. */
async function statusOf(base: OpenLicenceOptions) {
  const h = await openLicence({ ...base, renew: false });
  const s = h.status();
  await h.close();
  return s;
}

const dev = defineCommand({
  path: "licence dev",
  summary: "a development licence for this home, in one command: no account, no service to run",
  details:
    "Runs the licence service in this process, creates a development organisation on the enterprise plan and\n" +
    "activates this home against it. The licence is signed by the published dev keys this build trusts: it is\n" +
    "for development and tests, never for production. Nothing renews it in the background; run this again to renew it.",
  args: { synopsis: "", min: 0, max: 0 },
  options: { home: homeOptions.home, json },
  async run({ values, io }) {
    const { devLicence, formatDevLicence } = await import("../licence/dev-licence.js");
    const r = await devLicence(values.home !== undefined ? { home: values.home } : {});
    printer(io, values.json)(r, formatDevLicence(r));
    return 0;
  },
});

const activateCmd = defineCommand({
  path: "licence activate",
  summary: "create this machine's installation and take a seat (needs QLS_API_KEY)",
  args: { synopsis: "", min: 0, max: 0 },
  options,
  async run({ values, io }) {
    const base = serviceBase(values);
    const inst = await activate(base);
    const s = await statusOf(base);
    printer(io, values.json)({ activated: true, ...s }, `activated installation ${inst.stored.installation_id} on licence ${inst.stored.licence_id}\n${formatStatus(s)}`);
    return 0;
  },
});

const status = defineCommand({
  path: "licence status",
  summary: "the licence, the lease, the grace, what remains of each meter; exit 1 when lapsed",
  args: { synopsis: "", min: 0, max: 0 },
  options: { ...options, refresh: { type: "boolean", help: "renew the lease now (reach the service) before reporting" } },
  async run({ values, io }) {
    const h = await openLicence({ ...serviceBase(values), renew: false });
    const renewal = values.refresh ? await h.renew() : undefined;
    const s = h.status();
    await h.close();
    printer(io, values.json)(renewal ? { ...s, renewal } : s, formatStatus(s) + (renewal && !renewal.ok ? `\nrenewal      failed: ${renewal.code} — ${renewal.message}` : ""));
    return s.stage === "lapsed" ? 1 : 0;
  },
});

const releaseCmd = defineCommand({
  path: "licence release",
  summary: "free this machine's seat (what a CI job does last)",
  args: { synopsis: "", min: 0, max: 0 },
  options,
  async run({ values, io }) {
    const r = await release(serviceBase(values));
    const said = r.development
      ? `installation ${r.installation_id} holds a development licence, which takes no seat: nothing to release`
      : `released the seat of installation ${r.installation_id}${r.already ? " (it was already free)" : ""}; \`stalwart licence activate\` takes one again`;
    printer(io, values.json)({ released: true, ...r }, said);
    return 0;
  },
});

const request = defineCommand({
  path: "licence request",
  summary: "offline machine: write the activation request (activation-request.json)",
  args: { synopsis: "", min: 0, max: 0 },
  options: { ...options, out: { type: "string", short: "o", value: "FILE", help: "where to write the request (default activation-request.json)" } },
  async run({ values, io }) {
    const file = values.out ?? "activation-request.json";
    const r = await writeRequest({ ...serviceBase(values), out: file });
    printer(io, values.json)({ written: file, installation_id: r.installation_id }, `wrote ${file} (installation ${r.installation_id})\nnext: on a machine that reaches the service, \`stalwart licence answer ${file}\``);
    return 0;
  },
});

const answer = defineCommand({
  path: "licence answer",
  summary: "connected machine: post an activation request, write the answer (activation-answer.json)",
  args: { synopsis: "REQUEST.json", min: 1, max: 1, missing: "`stalwart licence answer` needs the request file, e.g. `stalwart licence answer activation-request.json`", extra: "one request at a time" },
  options: { ...options, out: { type: "string", short: "o", value: "FILE", help: "where to write the answer (default activation-answer.json)" } },
  async run({ values, positionals, io }) {
    const target = values.out ?? "activation-answer.json";
    const a = await writeAnswer(positionals[0] ?? "", { ...serviceBase(values), out: target });
    printer(io, values.json)({ written: target, installation_id: a.installation_id }, `wrote ${target} (a lease for the whole licence term)\nnext: on the offline machine, \`stalwart licence install ${target}\``);
    return 0;
  },
});

const install = defineCommand({
  path: "licence install",
  summary: "offline machine: install the activation answer",
  args: { synopsis: "ANSWER.json", min: 1, max: 1, missing: "`stalwart licence install` needs the answer file, e.g. `stalwart licence install activation-answer.json`", extra: "one answer at a time" },
  options,
  async run({ values, positionals, io }) {
    const base = serviceBase(values);
    await installAnswer(positionals[0] ?? "", base);
    const s = await statusOf(base);
    printer(io, values.json)({ installed: true, ...s }, `installed the offline activation\n${formatStatus(s)}`);
    return 0;
  },
});

export const command: Group = {
  path: "licence",
  summary: "this machine's licence: a development one, activation, status, release, offline activation",
  commands: [dev, activateCmd, status, releaseCmd, request, answer, install],
};

const summary = command.summary;
const run = (argv: string[], io?: Io): Promise<number> => runGroup(command, argv, io);
