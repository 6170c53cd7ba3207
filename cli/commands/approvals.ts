/**
 * `stalwart approvals list | show ID | approve ID | deny ID | serve` (interfaces.md CLI; issue 12):
 * the person's side of `confirm`. Pending confirmations live under the home (cli/approvals/store.ts);
 * every decision is a receipt signed under the installation key, which the waiting process records
 * in its session history before anything runs.
 */
import { defineCommand, usageError, type Io } from "../command.js";
import { APPROVAL_ID, approvalStatus, decide, StalwartError, type Mac } from "../../worker/portable/engine/index.js";
import { resolveHome } from "../sdk/home.js";
import { FileApprovalStore } from "../approvals/store.js";
import { withdrawEnded } from "../approvals/owners.js";
import { homeMac } from "../approvals/mac.js";
import { listText, showText } from "../approvals/format.js";
import { existsSync } from "node:fs";
import { userInfo } from "node:os";

const home = { type: "string", value: "DIR", help: "the home holding approvals/ (default $STALWART_HOME, else ~/.stalwart)" } as const;
const json = { type: "boolean", help: "print JSON" } as const;
const idArgs = { synopsis: "ID", min: 1, max: 1, missing: "name the pending confirmation (`stalwart approvals list` shows them)", extra: "one confirmation at a time" };

/**
 * The home's store, once the records of gateways that were killed are withdrawn: nobody is shown
 * or decides a call that no process can run any more (cli/approvals/owners.ts).
 */
async function swept(home: string, io: Io): Promise<FileApprovalStore> {
  let mac: Mac | undefined;
  const s = new FileApprovalStore(home, () => (mac ??= homeMac(home)));
  await withdrawEnded(home, s, Date.now(), (line) => io.stderr.write(`stalwart approvals: ${line}\n`));
  return s;
}
/** The ID argument: one that is not an approval id at all is a usage error (exit 2, cli.md), not a lookup. */
function idOf(positionals: string[]): string {
  const id = positionals[0] ?? "";
  if (!APPROVAL_ID.test(id)) throw usageError(`\`${id}\` is not a pending confirmation id (p_ and 16 hex digits)`, "`stalwart approvals list --all` shows them");
  return id;
}
const out = (io: Io, v: unknown) => io.stdout.write(JSON.stringify(v, null, 2) + "\n");

const list = defineCommand({
  path: "approvals list",
  summary: "what waits for a person, newest first (and what was decided)",
  args: { synopsis: "", min: 0, max: 0 },
  options: { home, json, all: { type: "boolean", help: "also the decided, spent and expired ones" } },
  run: async ({ values, io }) => {
    const now = Date.now();
    const h = resolveHome(values.home);
    const { approvals, unreadable } = (await swept(h, io)).survey();
    const all = approvals.filter((a) => values.all === true || approvalStatus(a, now) === "pending");
    if (values.json) out(io, all.map((a) => ({ ...a, status: approvalStatus(a, now) })));
    else io.stdout.write(listText(all, now, unreadable.length));
    // a mistyped --home is not a home where nothing waits
    if (!values.json && !existsSync(h)) io.stderr.write(`(there is no home at \`${h}\`)\n`);
    // what cannot be read is named (each may be a call waiting for someone), and the list fails
    for (const u of unreadable) io.stderr.write(`stalwart approvals: ${u.id} cannot be read (ApprovalUnreadable): ${u.why}${u.hint ? `\n  hint: ${u.hint}` : ""}\n`);
    return unreadable.length > 0 ? 1 : 0;
  },
});

const show = defineCommand({
  path: "approvals show",
  summary: "one confirmation as a person needs it: the tool, each argument and where it came from, the reasons",
  args: idArgs,
  options: { home, json },
  run: async ({ values, positionals, io }) => {
    const id = idOf(positionals);
    const a = (await swept(resolveHome(values.home), io)).shown(id);
    if (!a) throw new StalwartError("ApprovalNotFound", `no pending confirmation \`${id}\``, { hint: "`stalwart approvals list --all` shows them" });
    if (values.json) out(io, { ...a, status: approvalStatus(a, Date.now()) });
    else io.stdout.write(showText(a, Date.now()));
    return 0;
  },
});

