/**
 * `stalwart counters status | reset` — the home's counter and session store
 * (cli/sdk/state/STORAGE.md). A damaged store (missing, zeroed, rolled back, unreadable) refuses
 * every counted call until `reset`, which starts a new one and records who, when and why in it.
 */
import { defineCommand, runGroup, type Group, type Io } from "../command.js";
import { resolveHome } from "../sdk/home.js";
import { resetState, stateStatus, type StateStatus } from "../sdk/state/index.js";

const home = { type: "string", value: "DIR", help: "the home holding the store (default $STALWART_HOME, else ~/.stalwart)" } as const;

const status = defineCommand({
  path: "counters status",
  summary: "whether the store is healthy, what it holds, every reset so far; exit 1 when it is damaged",
  args: { synopsis: "", min: 0, max: 0 },
  options: { home, json: { type: "boolean", help: "print the status as JSON" } },
  async run({ values, io }) {
    const s = stateStatus(resolveHome(values.home));
    io.stdout.write((values.json ? JSON.stringify(s, null, 2) : formatStatus(s)) + "\n");
    return s.healthy || !s.exists ? 0 : 1;
  },
});

const reset = defineCommand({
  path: "counters reset",
  summary: "start a new store: forgets every count, spent token and session head; recorded with who and when",
  details: "Only a damaged store is reset unless --force is given.",
  args: { synopsis: "", min: 0, max: 0 },
  options: {
    home,
    by: { type: "string", value: "NAME", help: "who resets, recorded in the new store (default user@host)" },
    force: { type: "boolean", help: "reset a store that is not damaged too" },
    json: { type: "boolean", help: "print the reset record as JSON" },
  },
  async run({ values, io }) {
    const r = resetState(resolveHome(values.home), { ...(values.by !== undefined ? { by: values.by } : {}), force: values.force === true });
    io.stdout.write(
      (values.json
        ? JSON.stringify({ reset: true, ...r }, null, 2)
        : `reset the store under ${r.home} (new store ${r.id})\n  by    ${r.record.by}\n  at    ${r.record.at}\n  was   ${r.record.what}${r.record.aside.map((f) => `\n  kept  ${f}`).join("")}`) + "\n",
    );
    return 0;
  },
});

export const command: Group = {
  path: "counters",
  summary: "the home's rate-limit, spend and session store: status | reset",
  commands: [status, reset],
};

const summary = command.summary;
const run = (argv: string[], io?: Io): Promise<number> => runGroup(command, argv, io);

function formatStatus(s: StateStatus): string {
  const lines = [`store        ${s.file}`];
  if (!s.exists) lines.push("state        none yet (the first counted call creates it)");
  else if (s.healthy) {
    lines.push(`state        healthy, generation ${s.generation}`, `rows         ${Object.entries(s.rows ?? {}).map(([k, v]) => `${k} ${v}`).join(", ")}`);
    // a clock that ran ahead and was set back: periods that ended before this are refused (docs/checks.md)
    if (s.latest !== undefined) lines.push(`latest time  ${new Date(s.latest).toISOString()} (no count goes into a period that ended before it)`);
  }
  // a file this user may not open, or not a regular file, is no damage: the fix is its hint, not a reset
  else lines.push(`state        ${s.problem?.code === "SessionStateUnreadable" ? "UNREADABLE (SessionStateUnreadable)" : "DAMAGED"}: ${s.problem?.message ?? "unknown"}`, `fix          ${s.problem?.hint ?? ""}`);
  for (const r of s.resets) lines.push(`reset        ${r.at} by ${r.by}: ${r.what}`);
  return lines.join("\n");
}