function decideCommand(verb: "approve" | "deny") {
  return defineCommand({
    path: `approvals ${verb}`,
    summary: verb === "approve" ? "approve a confirmation: the waiting call runs once, with exactly these arguments" : "deny a confirmation: nothing runs",
    args: idArgs,
    options: {
      home,
      json,
      as: { type: "string", value: "NAME", help: "who decides, as the receipt records it (default: this user's login name)" },
      message: { type: "string", short: "m", value: "MSG", help: "why, as the receipt records it" },
      ...(verb === "approve" ? { always: { type: "boolean", help: "also approve later asks of this same call (same arguments) in this session" } } : {}),
    } as const,
    run: async ({ values, positionals, io }) => {
      const id = idOf(positionals);
      const h = resolveHome(values.home);
      const by = values.as ?? userInfo().username;
      if (by.trim() === "") throw usageError("`--as` needs a name");
      const v = values as { always?: boolean };
      // The home's key is loaded once a record is found: an unknown id (a mistyped id or
      // --home) makes no key in a home that had none.
      let mac: ((text: string) => Uint8Array) | undefined;
      const lazyMac = (text: string) => (mac ??= homeMac(h))(text);
      const a = await decide(await swept(h, io), lazyMac, id, {
        decision: verb, by, at: Date.now(), message: values.message, ...(v.always ? { always: true } : {}),
      });
      if (values.json) out(io, a.receipt);
      else io.stdout.write(`${a.record.id}: ${verb === "approve" ? "approved" : "denied"} by ${by} (receipt ${a.receipt!.mac.slice(0, 12)}…)\n`);
      return 0;
    },
  });
}

const serve = defineCommand({
  path: "approvals serve",
  summary: "the approvals page on 127.0.0.1:8700: what waits, one confirmation at a time, approve / deny / edit",
  details: "It prints a one-time code; the page asks for it before it shows anything. State changes are POSTs\nwith the `Stalwart-Apply: yes` header from the page's own origin. Ctrl-C stops it.",
  args: { synopsis: "", min: 0, max: 0 },
  options: {
    home,
    host: { type: "string", value: "HOST", help: "the address to bind (default 127.0.0.1; loopback only)" },
    port: { type: "string", value: "PORT", help: "the port (default 8700; 0 picks a free one)" },
    json,
  },
  run: async ({ values, io }) => {
    const port = values.port === undefined ? 8700 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw usageError(`\`--port\` must be a port number, not \`${values.port}\``);
    const host = values.host ?? "127.0.0.1";
    if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(host)) throw usageError(`\`--host\` must be a loopback address, not \`${host}\``, "the page is for the person at this machine; use the check worker's /approvals for a shared one");
    // loaded here: the page (hono, its server) is ~50 ms of every other command's start otherwise
    const { serveApprovals } = await import("../approvals/serve.js");
    const running = await serveApprovals({ home: resolveHome(values.home), host, port, log: (line) => io.stderr.write(`stalwart approvals: ${line}\n`) });
    // the handlers before the lines that say where it serves (as the gateway does): a signal sent
    // on reading them stops the page, rather than kill the process outright
    const stopped = new Promise<void>((resolve) => {
      const stop = () => void running.close().then(resolve);
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    io.stdout.write(values.json ? JSON.stringify({ url: running.url, code: running.code }) + "\n" : `approvals page: ${running.url}\none-time code: ${running.code}\n`);
    await stopped;
    return 0;
  },
});

export const command = {
  path: "approvals",
  summary: "the person's side of confirm: pending confirmations, signed receipts, a local page",
  commands: [list, show, decideCommand("approve"), decideCommand("deny"), serve],
};
